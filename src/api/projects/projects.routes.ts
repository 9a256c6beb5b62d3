import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { paramError } from '../../errors.js';
import {
  ACCESS_LEVEL_FEATURES,
  type FeatureAccess,
  MERGE_METHODS,
  type MergeMethod,
  type ProjectOrder,
} from '../../projects/projects.js';
import { AVATAR_UPLOAD, AvatarText, avatarParam } from '../avatars/avatars.routes.js';
import { memberRoutes } from '../members/members.routes.js';
import { KeysetQuery, PageQuery, pageRequest, setKeysetHeaders, setPageHeaders } from '../pagination.js';
import { SortInput, VisibilityInput } from '../schemas.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

/** GitLab's feature access values (`public` for pages only). */
const AccessInput = Type.Union([Type.Literal('disabled'), Type.Literal('private'), Type.Literal('enabled')]);
const MonitorInput = Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]);
const OrderBy = Type.Union(
  ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'].map((v) => Type.Literal(v)),
);
const Params = Type.Object({ id: Type.String() });

const monitor = (v: 'enabled' | 'disabled' | undefined) => (v === undefined ? undefined : v === 'enabled');

/** Projects (`/projects`) and project members. `:id` is a numeric id or a URL-encoded full path. */
export function projectRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'projectApprovalRules' | 'config' | 'members' | 'projects' | 'storageMoves'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['projects'];

  app.get(
    '/projects',
    {
      schema: {
        tags,
        summary: 'List projects visible to the caller',
        querystring: Type.Object({
          ...PageQuery.properties,
          ...KeysetQuery.properties,
          search: Type.Optional(Type.String()),
          visibility: Type.Optional(VisibilityInput),
          membership: Type.Optional(Type.Boolean()),
          owned: Type.Optional(Type.Boolean()),
          repository_storage: Type.Optional(Type.String()),
          order_by: Type.Optional(OrderBy),
          sort: Type.Optional(SortInput),
        }),
        response: { 200: Type.Array(E.ProjectEntity) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const input = {
        search: q.search,
        visibility: q.visibility,
        membership: q.membership,
        owned: q.owned,
        repositoryStorage: q.repository_storage,
      };
      const view = viewOf(req, url);
      const orderBy = (q.order_by ?? 'created_at') as ProjectOrder;
      const sort = q.sort ?? 'desc';
      if (q.pagination === 'keyset') {
        // GitLab offers keyset pagination for projects only when ordered by id.
        if (orderBy !== 'id')
          throw paramError(
            'Keyset pagination is not yet available for this type of request',
            'method_not_allowed',
          );
        const perPage = pageRequest(q).perPage;
        const after = q.id_after ?? q.id_before;
        const rows = await ctx.projects.listKeyset(req.actor.user, input, {
          orderBy: 'id',
          sort,
          limit: perPage + 1,
          after: after !== undefined ? { value: after, id: after } : null,
        });
        const page = rows.slice(0, perPage);
        const last = page[page.length - 1];
        const next =
          rows.length > perPage && last
            ? {
                pagination: 'keyset',
                order_by: 'id',
                sort,
                [sort === 'asc' ? 'id_after' : 'id_before']: String(last.id),
              }
            : null;
        setKeysetHeaders(reply, req, url, perPage, next);
        return page.map((p) => P.project(p, view));
      }
      const page = pageRequest(q);
      const result = await ctx.projects.list(req.actor.user, input, orderBy, sort, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((p) => P.project(p, view));
    },
  );

  app.get(
    '/projects/:id',
    { schema: { tags, summary: 'Get a project', params: Params, response: { 200: E.ProjectEntity } } },
    async (req) => {
      const { project, memberships } = await ctx.projects.findWithMemberships(req.actor.user, req.params.id);
      return P.projectWithAccess(project, viewOf(req, url), memberships);
    },
  );

  const Editable = {
    name: Type.String(),
    path: Type.String(),
    description: Type.String(),
    visibility: VisibilityInput,
    default_branch: Type.String(),
    monitor_access_level: MonitorInput,
  };

  const SettingsBody = {
    merge_method: Type.Union(MERGE_METHODS.map((m) => Type.Literal(m))),
    request_access_enabled: Type.Boolean(),
    remove_source_branch_after_merge: Type.Boolean(),
    only_allow_merge_if_all_discussions_are_resolved: Type.Boolean(),
    only_allow_merge_if_pipeline_succeeds: Type.Boolean(),
    approvals_before_merge: Type.Integer({ minimum: 0, maximum: 100 }),
    issues_access_level: AccessInput,
    repository_access_level: AccessInput,
    merge_requests_access_level: AccessInput,
    forking_access_level: AccessInput,
    wiki_access_level: AccessInput,
    builds_access_level: AccessInput,
    snippets_access_level: AccessInput,
    analytics_access_level: AccessInput,
    container_registry_access_level: AccessInput,
    security_and_compliance_access_level: AccessInput,
    releases_access_level: AccessInput,
    environments_access_level: AccessInput,
    feature_flags_access_level: AccessInput,
    infrastructure_access_level: AccessInput,
    requirements_access_level: AccessInput,
    pages_access_level: Type.Union([AccessInput, Type.Literal('public')]),
  };
  const settingsInput = (b: Record<string, unknown>) => ({
    mergeMethod: b.merge_method as MergeMethod | undefined,
    requestAccessEnabled: b.request_access_enabled as boolean | undefined,
    removeSourceBranchAfterMerge: b.remove_source_branch_after_merge as boolean | undefined,
    onlyAllowMergeIfAllDiscussionsAreResolved: b.only_allow_merge_if_all_discussions_are_resolved as
      | boolean
      | undefined,
    onlyAllowMergeIfPipelineSucceeds: b.only_allow_merge_if_pipeline_succeeds as boolean | undefined,
    accessLevels: Object.fromEntries(
      ACCESS_LEVEL_FEATURES.flatMap((f) => {
        const v = b[`${f}_access_level`];
        return typeof v === 'string' ? [[f, v as FeatureAccess]] : [];
      }),
    ),
  });

  const CreateBody = Type.Partial(
    Type.Object({
      ...Editable,
      namespace_id: Type.Integer(),
      repository_storage: Type.String(),
      initialize_with_readme: Type.Boolean(),
      avatar: AvatarText,
    }),
  );
  const createInput = (b: Static<typeof CreateBody> = {}) => ({
    initializeWithReadme: b.initialize_with_readme,
    avatar: avatarParam(b) ?? undefined,
    name: b.name,
    path: b.path,
    namespaceId: b.namespace_id,
    description: b.description,
    visibility: b.visibility,
    defaultBranch: b.default_branch,
    monitorEnabled: monitor(b.monitor_access_level),
    repositoryStorage: b.repository_storage,
  });
  app.post(
    '/projects',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: { tags, summary: 'Create a project', body: CreateBody, response: { 201: E.ProjectEntity } },
    },
    async (req, reply) => {
      const project = await ctx.projects.create(req.actor.user, createInput(req.body));
      return reply.status(201).send(P.project(project, viewOf(req, url)));
    },
  );
  app.post(
    '/projects/user/:user_id',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: {
        tags,
        summary: "Create a project in a user's namespace (admin)",
        params: Type.Object({ user_id: Type.Integer() }),
        body: CreateBody,
        response: { 201: E.ProjectEntity },
      },
    },
    async (req, reply) => {
      const project = await ctx.projects.createForUser(
        req.actor.user,
        req.params.user_id,
        createInput(req.body),
      );
      return reply.status(201).send(P.project(project, viewOf(req, url)));
    },
  );
  app.get(
    '/users/:user_id/projects',
    {
      schema: {
        tags,
        summary: "List a user's personal projects visible to the caller",
        params: Type.Object({ user_id: Type.Integer() }),
        querystring: PageQuery,
        response: { 200: Type.Array(E.ProjectEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.projects.listOfUser(req.actor.user, req.params.user_id, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((p) => P.project(p, viewOf(req, url)));
    },
  );

  app.put(
    '/projects/:id',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: {
        tags,
        summary: 'Update a project (Maintainer)',
        params: Params,
        body: Type.Partial(
          Type.Object({
            ...Editable,
            ...SettingsBody,
            repository_storage: Type.String(),
            avatar: AvatarText,
          }),
        ),
        response: { 200: E.ProjectEntity },
      },
    },
    async (req) => {
      const b = req.body ?? {};
      // Project-level approvals live with the approval settings (as `POST /projects/:id/approvals`).
      if (b.approvals_before_merge !== undefined)
        await ctx.projectApprovalRules.updateSettings(req.actor.user, req.params.id, {
          approvals_before_merge: b.approvals_before_merge,
        });
      // An admin changing repository_storage schedules a storage move (GitLab); refusals come before any change.
      if (b.repository_storage !== undefined) {
        const { project } = await ctx.projects.find(req.actor.user, req.params.id);
        if (b.repository_storage !== project.repositoryStorage) {
          await ctx.storageMoves.schedule(req.actor.user, 'project', project.id, b.repository_storage);
        }
      }
      const project = await ctx.projects.update(req.actor.user, req.params.id, {
        name: b.name,
        path: b.path,
        description: b.description,
        visibility: b.visibility,
        defaultBranch: b.default_branch,
        monitorEnabled: monitor(b.monitor_access_level),
        settings: settingsInput(b),
        avatar: avatarParam(b),
      });
      return P.project(project, viewOf(req, url));
    },
  );

  app.put(
    '/projects/:id/transfer',
    {
      schema: {
        tags,
        summary: 'Transfer a project to another namespace (Owner; the old path redirects)',
        params: Params,
        body: Type.Object({
          /** The id or full path of the new namespace (a user namespace or a group). */
          namespace: Type.Union([Type.Integer(), Type.String({ minLength: 1 })]),
        }),
        response: { 200: E.ProjectEntity },
      },
    },
    async (req) =>
      P.project(
        await ctx.projects.transfer(req.actor.user, req.params.id, String(req.body.namespace)),
        viewOf(req, url),
      ),
  );
  app.delete(
    '/projects/:id',
    {
      schema: {
        tags,
        summary: 'Delete a project (Owner)',
        params: Params,
        response: { 202: E.MessageEntity },
      },
    },
    async (req, reply) => {
      await ctx.projects.delete(req.actor.user, req.params.id);
      return reply.status(202).send({ message: '202 Accepted' });
    },
  );

  memberRoutes(app, ctx, api, 'projects', (req, id) => ctx.projects.memberAccess(req.actor.user, id));

  // Grape's Array[Integer]: `skip_users[]=1&skip_users[]=2` (the query string parser keeps the brackets in the
  // name), or `skip_users=1`.
  const IdList = Type.Optional(Type.Union([Type.Array(Type.Integer()), Type.Integer()]));
  const ids = (...v: (number | number[] | undefined)[]) => {
    const all = v.flatMap((x) => (x === undefined ? [] : [x].flat()));
    return all.length > 0 ? all : undefined;
  };

  app.get(
    '/projects/:id/users',
    {
      schema: {
        tags: ['projects'],
        summary: "The project's users: members, inherited members and its namespace's owner",
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          search: Type.Optional(Type.String()),
          skip_users: IdList,
          'skip_users[]': IdList,
        }),
        response: { 200: Type.Array(E.UserBasic) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.projects.users(
        req.actor.user,
        req.params.id,
        { search: req.query.search, skip: ids(req.query.skip_users, req.query['skip_users[]']) },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((u) => P.userBasic(u, viewOf(req, url)));
    },
  );

  app.get(
    '/projects/:id/groups',
    {
      schema: {
        tags: ['projects'],
        summary: "The project's ancestor groups the caller may see (svc has no sharing with groups)",
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          search: Type.Optional(Type.String()),
          skip_groups: IdList,
          'skip_groups[]': IdList,
          // Accepted for GitLab's clients; svc has no projects shared with groups, so they add nothing.
          with_shared: Type.Optional(Type.Boolean()),
          shared_visible_only: Type.Optional(Type.Boolean()),
          shared_min_access_level: Type.Optional(Type.Integer()),
        }),
        response: { 200: Type.Array(E.PublicGroupEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.projects.groups(
        req.actor.user,
        req.params.id,
        { search: req.query.search, skipGroups: ids(req.query.skip_groups, req.query['skip_groups[]']) },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((g) => P.publicGroup(g, viewOf(req, url)));
    },
  );

  app.get(
    '/projects/:id/storage',
    {
      schema: {
        tags: ['projects'],
        summary: "Where the project's repository is stored (admin)",
        params: Params,
        response: { 200: E.ProjectStorageEntity },
      },
    },
    async (req) => P.projectStorage(await ctx.projects.storage(req.actor.user, req.params.id)),
  );
}
