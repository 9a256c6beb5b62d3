import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageConfig } from '../config.js';
import { type ContainerKind, type Git, relativePath } from './git.js';

/**
 * Bare repositories on the configured storages: where each container's repository lives, creating and
 * removing them. The storage of a container is recorded on the container.
 */
export class RepositoriesService {
  /** Pushes in progress, by repository path: a move waits for them before it copies. */
  private readonly writes = new Map<string, Set<Promise<unknown>>>();

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

  /** Tracks a write (a push) to a repository until it settles. */
  async trackWrite(path: string, write: Promise<unknown>): Promise<void> {
    const set = this.writes.get(path) ?? new Set();
    set.add(write);
    this.writes.set(path, set);
    try {
      await write;
    } finally {
      set.delete(write);
      if (set.size === 0) this.writes.delete(path);
    }
  }

  /**
   * Waits until no push to the repository is in progress in this process, at most `timeoutMs`: true when none is
   * left, false when one still runs then (a stalled client; a storage move then fails rather than wait forever).
   */
  async waitForWrites(path: string, timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      for (;;) {
        const set = this.writes.get(path);
        if (!set || set.size === 0) return true;
        const settled = Promise.allSettled([...set]).then(() => true as const);
        if (!(await Promise.race([settled, expired]))) return false;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async create(kind: ContainerKind, id: number, storage: string, defaultBranch = 'main'): Promise<void> {
    await this.git.init(this.path(kind, id, storage), defaultBranch);
  }

  async remove(kind: ContainerKind, id: number, storage: string): Promise<void> {
    await this.git.remove(this.path(kind, id, storage));
  }
}

/** The accounts services' view of repositories (see RepositoryLifecycle). */
export function repositoryLifecycle(repos: RepositoriesService) {
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
  };
}
