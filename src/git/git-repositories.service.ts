import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageConfig } from '../config.js';
import { type ContainerKind, type Git, relativePath } from './git.js';

/**
 * Bare repositories on the configured storages: where each container's repository lives, creating and
 * removing them. The storage of a container is recorded on the container.
 */
export class GitRepositoriesService {
  constructor(
    readonly git: Git,
    private readonly storages: Readonly<Record<string, StorageConfig>>,
  ) {}

  storageNames(): string[] {
    return Object.keys(this.storages);
  }

  hasStorage(name: string): boolean {
    return name in this.storages;
  }

  storagePath(name: string): string {
    const s = this.storages[name];
    if (!s) throw new Error(`Unknown storage ${name}`);
    return s.path;
  }

  /** The repository's directory on a storage. */
  path(kind: ContainerKind, id: number, storage: string): string {
    return join(this.storagePath(storage), relativePath(kind, id));
  }

  /** Whether two storages resolve to the same directory (symlinks included): a move between them must not delete. */
  async sameDirectory(a: string, b: string): Promise<boolean> {
    if (a === b) return true;
    const resolve = (p: string) => realpath(p).catch(() => p);
    return (await resolve(this.storagePath(a))) === (await resolve(this.storagePath(b)));
  }

  async create(kind: ContainerKind, id: number, storage: string, defaultBranch = 'main'): Promise<void> {
    await this.git.init(this.path(kind, id, storage), defaultBranch);
  }

  async remove(kind: ContainerKind, id: number, storage: string): Promise<void> {
    await this.git.remove(this.path(kind, id, storage));
  }

  /** What a push to one ref of a project carried (see `pushedRefContent`). */
  pushedRef(
    project: { id: number; repositoryStorage: string; defaultBranch: string },
    update: { before: string; after: string; ref: string },
    limit: number,
  ): Promise<PushedRefContent> {
    const path = this.path('project', project.id, project.repositoryStorage);
    return pushedRefContent(this.git, path, update, project.defaultBranch, limit);
  }

  /** The commit `sha` of a project as an event shows it (a merge request's `last_commit`), or null if unknown. */
  async commit(
    project: { id: number; repositoryStorage: string },
    sha: string,
  ): Promise<{
    id: string;
    message: string;
    title: string;
    timestamp: string;
    authorName: string;
    authorEmail: string;
  } | null> {
    const path = this.path('project', project.id, project.repositoryStorage);
    const out = await this.git
      .run(['log', '-1', `--format=${['%H', '%an', '%ae', '%aI', '%B'].join('%x00')}`, sha, '--'], {
        cwd: path,
      })
      .catch(() => null);
    if (!out) return null;
    const [id, an, ae, ad, body] = out.split('\0') as string[];
    const message = body!.replace(/\n+$/, '\n');
    return {
      id: id!,
      message,
      title: message.split('\n')[0]!,
      timestamp: ad!,
      authorName: an!,
      authorEmail: ae!,
    };
  }
}

/** A commit of a push as its event tells it (GitLab's push payload `commits`). */
export interface PushedCommit {
  readonly id: string;
  readonly message: string;
  readonly title: string;
  /** The author date (ISO 8601 with the author's offset). */
  readonly timestamp: string;
  readonly authorName: string;
  readonly authorEmail: string;
  readonly added: readonly string[];
  readonly modified: readonly string[];
  readonly removed: readonly string[];
}

/** What a push of one ref carried: its newest commits (oldest first), how many there were, what to check out. */
export interface PushedRefContent {
  readonly commits: readonly PushedCommit[];
  readonly totalCommits: number;
  /** The commit the ref now names (a tag peeled); null after a deletion. */
  readonly checkoutSha: string | null;
  /** An annotated tag's message; null otherwise. */
  readonly message: string | null;
}

const ZERO = /^0+$/;
/** GitLab's PROCESS_COMMIT_LIMIT: a new default branch reports its most recent 100 commits. */
const NEW_BRANCH_COMMITS = 100;

/**
 * What a push to one ref carried, read as GitLab's push hooks do: an updated branch `before..after`; a new default
 * branch its most recent 100 commits; another new branch the commits the default branch does not have; a tag or a
 * deletion no commits. `limit` bounds the commits described (the newest ones), not the count.
 */
export async function pushedRefContent(
  git: Git,
  path: string,
  update: { before: string; after: string; ref: string },
  defaultBranch: string,
  limit: number,
): Promise<PushedRefContent> {
  if (ZERO.test(update.after)) return { commits: [], totalCommits: 0, checkoutSha: null, message: null };
  const checkoutSha = (
    await git.run(['rev-parse', '--verify', `${update.after}^{commit}`], { cwd: path })
  ).trim();
  if (!update.ref.startsWith('refs/heads/')) {
    const type = (await git.run(['cat-file', '-t', update.after], { cwd: path })).trim();
    const message =
      type === 'tag'
        ? (await git.run(['for-each-ref', '--format=%(contents)', update.ref], { cwd: path })).trimEnd()
        : null;
    return { commits: [], totalCommits: 0, checkoutSha, message };
  }
  let range: string[];
  let cap: string[] = [];
  if (!ZERO.test(update.before)) range = [`${update.before}..${update.after}`];
  else if (update.ref === `refs/heads/${defaultBranch}`) {
    range = [update.after];
    cap = [`--max-count=${NEW_BRANCH_COMMITS}`];
  } else {
    const hasDefault = await git
      .run(['rev-parse', '--verify', '--quiet', `refs/heads/${defaultBranch}`], { cwd: path })
      .then(
        () => true,
        () => false,
      );
    range = hasDefault ? [update.after, '--not', `refs/heads/${defaultBranch}`] : [update.after];
    if (!hasDefault) cap = [`--max-count=${NEW_BRANCH_COMMITS}`];
  }
  const total = Number((await git.run(['rev-list', '--count', ...cap, ...range], { cwd: path })).trim());
  const format = ['%H', '%P', '%an', '%ae', '%aI', '%B'].join('%x00');
  const out = await git.run(
    ['log', `--format=${format}%x1e`, `--max-count=${Math.min(limit, total)}`, ...range],
    { cwd: path },
  );
  const records = out
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r !== '')
    .reverse();
  const commits: PushedCommit[] = [];
  for (const r of records) {
    const [id, parents, an, ae, ad, body] = r.split('\0') as string[];
    const message = body!.replace(/\n+$/, '\n');
    const first = parents ? parents.split(' ')[0] : undefined;
    const status = await git.run(
      first
        ? ['diff', '--name-status', '-M', '-z', first, id!]
        : ['diff-tree', '-r', '--root', '--no-commit-id', '--name-status', '-M', '-z', id!],
      { cwd: path },
    );
    const added: string[] = [];
    const modified: string[] = [];
    const removed: string[] = [];
    const f = status.split('\0');
    for (let i = 0; i < f.length - 1; ) {
      const code = f[i++]!;
      if (code.startsWith('R') || code.startsWith('C')) {
        const from = f[i++]!;
        const to = f[i++]!;
        if (code.startsWith('R')) removed.push(from);
        added.push(to);
      } else if (code === 'A') added.push(f[i++]!);
      else if (code === 'D') removed.push(f[i++]!);
      else modified.push(f[i++]!);
    }
    commits.push({
      id: id!,
      message,
      title: message.split('\n')[0]!,
      timestamp: ad!,
      authorName: an!,
      authorEmail: ae!,
      added,
      modified,
      removed,
    });
  }
  return { commits, totalCommits: total, checkoutSha, message: null };
}

/** The accounts services' view of repositories (see RepositoryLifecycle). */
export function repositoryLifecycle(repos: GitRepositoriesService) {
  return {
    create: (kind: ContainerKind, id: number, storage: string, defaultBranch?: string) =>
      repos.create(kind, id, storage, defaultBranch),
    remove: (kind: ContainerKind, id: number, storage: string) => repos.remove(kind, id, storage),
    commitSnippet: async (
      id: number,
      storage: string,
      file: { name: string; content: string },
      author: { name: string; email: string },
    ) => {
      const path = repos.path('snippet', id, storage);
      await repos.git.init(path, 'main');
      await repos.git.commitFile(path, 'main', file, `Update ${file.name}`, author);
    },
    commitProjectFile: async (
      id: number,
      storage: string,
      branch: string,
      file: { name: string; content: string },
      message: string,
      author: { name: string; email: string },
    ) => {
      await repos.git.commitFile(repos.path('project', id, storage), branch, file, message, author);
    },
    branchSummary: (id: number, storage: string, branch: string) =>
      repos.git.branchSummary(repos.path('project', id, storage), branch),
  };
}
