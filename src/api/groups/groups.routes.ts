import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../auth.js';
import { AVATAR_UPLOAD, AvatarText, avatarParam } from '../avatars/avatars.routes.js';
import { memberRoutes } from '../members/members.routes.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { VisibilityInput } from '../schemas.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Params = Type.Object({ id: Type.String() });

/** Groups (`/groups`), their projects, subgroups and members. */
export function groupRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'groups' | 'members' | 'projects'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['groups'];

  app.get(
    '/groups',
    {
      schema: {
        tags,
        summary: 'List groups visible to the caller',
        querystring: Type.Object({
          ...PageQuery.properties,
          search: Type.Optional(Type.String()),
          top_level_only: Type.Optional(Type.Boolean()),
          owned: Type.Optional(Type.Boolean()),
          min_access_level: Type.Optional(Type.Integer()),
          // Rails' `skip_groups[]=1&skip_groups[]=2`, or the key repeated without brackets.
          'skip_groups[]': Type.Optional(Type.Array(Type.Integer())),
          skip_groups: Type.Optional(Type.Array(Type.Integer())),
        }),
        response: { 200: Type.Array(E.GroupEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.groups.list(
        req.actor.user,
        {
          search: req.query.search,
          topLevelOnly: req.query.top_level_only,
          ownedOrMember: req.query.owned === true || req.query.min_access_level !== undefined,
          skipIds: [...(req.query['skip_groups[]'] ?? []), ...(req.query.skip_groups ?? [])],
        },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((g) => P.group(g, viewOf(req, url)));
    },
  );

  app.get(
    '/groups/:id',
    { schema: { tags, summary: 'Get a group', params: Params, response: { 200: E.GroupEntity } } },
    async (req) => P.group((await ctx.groups.find(req.actor.user, req.params.id)).group, viewOf(req, url)),
  );

  app.post(
    '/groups/:id/transfer',
    {
      schema: {
        tags,
        summary: 'Transfer a group under another group, or to the top level without group_id (Owner)',
        params: Params,
        body: Type.Optional(Type.Object({ group_id: Type.Optional(Type.Integer()) })),
        response: { 201: E.GroupEntity },
      },
    },
    async (req, reply) => {
      const group = await ctx.groups.transfer(req.actor.user, req.params.id, req.body?.group_id);
      return reply.status(201).send(P.group(group, viewOf(req, url)));
    },
  );

  app.get(
    '/groups/:id/subgroups',
    {
      schema: {
        tags,
        summary: 'List subgroups',
        params: Params,
        querystring: PageQuery,
        response: { 200: Type.Array(E.GroupEntity) },
      },
    },
    async (req, reply) => {
      const { group } = await ctx.groups.find(req.actor.user, req.params.id);
      const page = pageRequest(req.query);
      const result = await ctx.groups.list(req.actor.user, { parentId: group.id }, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((g) => P.group(g, viewOf(req, url)));
    },
  );

  app.get(
    '/groups/:id/descendant_groups',
    {
      schema: {
        tags,
        summary: 'List the groups below a group, at any depth, that the caller can see',
        params: Params,
        querystring: Type.Object({ ...PageQuery.properties, search: Type.Optional(Type.String()) }),
        response: { 200: Type.Array(E.GroupEntity) },
      },
    },
    async (req, reply) => {
      const { group } = await ctx.groups.find(req.actor.user, req.params.id);
      const page = pageRequest(req.query);
      const result = await ctx.groups.list(
        req.actor.user,
        { descendantsOf: group.fullPath, search: req.query.search },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((g) => P.group(g, viewOf(req, url)));
    },
  );

  app.get(
    '/groups/:id/projects',
    {
      schema: {
        tags,
        summary: "List a group's projects",
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          include_subgroups: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Array(E.ProjectEntity) },
      },
    },
    async (req, reply) => {
      const { group } = await ctx.groups.find(req.actor.user, req.params.id);
      const page = pageRequest(req.query);
      const result = await ctx.projects.listInGroup(
        req.actor.user,
        group,
        req.query.include_subgroups ?? false,
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((p) => P.project(p, viewOf(req, url)));
    },
  );

  app.post(
    '/groups',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: {
        tags,
        summary: 'Create a group',
        body: Type.Object({
          name: Type.String(),
          path: Type.String(),
          parent_id: Type.Optional(Type.Integer()),
          visibility: Type.Optional(VisibilityInput),
          description: Type.Optional(Type.String()),
          avatar: AvatarText,
        }),
        response: { 201: E.GroupEntity },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const group = await ctx.groups.create(req.actor.user, {
        name: b.name,
        path: b.path,
        parentId: b.parent_id,
        visibility: b.visibility,
        description: b.description,
        avatar: avatarParam(b) ?? undefined,
      });
      return reply.status(201).send(P.group(group, viewOf(req, url)));
    },
  );

  app.put(
    '/groups/:id',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: {
        tags,
        summary: 'Update a group (Owner)',
        params: Params,
        body: Type.Partial(
          Type.Object({
            name: Type.String(),
            path: Type.String(),
            description: Type.String(),
            visibility: VisibilityInput,
            request_access_enabled: Type.Boolean(),
            avatar: AvatarText,
          }),
        ),
        response: { 200: E.GroupEntity },
      },
    },
    async (req) => {
      // Named one by one: GitLab's parameters svc does not keep (`lfs_enabled`, python-gitlab's empty `file` part
      // beside an avatar...) are accepted and ignored, as Grape ignores undeclared ones, never passed on.
      const b = req.body ?? {};
      const group = await ctx.groups.update(req.actor.user, req.params.id, {
        name: b.name,
        path: b.path,
        description: b.description,
        visibility: b.visibility,
        requestAccessEnabled: b.request_access_enabled,
        avatar: avatarParam(req.body),
      });
      return P.group(group, viewOf(req, url));
    },
  );

  app.delete(
    '/groups/:id',
    {
      schema: { tags, summary: 'Delete a group (Owner)', params: Params, response: { 202: E.MessageEntity } },
    },
    async (req, reply) => {
      await ctx.groups.delete(req.actor.user, req.params.id);
      return reply.status(202).send({ message: '202 Accepted' });
    },
  );

  app.get(
    '/namespaces',
    {
      schema: {
        tags: ['namespaces'],
        summary: "The caller's namespaces (all for admins)",
        querystring: Type.Object({
          ...PageQuery.properties,
          search: Type.Optional(Type.String()),
          owned_only: Type.Optional(Type.Boolean()),
          top_level_only: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Array(E.NamespaceEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.groups.listNamespaces(
        requireUser(req),
        { search: req.query.search, ownedOnly: req.query.owned_only, topLevelOnly: req.query.top_level_only },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((n) => P.namespace(n, viewOf(req, url)));
    },
  );

  app.get(
    '/namespaces/:id/exists',
    {
      schema: {
        tags: ['namespaces'],
        summary:
          'Whether a namespace path is taken (at the top level, or in parent_id), with a free suggestion',
        params: Params,
        querystring: Type.Object({ parent_id: Type.Optional(Type.Integer()) }),
        response: { 200: E.NamespaceExistsEntity },
      },
    },
    async (req) => ctx.groups.namespaceExists(req.actor.user, req.params.id, req.query.parent_id ?? null),
  );

  app.get(
    '/namespaces/:id',
    {
      schema: {
        tags: ['namespaces'],
        summary: "One of the caller's namespaces, by id or URL-encoded full path",
        params: Params,
        response: { 200: E.NamespaceEntity },
      },
    },
    async (req) =>
      P.namespace(await ctx.groups.findNamespace(requireUser(req), req.params.id), viewOf(req, url)),
  );

  memberRoutes(app, ctx, api, 'groups', (req, id) => ctx.groups.memberAccess(req.actor.user, id));
}
