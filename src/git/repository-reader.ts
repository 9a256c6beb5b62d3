import { type Commit, LOG_FORMAT, parseLog } from './commits.js';
import { type FileDiff, parseDiff } from './diff.js';
import { type Git, GitError } from './git.js';

/** The last second git's date parser reads (2099-12-31T23:59:59Z); past it, git takes the current time. */
const GIT_LAST_DATE = 4_102_444_799;

/** An entry of a tree (GitLab's TreeObject): `type` is `tree`, `blob` or `commit` (a submodule). */
export interface TreeEntry {
  readonly id: string;
  readonly name: string;
  readonly type: 'tree' | 'blob' | 'commit';
  readonly path: string;
  readonly mode: string;
}

/** A file of a commit's tree: its blob and where it is. */
export interface BlobEntry {
  readonly id: string;
  readonly path: string;
  readonly name: string;
  readonly mode: string;
  readonly size: number;
}

/** A branch and the commit it points at. */
export interface BranchHead {
  readonly name: string;
  readonly commit: Commit;
}

/** Lines added and removed by a commit (GitLab's CommitStats). */
export interface CommitStats {
  readonly additions: number;
  readonly deletions: number;
  readonly total: number;
}

/** Options of a commit listing (`git log`). */
export interface LogQuery {
  /** ISO 8601 times (already validated). */
  readonly since?: string;
  readonly until?: string;
  /** Only commits that touch this path. */
  readonly path?: string;
  /** Only commits whose author name or e-mail contains this (case-insensitive, as a fixed string). */
  readonly author?: string;
  /** Follow only the first parent of merges. */
  readonly firstParent?: boolean;
  /** Topological order instead of git's default (reverse chronological). */
  readonly topo?: boolean;
  readonly skip: number;
  readonly limit: number;
}

/** The empty tree's id in SHA-1 and in SHA-256 repositories (what a root commit is compared to). */
const EMPTY_TREE_SHA1 = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const EMPTY_TREE_SHA256 = '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Whether a client's ref (branch, tag, sha, `HEAD`, `main~1`) can be handed to git: not empty, no control
 * character, not an option. What it names is git's to say.
 */
export const usableRef = (ref: string): boolean => ref !== '' && !CONTROL.test(ref) && !ref.startsWith('-');

/**
 * Reads a bare repository with git plumbing: commits, trees, blobs, branches and diffs, in the shapes GitLab's
 * API presents. Paths are given to git literally (`--literal-pathspecs`): `*` and `:(glob)` mean nothing. Every
 * method takes the repository's directory; access has been checked by the caller.
 */
export class RepositoryReader {
  constructor(readonly git: Git) {}

  private run(
    repo: string,
    args: readonly string[],
    input?: string | Buffer,
    limits: { timeoutMs?: number; maxBytes?: number } = {},
  ): Promise<string> {
    return this.git.run(['--literal-pathspecs', '-c', 'core.quotePath=false', ...args], {
      cwd: repo,
      ...(input !== undefined && { input }),
      ...limits,
    });
  }

  /** The commit a ref names, or null (no such ref, or not a commit). */
  async resolve(repo: string, ref: string): Promise<string | null> {
    if (!usableRef(ref)) return null;
    const out = await this.run(repo, [
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${ref}^{commit}`,
    ])
      .then((o) => o.trim())
      .catch(() => '');
    return /^[0-9a-f]{40,64}$/.test(out) ? out : null;
  }

  /** The commits of the given ids, in that order (ids must name commits). */
  async commits(repo: string, ids: readonly string[]): Promise<Commit[]> {
    if (ids.length === 0) return [];
    const out = await this.run(repo, [
      'log',
      '--no-walk=unsorted',
      `--format=${LOG_FORMAT}`,
      ...new Set(ids),
    ]);
    const byId = new Map(parseLog(out).map((c) => [c.id, c]));
    return ids.map((id) => byId.get(id)!);
  }

  async commit(repo: string, id: string): Promise<Commit> {
    return (await this.commits(repo, [id]))[0]!;
  }

  /** Commits reachable from `head` (every branch and tag when null), newest first, filtered and paged as asked. */
  async log(repo: string, head: string | null, q: LogQuery): Promise<Commit[]> {
    const args = ['log', `--format=${LOG_FORMAT}`, `--skip=${q.skip}`, `--max-count=${q.limit}`];
    // As seconds since the epoch: git's date parser reads some ISO 8601 times wrongly. It reads no time after 2099
    // either, and silently takes "now" instead (so `--since` far ahead would list this second's commits): a bound
    // past that is applied here, as "nothing" or "no bound".
    const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
    if (q.since && seconds(q.since) > GIT_LAST_DATE) return [];
    if (q.since) args.push(`--since=@${seconds(q.since)}`);
    if (q.until && seconds(q.until) <= GIT_LAST_DATE) args.push(`--until=@${seconds(q.until)}`);
    if (q.author) args.push('--regexp-ignore-case', '--fixed-strings', `--author=${q.author}`);
    if (q.firstParent) args.push('--first-parent');
    if (q.topo) args.push('--topo-order');
    // `null`: every branch and tag (GitLab's `all`).
    if (head === null) args.push('--branches', '--tags');
    else args.push(head);
    args.push('--');
    if (q.path) args.push(q.path);
    return parseLog(await this.run(repo, args));
  }

  /** The commits in `to` that `from` lacks (`from..to`), oldest first. */
  async between(repo: string, from: string, to: string): Promise<Commit[]> {
    return parseLog(await this.run(repo, ['log', '--reverse', `--format=${LOG_FORMAT}`, `${from}..${to}`]));
  }

  async mergeBase(repo: string, a: string, b: string): Promise<string | null> {
    const out = await this.run(repo, ['merge-base', a, b]).catch(() => '');
    return out.trim() || null;
  }

  /** What a commit is compared to: its first parent, or the empty tree for a root commit (GitLab's commit diff). */
  parentOf(commit: Commit): string {
    return commit.parentIds[0] ?? (commit.id.length === 64 ? EMPTY_TREE_SHA256 : EMPTY_TREE_SHA1);
  }

  /** The file diffs from `from` to `to` (renames detected). */
  async diff(repo: string, from: string, to: string): Promise<FileDiff[]> {
    return parseDiff(await this.run(repo, ['diff', '-M', '--no-color', '--full-index', from, to, '--']));
  }

  /** Lines added and removed from `from` to `to` (binary files count none, as GitLab's stats). */
  async stats(repo: string, from: string, to: string): Promise<CommitStats> {
    const out = await this.run(repo, ['diff', '--numstat', '-z', '-M', from, to, '--']);
    let additions = 0;
    let deletions = 0;
    for (const m of out.matchAll(/(?:^|\0)(\d+|-)\t(\d+|-)\t/g)) {
      additions += m[1] === '-' ? 0 : Number(m[1]);
      deletions += m[2] === '-' ? 0 : Number(m[2]);
    }
    return { additions, deletions, total: additions + deletions };
  }

  /**
   * The entries of the tree at `dir` (the root when empty) in `commit`: trees first, then files, then submodules,
   * each in git's order (GitLab's `sorted_entries`); `recursive` lists every entry below it. Null when `dir` is
   * not a tree of the commit.
   */
  async tree(repo: string, commit: string, dir: string, recursive: boolean): Promise<TreeEntry[] | null> {
    const clean = dir.replace(/^\/+|\/+$/g, '');
    if (CONTROL.test(clean)) return null;
    let out: string;
    try {
      out = await this.run(repo, ['ls-tree', '-z', ...(recursive ? ['-r', '-t'] : []), `${commit}:${clean}`]);
    } catch (err) {
      if (err instanceof GitError) return null;
      throw err;
    }
    const entries = out
      .split('\0')
      .filter(Boolean)
      .map((line): TreeEntry => {
        const tab = line.indexOf('\t');
        const [mode, type, id] = line.slice(0, tab).split(' ') as [string, TreeEntry['type'], string];
        const rel = line.slice(tab + 1);
        const path = clean ? `${clean}/${rel}` : rel;
        return { id, name: path.slice(path.lastIndexOf('/') + 1), type, path, mode };
      });
    const rank = { tree: 0, blob: 1, commit: 2 } as const;
    return entries
      .map((e, i) => ({ e, i }))
      .sort((a, b) => rank[a.e.type] - rank[b.e.type] || a.i - b.i)
      .map((x) => x.e);
  }

  /** The file at `path` in `commit` (a blob: regular, executable or symlink), or null. */
  async blobAt(repo: string, commit: string, path: string): Promise<BlobEntry | null> {
    if (path === '' || CONTROL.test(path)) return null;
    const out = await this.run(repo, ['ls-tree', '-z', '-l', '--full-tree', commit, '--', path]).catch(
      () => '',
    );
    for (const line of out.split('\0').filter(Boolean)) {
      const tab = line.indexOf('\t');
      if (line.slice(tab + 1) !== path) continue;
      const [mode, type, id, size] = line.slice(0, tab).split(/ +/) as [string, string, string, string];
      if (type !== 'blob') return null;
      return { id, path, name: path.slice(path.lastIndexOf('/') + 1), mode, size: Number(size) };
    }
    return null;
  }

  /** A blob's bytes. */
  async blobContent(repo: string, id: string): Promise<Buffer> {
    return this.git.runBuffer(['cat-file', 'blob', id], { cwd: repo });
  }

  /** A blob by id (any blob of the repository), with its size; null when the id names no blob. */
  async blob(repo: string, id: string): Promise<{ id: string; size: number } | null> {
    if (!/^[0-9a-f]{4,64}$/i.test(id)) return null;
    const full = await this.run(repo, ['rev-parse', '--verify', '--quiet', `${id}^{blob}`])
      .then((o) => o.trim())
      .catch(() => '');
    if (!full) return null;
    const size = Number((await this.run(repo, ['cat-file', '-s', full])).trim());
    return { id: full, size };
  }

  /** The last commit of `commit`'s history that changed `path`. */
  async lastCommitFor(repo: string, commit: string, path: string): Promise<string | null> {
    const out = await this.run(repo, ['log', '-1', '--format=%H', commit, '--', path]);
    return out.trim() || null;
  }

  /** Every branch and its head commit, by name. */
  async branches(repo: string): Promise<BranchHead[]> {
    const out = await this.run(repo, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/']);
    const refs = out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const space = l.indexOf(' ');
        return { id: l.slice(0, space), name: l.slice(space + 1).replace(/^refs\/heads\//, '') };
      });
    const commits = await this.commits(
      repo,
      refs.map((r) => r.id),
    );
    return refs.map((r, i) => ({ name: r.name, commit: commits[i]! }));
  }

  /** The names of the branches whose heads `into` contains (merged into it). */
  async mergedInto(repo: string, into: string): Promise<Set<string>> {
    const out = await this.run(repo, [
      'for-each-ref',
      `--merged=${into}`,
      '--format=%(refname)',
      'refs/heads/',
    ]);
    return new Set(
      out
        .split('\n')
        .filter(Boolean)
        .map((r) => r.replace(/^refs\/heads\//, '')),
    );
  }

  /** The commit a branch points at, or null. */
  async branchHead(repo: string, name: string): Promise<string | null> {
    if (!usableRef(name)) return null;
    const out = await this.run(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`])
      .then((o) => o.trim())
      .catch(() => '');
    return out || null;
  }

  /** Whether `name` is a valid branch name for git (`git check-ref-format --branch`, without `@{-1}` forms). */
  async validBranchName(repo: string, name: string): Promise<boolean> {
    if (!usableRef(name) || name.includes('@{') || name === 'HEAD') return false;
    return this.run(repo, ['check-ref-format', `refs/heads/${name}`]).then(
      () => true,
      () => false,
    );
  }

  // Bounded reads for work done on the side of a request (an error's suspect commit): each git call has a time and
  // an output limit, so a huge repository costs a failed lookup, not a stuck request.

  /** The paths of every file of `commit`'s tree (`ls-tree -r --name-only`). */
  async filePaths(repo: string, commit: string, limits: GitLimits): Promise<string[]> {
    const out = await this.run(repo, ['ls-tree', '-r', '-z', '--name-only', commit], undefined, limits);
    return out.split('\0').filter(Boolean);
  }

  /**
   * The commit that last changed line `line` of `path` as of `commit` (`git blame --porcelain`), or null when the
   * file has no such line.
   */
  async blameLine(
    repo: string,
    commit: string,
    path: string,
    line: number,
    limits: GitLimits,
  ): Promise<{ commit: string; path: string; line: number } | null> {
    if (!Number.isSafeInteger(line) || line < 1 || path === '' || CONTROL.test(path)) return null;
    let out: string;
    try {
      out = await this.run(
        repo,
        ['blame', '--porcelain', '-L', `${line},${line}`, commit, '--', path],
        undefined,
        limits,
      );
    } catch (err) {
      // "file has only N lines", "no such path": nothing to blame.
      if (err instanceof GitError && err.exitCode !== null) return null;
      throw err;
    }
    // The header: `<sha> <line in the original file> <line in the final file> [<lines in group>]`.
    const head = /^([0-9a-f]{40,64}) (\d+) \d+/.exec(out);
    if (!head) return null;
    const original = /\nfilename ([^\n]*)\n/.exec(out);
    return { commit: head[1]!, line: Number(head[2]), path: original?.[1] ?? path };
  }

  /**
   * The merge commit that brought `commit` into `head`'s first-parent history (what git-when-merged answers): the
   * oldest first-parent ancestor of `head` that descends from `commit`. Null when `commit` is itself on that
   * history (committed or merged there directly), is not in `head`'s history, or lies beyond the last `depth`
   * first-parent commits.
   */
  async mergeOf(
    repo: string,
    commit: string,
    head: string,
    depth: number,
    limits: GitLimits,
  ): Promise<string | null> {
    const mainline = (
      await this.run(
        repo,
        ['rev-list', '--first-parent', `--max-count=${depth}`, head, '--'],
        undefined,
        limits,
      )
    )
      .split('\n')
      .filter(Boolean);
    if (mainline.includes(commit)) return null;
    const descendants = new Set(
      (await this.run(repo, ['rev-list', '--ancestry-path', `${commit}..${head}`, '--'], undefined, limits))
        .split('\n')
        .filter(Boolean),
    );
    for (let i = mainline.length - 1; i >= 0; i--) if (descendants.has(mainline[i]!)) return mainline[i]!;
    return null;
  }
}

/** The time and output bounds of one git call. */
export interface GitLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}
