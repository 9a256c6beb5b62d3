import { type Kysely, sql } from 'kysely';
import { type DialectName, isUniqueViolation, readBool } from '../db/dialect.js';
import { like, prefixPattern } from '../db/like.js';
import { addRedirects, claimRedirectPaths, type RedirectSource } from '../db/redirect-routes.js';
import type { Database } from '../db/schema.js';
import type { Visibility } from '../visibility.js';

/** What moving a group's tree came to. */
export type TreeTransfer = 'transferred' | 'gone' | 'read_only' | 'taken';

const RANK: Record<Visibility, number> = { private: 0, internal: 1, public: 2 };

/**
 * Moves a group with everything below it under a new parent (or to the top level) in one transaction, as GitLab's
 * Groups::TransferService and route renames do: the rows of the tree are locked (PostgreSQL `FOR UPDATE`: a storage
 * move scheduled meanwhile waits; SQLite runs one transaction at a time), a tree with a repository being moved
 * (read-only) is refused, the new full path is checked free (no namespace there, no project of the same path in the
 * new parent), every namespace's full path is rewritten, visibilities more open than the new parent's are lowered to
 * it (groups and projects), and every old full path (of the groups and of their projects) is recorded as a redirect.
 * Repositories stay where they are: their directories are named by id.
 */
export class GroupTransferRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  async transferTree(
    groupId: number,
    parent: { id: number; fullPath: string; visibility: Visibility } | null,
    now: string,
    /** A new last segment of the group's path (a path change is a move to the same parent under another name). */
    newPath?: string,
  ): Promise<TreeTransfer> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const lock = <Q extends { forUpdate(): Q }>(q: Q): Q =>
          this.dialect === 'postgres' ? q.forUpdate() : q;
        const root = await lock(
          trx.selectFrom('namespaces').select(['full_path', 'path', 'kind']).where('id', '=', groupId),
        ).executeTakeFirst();
        if (!root || root.kind !== 'group') return 'gone';
        const oldRoot = root.full_path;
        const groups = await lock(
          trx
            .selectFrom('namespaces')
            .select(['id', 'full_path', 'visibility', 'repository_read_only'])
            .where((eb) =>
              eb.or([
                eb('id', '=', groupId),
                like(sql`lower(full_path)`, prefixPattern(`${oldRoot.toLowerCase()}/`)),
              ]),
            ),
        ).execute();
        const groupIds = groups.map((g) => g.id);
        const projects = await lock(
          trx
            .selectFrom('projects')
            .select(['id', 'path', 'namespace_id', 'visibility', 'repository_read_only'])
            .where('namespace_id', 'in', groupIds),
        ).execute();
        if ([...groups, ...projects].some((r) => readBool(r.repository_read_only))) return 'read_only';
        const segment = newPath ?? root.path;
        const newRoot = parent ? `${parent.fullPath}/${segment}` : segment;
        const namespaceThere = await trx
          .selectFrom('namespaces')
          .select('id')
          .where(sql`lower(full_path)`, '=', newRoot.toLowerCase())
          .where('id', '!=', groupId)
          .executeTakeFirst();
        const projectThere = parent
          ? await trx
              .selectFrom('projects')
              .select('id')
              .where('namespace_id', '=', parent.id)
              .where(sql`lower(path)`, '=', segment.toLowerCase())
              .executeTakeFirst()
          : undefined;
        if (namespaceThere || projectThere) return 'taken';

        const fullPaths = new Map<number, string>();
        for (const g of groups) {
          const moved = newRoot + g.full_path.slice(oldRoot.length);
          fullPaths.set(g.id, moved);
          const lowered = parent && RANK[g.visibility as Visibility] > RANK[parent.visibility];
          await trx
            .updateTable('namespaces')
            .set({
              full_path: moved,
              ...(g.id === groupId && { parent_id: parent?.id ?? null, path: segment }),
              ...(lowered && { visibility: parent.visibility }),
              updated_at: now,
            })
            .where('id', '=', g.id)
            .execute();
        }
        if (parent) {
          const over = projects
            .filter((p) => RANK[p.visibility as Visibility] > RANK[parent.visibility])
            .map((p) => p.id);
          if (over.length > 0)
            await trx
              .updateTable('projects')
              .set({ visibility: parent.visibility, updated_at: now })
              .where('id', 'in', over)
              .execute();
        }
        await claimRedirectPaths(trx, [newRoot]);
        const oldPaths = new Map(groups.map((g) => [g.id, g.full_path]));
        await addRedirects(
          trx,
          [
            ...groups.map((g) => ({ type: 'Namespace' as RedirectSource, id: g.id, path: g.full_path })),
            ...projects.map((p) => ({
              type: 'Project' as RedirectSource,
              id: p.id,
              path: `${oldPaths.get(p.namespace_id)}/${p.path}`,
            })),
          ],
          now,
        );
        return 'transferred';
      });
    } catch (err) {
      // A namespace created at the new path meanwhile: the unique index decided.
      if (isUniqueViolation(err)) return 'taken';
      throw err;
    }
  }
}
