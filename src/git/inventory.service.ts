import { relativePath } from './git.js';
import type { InventoryRepository, StoredRepository } from './inventory.repository.js';

/** One repository: its storage and its path inside the storage (GitLab's hashed layout). */
export interface RepositoryLocation extends StoredRepository {
  readonly relativePath: string;
}

/** The list of repositories and where they are (`svc list-repos`). */
export class InventoryService {
  constructor(private readonly repo: InventoryRepository) {}

  /** Every repository, optionally only those with activity since `since`. */
  async list(since: Date | null): Promise<RepositoryLocation[]> {
    const rows = await this.repo.list(since ? since.toISOString() : null);
    return rows.map((r) => ({ ...r, relativePath: relativePath(r.kind, r.id) }));
  }
}
