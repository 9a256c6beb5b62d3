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
