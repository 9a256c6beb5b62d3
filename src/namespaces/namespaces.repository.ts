import { type Kysely, sql } from 'kysely';
import { writeBool } from '../db/dialect.js';
import { containsText, like, prefixPattern } from '../db/like.js';
import { fetchPage } from '../db/pagination.js';
import { claimRedirectPaths } from '../db/redirect-routes.js';
import type { Database } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Visibility } from '../visibility.js';
import { toNamespace } from './namespace-row.js';
import type { Namespace } from './namespaces.js';

/** Prefixes of a full path, shortest first: `a/b/c` -> `a`, `a/b`, `a/b/c` (lower-cased). */
function pathPrefixes(fullPath: string): string[] {
  const parts = fullPath.toLowerCase().split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

export interface GroupFilter {
  search?: string;
  /** Only these ids (visible or member groups); `null` means no restriction. */
  ids: readonly number[] | null;
  /** Or any group of these visibilities. */
  visibilities: readonly Visibility[];
  topLevelOnly?: boolean;
  parentId?: number;
  /** Only groups below this one (any depth), given by full path. */
  descendantsOf?: string;
  /** User namespaces too (`/namespaces`), not only groups. */
  withUserNamespaces?: boolean;
  /** Leave these out (`skip_groups`). */
  skipIds?: readonly number[];
}

/** Namespaces: one per user and one per group (nested by `parent_id`). */
export class NamespacesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(
    n: {
      kind: 'user' | 'group';
      name: string;
      path: string;
      fullPath: string;
      parentId: number | null;
      ownerId: number | null;
      visibility: Visibility;
      description: string;
      repositoryStorage?: string | null;
    },
    now: string,
  ): Promise<Namespace> {
    const row = await this.db
      .insertInto('namespaces')
      .values({
        kind: n.kind,
        name: n.name,
        path: n.path,
        full_path: n.fullPath,
        parent_id: n.parentId,
        owner_id: n.ownerId,
        visibility: n.visibility,
        description: n.description,
        repository_storage: n.repositoryStorage ?? null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toNamespace(row);
  }

  async findById(id: number): Promise<Namespace | null> {
    const row = await this.db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toNamespace(row) : null;
  }

  async findByFullPath(fullPath: string): Promise<Namespace | null> {
    const row = await this.db
      .selectFrom('namespaces')
      .selectAll()
      .where(sql`lower(full_path)`, '=', fullPath.toLowerCase())
      .executeTakeFirst();
    return row ? toNamespace(row) : null;
  }

  async findUserNamespace(userId: number): Promise<Namespace | null> {
    const row = await this.db
      .selectFrom('namespaces')
      .selectAll()
      .where('kind', '=', 'user')
      .where('owner_id', '=', userId)
      .executeTakeFirst();
    return row ? toNamespace(row) : null;
  }

  /** The namespace and its ancestors, outermost first. */
  async ancestry(ns: Namespace): Promise<Namespace[]> {
    const rows = await this.db
      .selectFrom('namespaces')
      .selectAll()
      .where(sql`lower(full_path)`, 'in', pathPrefixes(ns.fullPath))
      .execute();
    return rows.map(toNamespace).sort((a, b) => a.fullPath.length - b.fullPath.length);
  }

  /** Ids of the given groups and every group below them. */
  async withDescendants(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const roots = await this.db.selectFrom('namespaces').select('full_path').where('id', 'in', ids).execute();
    const rows = await this.db
      .selectFrom('namespaces')
      .select('id')
      .where((eb) =>
        eb.or(
          roots.flatMap((r) => [
            eb(sql`lower(full_path)`, '=', r.full_path.toLowerCase()),
            like(sql`lower(full_path)`, prefixPattern(`${r.full_path.toLowerCase()}/`)),
          ]),
        ),
      )
      .execute();
    return rows.map((r) => r.id);
  }

  async hasChildren(id: number): Promise<boolean> {
    const [g, p] = await Promise.all([
      this.db.selectFrom('namespaces').select('id').where('parent_id', '=', id).executeTakeFirst(),
      this.db.selectFrom('projects').select('id').where('namespace_id', '=', id).executeTakeFirst(),
    ]);
    return g !== undefined || p !== undefined;
  }

  async listGroups(f: GroupFilter, page: PageRequest): Promise<Paged<Namespace>> {
    let base = this.db.selectFrom('namespaces');
    if (!f.withUserNamespaces) base = base.where('kind', '=', 'group');
    if (f.ids !== null) {
      const ids = f.ids;
      base = base.where((eb) =>
        eb.or([
          ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
          ...(f.visibilities.length > 0 ? [eb('visibility', 'in', f.visibilities)] : []),
          sql<boolean>`1 = 0`,
        ]),
      );
    }
    if (f.search) {
      const term = f.search;
      base = base.where((eb) =>
        eb.or([containsText(sql.ref('name'), term), containsText(sql.ref('full_path'), term)]),
      );
    }
    if (f.topLevelOnly) base = base.where('parent_id', 'is', null);
    if (f.skipIds && f.skipIds.length > 0) base = base.where('id', 'not in', f.skipIds);
    if (f.parentId !== undefined) base = base.where('parent_id', '=', f.parentId);
    if (f.descendantsOf !== undefined)
      base = base.where(like(sql`lower(full_path)`, prefixPattern(`${f.descendantsOf.toLowerCase()}/`)));
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('full_path', 'asc'), page);
    return { items: rows.map(toNamespace), total };
  }

  async update(
    id: number,
    patch: Partial<{
      name: string;
      description: string;
      visibility: Visibility;
      requestAccessEnabled: boolean;
    }>,
    now: string,
  ): Promise<void> {
    const { requestAccessEnabled, ...columns } = patch;
    await this.db
      .updateTable('namespaces')
      .set({
        ...columns,
        ...(requestAccessEnabled !== undefined && {
          request_access_enabled: writeBool(requestAccessEnabled),
        }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  /** A namespace now at `fullPath`: redirects of that path (and below it) end. */
  async claimPath(fullPath: string): Promise<void> {
    await claimRedirectPaths(this.db, [fullPath]);
  }

  async setAvatar(id: number, avatar: string | null): Promise<void> {
    await this.db.updateTable('namespaces').set({ avatar }).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('namespaces').where('id', '=', id).execute();
  }
}
