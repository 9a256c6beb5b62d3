import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What kind of container a repository belongs to; decides its hashed path prefix (GitLab's layout). */
export type ContainerKind = 'project' | 'snippet' | 'group';

/** `@hashed/ab/cd/<sha256>.git` for projects, `@snippets/...` for snippets, `@groups/....wiki.git` for group wikis. */
export function relativePath(kind: ContainerKind, id: number): string {
  const h = createHash('sha256').update(String(id)).digest('hex');
  const dir = `${h.slice(0, 2)}/${h.slice(2, 4)}/${h}`;
  if (kind === 'project') return `@hashed/${dir}.git`;
  if (kind === 'snippet') return `@snippets/${dir}.git`;
  return `@groups/${dir}.wiki.git`;
}

/** Gitaly's checksum of `<oid> <ref>` lines: the XOR of their SHA-1s; 40 zeros when there are none. */
function refsChecksum(lines: readonly string[]): string {
  const acc = Buffer.alloc(20);
  for (const line of lines) {
    const h = createHash('sha1').update(line).digest();
    for (let i = 0; i < 20; i++) acc[i]! ^= h[i]!;
  }
  return acc.toString('hex');
}

/** Git failed: the command's stderr, trimmed, and its exit status when it ran. */
export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }
}

/**
 * The system `git`, for bare repositories on disk (what Gitaly drives). Every call runs git with a clean,
 * non-interactive environment.
 */
export class Git {
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly binary = 'git') {
    this.env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME ?? '/tmp',
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
      LANG: 'C',
    };
  }

  /**
   * git runs under umask 077 whatever the server's umask: `--shared=0600` covers most of what git writes, but not
   * all (receive-pack moves pushed objects out of quarantine into folders it creates with the umask's mode). `sh`
   * sets the umask and `exec`s git, so the child's pid is git's own.
   */
  private argv(args: readonly string[]): string[] {
    return ['-c', 'umask 077 && exec "$0" "$@"', this.binary, ...args];
  }

  async run(
    args: readonly string[],
    opts: {
      cwd?: string;
      input?: string | Buffer;
      env?: NodeJS.ProcessEnv;
      /** Kills git after this long (without `input` only): the call fails with a GitError. */
      timeoutMs?: number;
      /** Most bytes of output read; more fails the call (default 256 MiB). */
      maxBytes?: number;
    } = {},
  ): Promise<string> {
    const env = opts.env ? { ...this.env, ...opts.env } : this.env;
    if (opts.input === undefined) {
      try {
        const { stdout } = await run('/bin/sh', this.argv(args), {
          cwd: opts.cwd,
          env,
          maxBuffer: opts.maxBytes ?? 256 * 1024 * 1024,
          ...(opts.timeoutMs !== undefined && { timeout: opts.timeoutMs, killSignal: 'SIGKILL' as const }),
        });
        return stdout;
      } catch (err) {
        const e = err as { stderr?: string; message: string; code?: unknown };
        throw new GitError(
          (e.stderr ?? e.message).trim() || `git ${args[0]} failed`,
          typeof e.code === 'number' ? e.code : null,
        );
      }
    }
    const child = spawn('/bin/sh', this.argv(args), { cwd: opts.cwd, env });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => {
      err += String(d);
    });
    // git may exit before reading all of its input (EPIPE): its exit status reports the failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new GitError(err.trim() || `git ${args[0]} failed`);
    return Buffer.concat(out).toString('utf8');
  }

  /** Like `run`, for output that may not be text (blob contents): stdout as bytes. */
  async runBuffer(args: readonly string[], opts: { cwd?: string } = {}): Promise<Buffer> {
    try {
      const { stdout } = await run('/bin/sh', this.argv(args), {
        cwd: opts.cwd,
        env: this.env,
        encoding: 'buffer',
        maxBuffer: 256 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string; code?: unknown };
      throw new GitError(
        (e.stderr?.toString('utf8') ?? e.message).trim() || `git ${args[0]} failed`,
        typeof e.code === 'number' ? e.code : null,
      );
    }
  }

  /**
   * Commits one file as the whole tree of `branch` in a bare repository (snippets keep their content this way),
   * with plumbing only: hash-object, mktree, commit-tree, update-ref.
   */
  async commitFile(
    path: string,
    branch: string,
    file: { name: string; content: string },
    message: string,
    author: { name: string; email: string },
  ): Promise<string> {
    // The name is one path component (the snippets service validated it); checked again here because a
    // newline would start another mktree entry (a gitlink, a `.git` directory) and a NUL would end this one.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
    if (/[\u0000-\u001f\u007f/\\]/.test(file.name) || ['', '.', '..'].includes(file.name)) {
      throw new GitError(`invalid file name ${JSON.stringify(file.name)}`);
    }
    const blob = (
      await this.run(['hash-object', '-w', '--stdin'], { cwd: path, input: file.content })
    ).trim();
    if (!/^[0-9a-f]{40,64}$/.test(blob)) throw new GitError(`unexpected object id from hash-object: ${blob}`);
    // Always a regular file (mode 100644, type blob); NUL-terminated (-z) so the name is taken verbatim.
    const tree = (
      await this.run(['mktree', '-z'], { cwd: path, input: `100644 blob ${blob}\t${file.name}\0` })
    ).trim();
    const ref = `refs/heads/${branch}`;
    const parent = (
      await this.run(['rev-parse', '--verify', '--quiet', ref], { cwd: path }).catch(() => '')
    ).trim();
    const env = {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
    };
    const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message];
    const commit = (await this.run(args, { cwd: path, env })).trim();
    await this.run(['update-ref', ref, commit, ...(parent ? [parent] : [])], { cwd: path });
    return commit;
  }

  /**
   * What a repository's page shows before its content: whether it has any branch, and the names of the files at the
   * root of `branch` (none when that branch does not exist).
   */
  async branchSummary(path: string, branch: string): Promise<{ hasBranches: boolean; rootFiles: string[] }> {
    const first = await this.run(['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/'], {
      cwd: path,
    });
    if (first.trim() === '') return { hasBranches: false, rootFiles: [] };
    const ref = `refs/heads/${branch}`;
    const tip = (
      await this.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: path }).catch(() => '')
    ).trim();
    if (!tip) return { hasBranches: true, rootFiles: [] };
    // Blobs only (`-z`: names verbatim); directories and submodules are no README.
    const listing = await this.run(['ls-tree', '-z', tip], { cwd: path });
    const rootFiles = listing
      .split('\0')
      .filter(Boolean)
      .flatMap((entry) => {
        const tab = entry.indexOf('\t');
        return entry.slice(0, tab).split(' ')[1] === 'blob' ? [entry.slice(tab + 1)] : [];
      });
    return { hasBranches: true, rootFiles };
  }

  /** Starts git with piped stdio (smart HTTP streams pack data through it). */
  spawn(args: readonly string[], env: Record<string, string> = {}) {
    return spawn('/bin/sh', this.argv(args), {
      env: { ...this.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  }

  async exists(path: string): Promise<boolean> {
    return stat(join(path, 'HEAD')).then(
      () => true,
      () => false,
    );
  }

  /** Creates a bare repository (idempotent) with the given default branch. */
  async init(path: string, defaultBranch = 'main'): Promise<void> {
    if (await this.exists(path)) return;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Smart HTTP runs receive-pack directly, so no http.receivepack setting is needed. `--shared=0600` makes git
    // create every file of the repository 0600 and every folder 0700, whatever the umask of the git that writes
    // (receive-pack, gc, fetch).
    await this.run(['init', '--bare', '--quiet', '--shared=0600', `--initial-branch=${defaultBranch}`, path]);
  }

  /** `<oid> <ref>` lines of every ref. */
  async refs(path: string): Promise<string[]> {
    const out = await this.run(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: path });
    return out.split('\n').filter(Boolean);
  }

  /** Gitaly's repository checksum: the XOR of the SHA-1 of each `<oid> <ref>` line; 40 zeros when empty. */
  async checksum(path: string): Promise<string> {
    return refsChecksum(await this.refs(path));
  }

  /** The checksum the repository restored from a bundle will have: computed from the bundle's refs (HEAD aside). */
  async bundleChecksum(file: string): Promise<string> {
    const out = await this.run(['bundle', 'list-heads', file]);
    return refsChecksum(out.split('\n').filter((l) => / refs\//.test(l)));
  }

  /** `git fsck` clean, or throws with its complaints. */
  async fsck(path: string): Promise<void> {
    await this.run(['fsck', '--no-progress', '--no-dangling'], { cwd: path });
  }

  /**
   * Copies `source` to `target`, where nothing may be yet, file for file with `cp -a`: objects, refs, config and
   * hooks as they are, and no git process (a mirror clone and ref listings were four git processes per move:
   * docs/api.md, Repositories and storage moves). verifyCopy and refsDigest then prove the copy against the source.
   */
  async mirror(source: string, target: string): Promise<void> {
    if (await this.occupied(target)) throw new GitError(`${target} already exists; nothing was copied`);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    // One `cp -a` (modes, timestamps and symlinks as they are): Node's fs.cp made about six thread-pool calls per
    // file and took 0.7 s per small repository with ten moves at once (docs/benchmarks.md, Storage moves).
    try {
      await run('cp', ['-a', '--', source, target]);
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new GitError((e.stderr ?? e.message).trim() || `copying ${source} failed`);
    }
  }

  /** Whether anything (a repository or not) is at `path`. */
  async occupied(path: string): Promise<boolean> {
    return (await lstat(path).catch(() => null)) !== null;
  }

  /** A fresh path beside `target` for a copy that becomes `target` later (`place`): `<target>.copy-<hex>`. */
  scratch(target: string): string {
    return `${target}.copy-${randomBytes(6).toString('hex')}`;
  }

  /**
   * Puts the repository at `copy` in `target`'s place. A repository already there (a stale copy) is taken aside
   * first and returned, to be removed; anything else there is not ours to take away, and the call fails.
   */
  async place(copy: string, target: string): Promise<string | null> {
    const stale = (await this.exists(target)) ? await this.detach(target) : null;
    if (await this.occupied(target))
      throw new GitError(`${target} exists and is not a repository; it was left as it is`);
    await rename(copy, target);
    return stale;
  }

  /**
   * A digest of the refs as the repository stores them: `HEAD`, `packed-refs` and every file under `refs/` (and
   * `reftable/`), each with its path. Equal digests mean the same refs, byte for byte (a copy of a repository that
   * nothing writes to has its source's digest); read from the files, with no git process.
   */
  async refsDigest(path: string): Promise<string> {
    const files: string[] = [];
    for (const name of ['HEAD', 'packed-refs']) {
      if ((await stat(join(path, name)).catch(() => null))?.isFile()) files.push(name);
    }
    for (const dir of ['refs', 'reftable']) {
      const entries = await readdir(join(path, dir), { recursive: true, withFileTypes: true }).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return [];
          throw err;
        },
      );
      for (const e of entries) if (e.isFile()) files.push(relative(path, join(e.parentPath, e.name)));
    }
    files.sort();
    const hash = createHash('sha256');
    for (const f of files) {
      const bytes = await readFile(join(path, f));
      hash.update(`${f}\0${bytes.length}\0`);
      hash.update(bytes);
    }
    return hash.digest('hex');
  }

  /**
   * Proves that `target` holds exactly the objects of `source`: the same files under `objects/` (no more, no
   * fewer, same sizes); every pack and pack index intact by git's own trailer checksum (the SHA-1, or SHA-256,
   * of the file's other bytes), read from the copy, and the same trailer as the source's (so the same pack);
   * every other file there (loose objects, which git names by the hash of their content, and pack metadata)
   * byte for byte equal to the source's. With the ref checksum (see `checksum`) this proves the copy without
   * `git fsck`'s inflating and hashing of every object: one read of the copy's bytes. Throws saying what differs.
   */
  async verifyCopy(source: string, target: string): Promise<void> {
    const [want, got] = await Promise.all([
      filesUnder(join(source, 'objects')),
      filesUnder(join(target, 'objects')),
    ]);
    const missing = [...want.keys()].filter((f) => !got.has(f));
    const extra = [...got.keys()].filter((f) => !want.has(f));
    if (missing.length > 0 || extra.length > 0)
      throw new GitError(
        `the copy's objects differ from the source's: ${[...missing.map((f) => `missing ${f}`), ...extra.map((f) => `unexpected ${f}`)].slice(0, 5).join(', ')}`,
      );
    for (const [file, size] of want) {
      if (got.get(file) !== size) throw new GitError(`objects/${file} has another size in the copy`);
      const a = join(source, 'objects', file);
      const b = join(target, 'objects', file);
      const ok = /\.(pack|idx)$/.test(file)
        ? await sameTrailerAndIntact(a, b, size)
        : await sameBytes(a, b, size);
      if (!ok) throw new GitError(`objects/${file} differs from the source's in the copy`);
    }
  }

  async remove(path: string): Promise<void> {
    await rm(path, { recursive: true, force: true });
  }

  /**
   * Takes a repository out of its path at once (a rename beside it, `<path>.deleted-<hex>`): the path is free as
   * soon as this returns, and the slow recursive delete of the returned path can run later, outside any lock.
   * Null when there is nothing at the path.
   */
  async detach(path: string): Promise<string | null> {
    const aside = `${path}.deleted-${randomBytes(6).toString('hex')}`;
    try {
      await rename(path, aside);
      return aside;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Writes a bundle of every ref (an empty repository gives no bundle: returns false). */
  async bundle(path: string, file: string): Promise<boolean> {
    if ((await this.refs(path)).length === 0) return false;
    await this.run(['bundle', 'create', '--quiet', file, '--all'], { cwd: path });
    return true;
  }

  /** Restores a bare repository from a bundle. */
  async unbundle(file: string, target: string, defaultBranch: string): Promise<void> {
    await this.init(target, defaultBranch);
    await this.run(['bundle', 'verify', '--quiet', file], { cwd: target });
    await this.run(['fetch', '--quiet', '--no-write-fetch-head', '--force', file, '+refs/*:refs/*'], {
      cwd: target,
    });
  }

  /** A tar.gz of a ref, streamed to `onData`; resolves when done. */
  archive(path: string, ref: string, prefix: string): NodeJS.ReadableStream & { done: Promise<void> } {
    const child = spawn('/bin/sh', this.argv(['archive', '--format=tar.gz', `--prefix=${prefix}/`, ref]), {
      cwd: path,
      env: this.env,
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const done = new Promise<void>((resolve, reject) =>
      child.once('close', (code) =>
        code === 0 ? resolve() : reject(new GitError(stderr.trim() || 'git archive failed')),
      ),
    );
    return Object.assign(child.stdout, { done });
  }

  /** Size of a repository on disk, in bytes (du). */
  async size(path: string): Promise<number> {
    const { stdout } = await run('du', ['-sb', path]).catch(() => ({ stdout: '0' }));
    return Number(stdout.split('\t')[0]) || 0;
  }
}

/** Regular files under `dir` (recursively), by path relative to it, with their sizes. */
async function filesUnder(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  await Promise.all(
    entries
      .filter((e) => e.isFile())
      .map(async (e) => {
        const path = join(e.parentPath, e.name);
        out.set(relative(dir, path), (await stat(path)).size);
      }),
  );
  return out;
}

/** Reads `length` bytes at `position`. */
async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

/**
 * A pack or pack index ends with the hash of all its other bytes (SHA-1, or SHA-256 in SHA-256 repositories).
 * True when the copy's trailer is the source's and the copy's bytes hash to it.
 */
async function sameTrailerAndIntact(source: string, copy: string, size: number): Promise<boolean> {
  for (const [algorithm, length] of [
    ['sha1', 20],
    ['sha256', 32],
  ] as const) {
    if (size < length) continue;
    const [a, b] = await Promise.all([open(source, 'r'), open(copy, 'r')]);
    let trailer: Buffer;
    try {
      const [ta, tb] = await Promise.all([
        readAt(a, size - length, length),
        readAt(b, size - length, length),
      ]);
      if (!ta.equals(tb)) return false;
      trailer = tb;
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const hash = createHash(algorithm);
    if (size > length) {
      for await (const chunk of createReadStream(copy, {
        start: 0,
        end: size - length - 1,
        highWaterMark: 1 << 20,
      }))
        hash.update(chunk as Buffer);
    }
    if (hash.digest().equals(trailer)) return true;
  }
  return false;
}

/** Whether two files hold the same bytes. */
async function sameBytes(a: string, b: string, length: number): Promise<boolean> {
  const [fa, fb] = await Promise.all([open(a, 'r'), open(b, 'r')]);
  try {
    // Loose objects are mostly small: buffers of the file's size (plus one byte, to see it end), at most 1 MiB.
    const size = Math.min(length + 1, 1 << 20);
    for (let position = 0; ; position += size) {
      const [x, y] = await Promise.all([readAt(fa, position, size), readAt(fb, position, size)]);
      if (!x.equals(y)) return false;
      if (x.length < size) return true;
    }
  } finally {
    await Promise.all([fa.close(), fb.close()]);
  }
}
