import { type Kysely, type Selectable, sql } from 'kysely';
import { isUniqueViolation, readBool, readCount, readTimestamp, writeBool } from '../db/dialect.js';
import { containsText } from '../db/like.js';
import { addRedirects, claimRedirectPaths, deleteRedirectsOf, redirectOf } from '../db/redirect-routes.js';
import type { Database, NamespacesTable, ProjectsTable } from '../db/schema.js';
import type { ProjectScope } from '../members/members.js';
import { toNamespace } from '../namespaces/namespace-row.js';
import type { Namespace } from '../namespaces/namespaces.js';
import type { KeysetRequest, Paged, PageRequest } from '../pagination.js';
import type { Visibility } from '../visibility.js';
import {
  ACCESS_LEVEL_FEATURES,
  MERGE_METHODS,
  type MergeMethod,
  type Project,
  type ProjectOrder,
  type ProjectSettings,
  type RepositoryState,
} from './projects.js';

type NamespaceRow = Selectable<NamespacesTable>;
type ProjectRow = Selectable<ProjectsTable> & { [K in keyof NamespaceRow as `ns_${K}`]: NamespaceRow[K] } & {
  approvals_before_merge: number | null;
};

/** A project's recorded access levels, each feature `enabled` unless set. */
function accessLevels(json: string): ProjectSettings['accessLevels'] {
  let stored: Record<string, unknown> = {};
  try {
    stored = JSON.parse(json) as Record<string, unknown>;
  } catch {
    // A value that is not JSON reads as nothing set.
  }
  return Object.fromEntries(
    ACCESS_LEVEL_FEATURES.map((f) => [f, typeof stored[f] === 'string' ? stored[f] : 'enabled']),
  ) as ProjectSettings['accessLevels'];
}

function toProject(row: ProjectRow): Project {
  const namespace = toNamespace({
    id: row.ns_id,
    kind: row.ns_kind,
    name: row.ns_name,
    path: row.ns_path,
    full_path: row.ns_full_path,
    parent_id: row.ns_parent_id,
    owner_id: row.ns_owner_id,
    visibility: row.ns_visibility,
    description: row.ns_description,
    repository_storage: row.ns_repository_storage,
    repository_read_only: row.ns_repository_read_only,
    request_access_enabled: row.ns_request_access_enabled,
    created_at: row.ns_created_at,
    updated_at: row.ns_updated_at,
    avatar: row.ns_avatar,
  });
  return {
    id: row.id,
    namespace,
    name: row.name,
    path: row.path,
    fullPath: `${namespace.fullPath}/${row.path}`,
    description: row.description,
    visibility: row.visibility as Visibility,
    defaultBranch: row.default_branch,
    monitorEnabled: readBool(row.monitor_enabled),
    repositoryStorage: row.repository_storage,
    repositoryReadOnly: readBool(row.repository_read_only),
    creatorId: row.creator_id,
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
    lastActivityAt: readTimestamp(row.last_activity_at),
    settings: {
      mergeMethod: (MERGE_METHODS as readonly string[]).includes(row.merge_method)
        ? (row.merge_method as MergeMethod)
        : 'merge',
      requestAccessEnabled: readBool(row.request_access_enabled),
      removeSourceBranchAfterMerge: readBool(row.remove_source_branch_after_merge),
      onlyAllowMergeIfAllDiscussionsAreResolved: readBool(
        row.only_allow_merge_if_all_discussions_are_resolved,
      ),
      onlyAllowMergeIfPipelineSucceeds: readBool(row.only_allow_merge_if_pipeline_succeeds),
      accessLevels: accessLevels(row.feature_access_levels),
    },
    approvalsBeforeMerge: row.approvals_before_merge ?? 0,
    avatar: row.avatar ?? null,
    emptyRepo: row.empty_repo === null || row.empty_repo === undefined ? null : readBool(row.empty_repo),
    readmePath: row.readme_path ?? null,
  };
}

/** What a transfer came to: done, refused because the repository is being moved, or the path is taken there. */
export type TransferOutcome = 'transferred' | 'read_only' | 'taken' | 'gone';

const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 1, public: 2 };

export interface ProjectFilter {
  scope: ProjectScope | null;
  /** Only projects the caller is a member of (`membership=true`, `owned=true`). */
  memberOnly?: { projectIds: readonly number[]; namespaceIds: readonly number[] };
  search?: string;
  visibility?: Visibility;
  repositoryStorage?: string;
  namespaceIds?: readonly number[];
}

/** Projects, always read together with their namespace. */
export class ProjectsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private select() {
    return this.db
      .selectFrom('projects as p')
      .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
      .leftJoin('project_approval_settings as pas', 'pas.project_id', 'p.id')
      .selectAll('p')
      .select([
        'pas.approvals_before_merge',
        'n.id as ns_id',
        'n.kind as ns_kind',
        'n.name as ns_name',
        'n.path as ns_path',
        'n.full_path as ns_full_path',
        'n.parent_id as ns_parent_id',
        'n.owner_id as ns_owner_id',
        'n.visibility as ns_visibility',
        'n.description as ns_description',
        'n.repository_storage as ns_repository_storage',
        'n.repository_read_only as ns_repository_read_only',
        'n.request_access_enabled as ns_request_access_enabled',
        'n.created_at as ns_created_at',
        'n.updated_at as ns_updated_at',
        'n.avatar as ns_avatar',
      ]);
  }

  async insert(
    p: {
      namespaceId: number;
      name: string;
      path: string;
      description: string;
      visibility: Visibility;
      defaultBranch: string;
      monitorEnabled: boolean;
      repositoryStorage: string;
      creatorId: number;
    },
    now: string,
  ): Promise<number> {
    const row = await this.db
      .insertInto('projects')
      .values({
        namespace_id: p.namespaceId,
        name: p.name,
        path: p.path,
        description: p.description,
        visibility: p.visibility,
        default_branch: p.defaultBranch,
        monitor_enabled: writeBool(p.monitorEnabled),
        repository_storage: p.repositoryStorage,
        creator_id: p.creatorId,
        created_at: now,
        updated_at: now,
        last_activity_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async findById(id: number): Promise<Project | null> {
    const row = await this.select().where('p.id', '=', id).executeTakeFirst();
    return row ? toProject(row) : null;
  }

  /** The project an old full path redirects to (after a transfer or a rename), if any. */
  async findByRedirect(fullPath: string): Promise<Project | null> {
    const id = await redirectOf(this.db, 'Project', fullPath);
    return id === null ? null : this.findById(id);
  }

  /** A renamed project: its old full path redirects to it, and redirects at the new one end. */
  async recordRename(id: number, oldFullPath: string, newFullPath: string, now: string): Promise<void> {
    if (oldFullPath === newFullPath) return;
    await this.db.transaction().execute(async (trx) => {
      await claimRedirectPaths(trx, [newFullPath]);
      if (oldFullPath.toLowerCase() !== newFullPath.toLowerCase())
        await addRedirects(trx, [{ type: 'Project', id, path: oldFullPath }], now);
    });
  }

  /** A project now at `fullPath`: redirects of that path (and below it) end. */
  async claimPath(fullPath: string): Promise<void> {
    await claimRedirectPaths(this.db, [fullPath]);
  }

  /**
   * Moves a project to another namespace in one transaction: the project's row is locked first (a storage move
   * scheduled meanwhile waits, one already scheduled made it read-only and the transfer is refused), the name and
   * path are checked free in the target (no project of that name or path, no namespace at the new full path), the
   * visibility lowered to the target's when it is more open, the old full path recorded as a redirect and any
   * redirect at the new one removed. The repository stays where it is: its directory is named by the project's id.
   */
  async transfer(
    id: number,
    target: { namespaceId: number; fullPath: string; visibility: Visibility; isUserNamespace: boolean },
    now: string,
  ): Promise<TransferOutcome> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const locked = await trx
          .updateTable('projects')
          .set({ repository_read_only: sql<number>`repository_read_only` })
          .where('id', '=', id)
          .returning(['repository_read_only', 'namespace_id', 'name', 'path', 'visibility'])
          .executeTakeFirst();
        if (!locked) return 'gone';
        if (readBool(locked.repository_read_only)) return 'read_only';
        const old = await trx
          .selectFrom('namespaces')
          .select('full_path')
          .where('id', '=', locked.namespace_id)
          .executeTakeFirstOrThrow();
        const clash = await trx
          .selectFrom('projects')
          .select('id')
          .where('namespace_id', '=', target.namespaceId)
          .where('id', '!=', id)
          .where((eb) =>
            eb.or([
              eb(sql`lower(path)`, '=', locked.path.toLowerCase()),
              eb(sql`lower(name)`, '=', locked.name.toLowerCase()),
            ]),
          )
          .executeTakeFirst();
        const newPath = `${target.fullPath}/${locked.path}`;
        const group = await trx
          .selectFrom('namespaces')
          .select('id')
          .where(sql`lower(full_path)`, '=', newPath.toLowerCase())
          .executeTakeFirst();
        if (clash || group) return 'taken';
        const visibility = locked.visibility as Visibility;
        const lowered =
          !target.isUserNamespace && VISIBILITY_RANK[visibility] > VISIBILITY_RANK[target.visibility];
        await trx
          .updateTable('projects')
          .set({
            namespace_id: target.namespaceId,
            ...(lowered && { visibility: target.visibility }),
            updated_at: now,
            last_activity_at: now,
          })
          .where('id', '=', id)
          .execute();
        await claimRedirectPaths(trx, [newPath]);
        await addRedirects(trx, [{ type: 'Project', id, path: `${old.full_path}/${locked.path}` }], now);
        return 'transferred';
      });
    } catch (err) {
      // A project created at the same path meanwhile: the unique index decided.
      if (isUniqueViolation(err)) return 'taken';
      throw err;
    }
  }

  async findByPath(ns: Namespace, path: string): Promise<Project | null> {
    const row = await this.select()
      .where('p.namespace_id', '=', ns.id)
      .where(sql`lower(p.path)`, '=', path.toLowerCase())
      .executeTakeFirst();
    return row ? toProject(row) : null;
  }

  /** How many projects a namespace holds (a user's personal projects, for its limit). */
  async countInNamespace(namespaceId: number): Promise<number> {
    const r = await this.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('namespace_id', '=', namespaceId)
      .executeTakeFirst();
    return readCount(r?.n as string | number | undefined);
  }

  async nameTaken(namespaceId: number, name: string, exceptId?: number): Promise<boolean> {
    let q = this.db
      .selectFrom('projects')
      .select('id')
      .where('namespace_id', '=', namespaceId)
      .where(sql`lower(name)`, '=', name.toLowerCase());
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  private filtered(f: ProjectFilter) {
    let q = this.select();
    const scope = f.scope;
    if (scope) {
      q = q.where((eb) =>
        eb.or([
          sql<boolean>`1 = 0`,
          ...(scope.visibilities.length > 0 ? [eb('p.visibility', 'in', scope.visibilities)] : []),
          ...(scope.projectIds.length > 0 ? [eb('p.id', 'in', scope.projectIds)] : []),
          ...(scope.namespaceIds.length > 0 ? [eb('p.namespace_id', 'in', scope.namespaceIds)] : []),
        ]),
      );
    }
    const m = f.memberOnly;
    if (m) {
      q = q.where((eb) =>
        eb.or([
          sql<boolean>`1 = 0`,
          ...(m.projectIds.length > 0 ? [eb('p.id', 'in', m.projectIds)] : []),
          ...(m.namespaceIds.length > 0 ? [eb('p.namespace_id', 'in', m.namespaceIds)] : []),
        ]),
      );
    }
    if (f.search) {
      const term = f.search;
      q = q.where((eb) =>
        eb.or([containsText(sql.ref('p.name'), term), containsText(sql.ref('p.path'), term)]),
      );
    }
    if (f.visibility) q = q.where('p.visibility', '=', f.visibility);
    if (f.repositoryStorage) q = q.where('p.repository_storage', '=', f.repositoryStorage);
    if (f.namespaceIds)
      q = q.where('p.namespace_id', 'in', f.namespaceIds.length > 0 ? f.namespaceIds : [-1]);
    return q;
  }

  async list(
    f: ProjectFilter,
    order: ProjectOrder,
    sort: 'asc' | 'desc',
    page: PageRequest,
  ): Promise<Paged<Project>> {
    const base = this.filtered(f);
    const [rows, total] = await Promise.all([
      base
        .orderBy(`p.${order}`, sort)
        .orderBy('p.id', sort)
        .limit(page.perPage)
        .offset((page.page - 1) * page.perPage)
        .execute(),
      this.db
        .selectFrom(base.as('sub'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst(),
    ]);
    return {
      items: rows.map((r) => toProject(r)),
      total: readCount(total?.n as string | number | undefined),
    };
  }

  /** Keyset by id (GitLab offers keyset for projects only with `order_by=id`). */
  async listKeyset(f: ProjectFilter, k: KeysetRequest<'id'>): Promise<Project[]> {
    let q = this.filtered(f);
    if (k.after) q = q.where('p.id', k.sort === 'asc' ? '>' : '<', k.after.id);
    const rows = await q.orderBy('p.id', k.sort).limit(k.limit).execute();
    return rows.map((r) => toProject(r));
  }

  async update(
    id: number,
    patch: Partial<{
      name: string;
      path: string;
      description: string;
      visibility: Visibility;
      defaultBranch: string;
      monitorEnabled: boolean;
      settings: Partial<Omit<ProjectSettings, 'accessLevels'>> & {
        accessLevels?: Partial<ProjectSettings['accessLevels']>;
      };
    }>,
    now: string,
  ): Promise<void> {
    const s = patch.settings ?? {};
    await this.db
      .updateTable('projects')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.path !== undefined && { path: patch.path }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.visibility !== undefined && { visibility: patch.visibility }),
        ...(patch.defaultBranch !== undefined && { default_branch: patch.defaultBranch }),
        ...(patch.monitorEnabled !== undefined && { monitor_enabled: writeBool(patch.monitorEnabled) }),
        ...(s.mergeMethod !== undefined && { merge_method: s.mergeMethod }),
        ...(s.requestAccessEnabled !== undefined && {
          request_access_enabled: writeBool(s.requestAccessEnabled),
        }),
        ...(s.removeSourceBranchAfterMerge !== undefined && {
          remove_source_branch_after_merge: writeBool(s.removeSourceBranchAfterMerge),
        }),
        ...(s.onlyAllowMergeIfAllDiscussionsAreResolved !== undefined && {
          only_allow_merge_if_all_discussions_are_resolved: writeBool(
            s.onlyAllowMergeIfAllDiscussionsAreResolved,
          ),
        }),
        ...(s.onlyAllowMergeIfPipelineSucceeds !== undefined && {
          only_allow_merge_if_pipeline_succeeds: writeBool(s.onlyAllowMergeIfPipelineSucceeds),
        }),
        updated_at: now,
        last_activity_at: now,
      })
      .where('id', '=', id)
      .execute();
    if (s.accessLevels && Object.keys(s.accessLevels).length > 0)
      await this.mergeAccessLevels(id, s.accessLevels);
  }

  /**
   * Merges changed access levels into the stored JSON by compare-and-swap: a concurrent change to other features
   * (another request, another process) is kept, never overwritten by a stale read.
   */
  private async mergeAccessLevels(
    id: number,
    change: Partial<ProjectSettings['accessLevels']>,
  ): Promise<void> {
    for (;;) {
      const current = await this.db
        .selectFrom('projects')
        .select('feature_access_levels')
        .where('id', '=', id)
        .executeTakeFirst();
      if (!current) return;
      const next = JSON.stringify({ ...accessLevels(current.feature_access_levels), ...change });
      const r = await this.db
        .updateTable('projects')
        .set({ feature_access_levels: next })
        .where('id', '=', id)
        .where('feature_access_levels', '=', current.feature_access_levels)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) return;
    }
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('projects').where('id', '=', id).execute();
    await deleteRedirectsOf(this.db, 'Project', [id]);
  }

  async touch(id: number, now: string): Promise<void> {
    await this.db.updateTable('projects').set({ last_activity_at: now }).where('id', '=', id).execute();
  }

  async setRepositoryState(id: number, state: RepositoryState): Promise<void> {
    await this.db
      .updateTable('projects')
      .set({ empty_repo: writeBool(state.emptyRepo), readme_path: state.readmePath })
      .where('id', '=', id)
      .execute();
  }

  async setAvatar(id: number, avatar: string | null): Promise<void> {
    await this.db.updateTable('projects').set({ avatar }).where('id', '=', id).execute();
  }
}
