import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ContainerKind } from './git.js';

/** A container that has a repository, and the storage it lives on. */
export interface StoredRepository {
  readonly kind: ContainerKind;
  readonly id: number;
  readonly storage: string;
}

/** Which containers (projects, snippets, group wikis) have a repository on which storage. */
export class InventoryRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every container with a storage, optionally only those with activity at or after `since` (ISO 8601). */
  async list(since: string | null): Promise<StoredRepository[]> {
    let projects = this.db.selectFrom('projects').select(['id', 'repository_storage']).orderBy('id');
    let snippets = this.db.selectFrom('snippets').select(['id', 'repository_storage']).orderBy('id');
    let groups = this.db
      .selectFrom('namespaces')
      .select(['id', 'repository_storage'])
      .where('kind', '=', 'group')
      .orderBy('id');
    if (since !== null) {
      projects = projects.where('last_activity_at', '>=', since);
      snippets = snippets.where('updated_at', '>=', since);
      groups = groups.where('updated_at', '>=', since);
    }
    const rows = [
      ...(await projects.execute()).map((r) => ['project', r] as const),
      ...(await snippets.execute()).map((r) => ['snippet', r] as const),
      ...(await groups.execute()).map((r) => ['group', r] as const),
    ];
    return rows.flatMap(([kind, r]) =>
      r.repository_storage ? [{ kind, id: r.id, storage: r.repository_storage }] : [],
    );
  }
}
