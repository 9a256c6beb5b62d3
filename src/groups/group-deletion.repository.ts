import { type Kysely, sql, type Transaction } from 'kysely';
import { type DialectName, readBool } from '../db/dialect.js';
import { like, prefixPattern } from '../db/like.js';
import { deleteRedirectsOf } from '../db/redirect-routes.js';
import type { Database } from '../db/schema.js';

/** A repository under a group being deleted: its wiki, its subgroups' wikis, its projects and their snippets. */
export interface TreeRepository {
  readonly kind: 'group' | 'project' | 'snippet';
  readonly id: number;
  readonly storage: string;
}

/** What deleting a group's tree came to. */
export type TreeDeletion = 'deleted' | 'gone' | 'busy';

/**
 * Deletes a group with everything below it in one transaction: the rows are locked (PostgreSQL `FOR UPDATE`: a
 * project created in the tree, or a storage move scheduled for one of its repositories, waits and then finds the
 * group gone; SQLite runs one transaction at a time), read, and deleted (subgroups, projects and everything of
 * theirs by cascade; memberships, which have no foreign key, explicitly). `then` runs in the same transaction with
 * the repositories whose rows were deleted, so the caller can record them durably for removal.
 */
export class GroupDeletionRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  async deleteTree(
    groupId: number,
    then: (repositories: TreeRepository[], trx: Transaction<Database>) => Promise<void>,
  ): Promise<TreeDeletion> {
    return this.db.transaction().execute(async (trx) => {
      const lock = <Q extends { forUpdate(): Q }>(q: Q): Q =>
        this.dialect === 'postgres' ? q.forUpdate() : q;
      const root = await lock(
        trx.selectFrom('namespaces').select(['full_path', 'kind']).where('id', '=', groupId),
      ).executeTakeFirst();
      if (!root || root.kind !== 'group') return 'gone';
      const below = like(sql`lower(full_path)`, prefixPattern(`${root.full_path.toLowerCase()}/`));
      const groups = await lock(
        trx
          .selectFrom('namespaces')
          .select(['id', 'repository_storage', 'repository_read_only'])
          .where((eb) => eb.or([eb('id', '=', groupId), below])),
      ).execute();
      const groupIds = groups.map((g) => g.id);
      const projects = await lock(
        trx
          .selectFrom('projects')
          .select(['id', 'repository_storage', 'repository_read_only'])
          .where('namespace_id', 'in', groupIds),
      ).execute();
      const projectIds = projects.map((p) => p.id);
      const snippets =
        projectIds.length === 0
          ? []
          : await lock(
              trx
                .selectFrom('snippets')
                .select(['id', 'repository_storage', 'repository_read_only'])
                .where('project_id', 'in', projectIds),
            ).execute();
      // A repository being moved is read-only until its move ends: the deletion waits for it.
      if ([...groups, ...projects, ...snippets].some((r) => readBool(r.repository_read_only))) return 'busy';
      const sources = (type: 'namespace' | 'project', ids: number[]) =>
        ids.length === 0
          ? Promise.resolve()
          : trx
              .deleteFrom('members')
              .where('source_type', '=', type)
              .where('source_id', 'in', ids)
              .execute()
              .then(() => undefined);
      await sources('namespace', groupIds);
      await sources('project', projectIds);
      await trx.deleteFrom('namespaces').where('id', '=', groupId).execute();
      await deleteRedirectsOf(trx, 'Namespace', groupIds);
      await deleteRedirectsOf(trx, 'Project', projectIds);
      const repositories: TreeRepository[] = [
        ...groups.flatMap((g) =>
          g.repository_storage ? [{ kind: 'group' as const, id: g.id, storage: g.repository_storage }] : [],
        ),
        ...projects.map((p) => ({ kind: 'project' as const, id: p.id, storage: p.repository_storage })),
        ...snippets.map((s) => ({ kind: 'snippet' as const, id: s.id, storage: s.repository_storage })),
      ];
      await then(repositories, trx);
      return 'deleted';
    });
  }
}
