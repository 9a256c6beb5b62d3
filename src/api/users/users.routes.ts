import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { forbidden, paramError } from '../../errors.js';
import type { UserOrder } from '../../users/users.js';
import { requireUser, SESSION_COOKIE } from '../auth.js';
import { AVATAR_UPLOAD, AvatarText, avatarParam } from '../avatars/avatars.routes.js';
import {
  decodeCursor,
  encodeCursor,
  KeysetQuery,
  PageQuery,
  pageRequest,
  setKeysetHeaders,
  setPageHeaders,
} from '../pagination.js';
import { SortInput } from '../schemas.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const UserOrderBy = Type.Union(
  ['id', 'name', 'username', 'created_at', 'updated_at'].map((v) => Type.Literal(v)),
);
const Id = Type.Object({ id: Type.Integer() });

/** Users (GitLab's /user and /users); personal access tokens are in tokens.routes.ts. */
export function userRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'access' | 'config' | 'gates' | 'users'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['users'];

  app.get(
    '/user',
    {
      config: { readScope: 'read_user' },
      schema: { tags, summary: 'The signed-in user', response: { 200: E.UserDetail } },
    },
    async (req) => P.userDetail(requireUser(req), viewOf(req, url)),
  );

  app.get(
    '/users',
    {
      config: { readScope: 'read_user' },
      schema: {
        tags,
        summary: 'List users',
        querystring: Type.Object({
          ...PageQuery.properties,
          ...KeysetQuery.properties,
          username: Type.Optional(Type.String()),
          search: Type.Optional(Type.String()),
          active: Type.Optional(Type.Boolean()),
          blocked: Type.Optional(Type.Boolean()),
          admins: Type.Optional(Type.Boolean()),
          order_by: Type.Optional(UserOrderBy),
          sort: Type.Optional(SortInput),
        }),
        response: { 200: Type.Array(E.UserAny) },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const viewer = req.actor.user;
      const admin = ctx.access.isAdmin(viewer);
      // GitLab: anonymous callers must look a user up by username.
      if (!viewer && !q.username) throw forbidden('Not authorized to access /api/v4/users');
      const filter = {
        username: q.username,
        search: q.search,
        searchEmails: viewer?.admin === true,
        active: q.active,
        blocked: q.blocked,
        admins: admin ? q.admins : undefined,
      };
      // Non-admins may not choose the order (GitLab silently drops it).
      const orderBy = (admin ? q.order_by : undefined) ?? 'id';
      const sort = (admin ? q.sort : undefined) ?? (orderBy === 'id' ? 'desc' : 'asc');
      const view = viewOf(req, url);
      // Spec (17.0 removals): offset pagination on /users is deprecated in 16.5 and removed in 17.0. A request that
      // asks for no page beyond the first is not offset pagination: it gets the first keyset page (lookups by
      // username and search keep working in every client); only a later page is refused.
      const offsetRemoved = ctx.gates.isRemoved('users_offset_pagination');
      if (offsetRemoved && q.pagination !== 'keyset' && (q.page ?? 1) > 1) {
        throw paramError(
          'Offset pagination was removed from /users in 17.0: use keyset pagination (pagination=keyset, optional order_by and sort; follow the Link rel="next" header)',
          'method_not_allowed',
        );
      }
      if (q.pagination === 'keyset' || offsetRemoved) {
        const perPage = pageRequest(q).perPage;
        const after = q.cursor ? decodeCursor(q.cursor) : null;
        const rows = await ctx.users.listKeyset(filter, {
          orderBy: orderBy as UserOrder,
          sort,
          limit: perPage + 1,
          after,
        });
        const page = rows.slice(0, perPage);
        const last = page[page.length - 1];
        let next: Record<string, string> | null = null;
        if (rows.length > perPage && last) {
          const value = (await ctx.users.orderValue(last.id, orderBy as UserOrder)) ?? last.id;
          next = { pagination: 'keyset', order_by: orderBy, sort, cursor: encodeCursor(value, last.id) };
        }
        setKeysetHeaders(reply, req, url, perPage, next);
        return page.map((u) => P.user(u, view));
      }
      reply.deprecated('users_offset_pagination');
      const page = pageRequest(q);
      const result = await ctx.users.list(filter, orderBy as UserOrder, sort, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((u) => P.user(u, view));
    },
  );

  app.get(
    '/users/:id',
    {
      config: { readScope: 'read_user' },
      schema: { tags, summary: 'Get a user', params: Id, response: { 200: E.UserAny } },
    },
    async (req) => P.user(await ctx.users.get(req.params.id), viewOf(req, url)),
  );

  const UserBody = {
    name: Type.String(),
    username: Type.String(),
    email: Type.String(),
    password: Type.Optional(Type.String()),
    admin: Type.Optional(Type.Boolean()),
    bio: Type.Optional(Type.String()),
    skip_confirmation: Type.Optional(Type.Boolean()),
    projects_limit: Type.Optional(Type.Integer()),
    avatar: AvatarText,
  };

  app.post(
    '/users',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: {
        tags,
        summary: 'Create a user (admin)',
        body: Type.Object({ ...UserBody, private_profile: Type.Optional(api.entities.PrivateProfileInput) }),
        response: { 201: E.UserDetail },
      },
    },
    async (req, reply) => {
      const b = req.body;
      if (b.private_profile === null) reply.deprecated('users_private_profile_null');
      const user = await ctx.users.create(req.actor.user, {
        name: b.name,
        username: b.username,
        email: b.email,
        password: b.password,
        admin: b.admin,
        bio: b.bio,
        privateProfile: b.private_profile,
        projectsLimit: b.projects_limit,
        avatar: avatarParam(b) ?? undefined,
      });
      return reply.status(201).send(P.userDetail(user, viewOf(req, url)));
    },
  );

  app.put(
    '/users/:id',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: {
        tags,
        summary: 'Update a user (admin)',
        params: Id,
        body: Type.Partial(Type.Object({ ...UserBody, private_profile: api.entities.PrivateProfileInput })),
        response: { 200: E.UserDetail },
      },
    },
    async (req, reply) => {
      const b = req.body;
      if (b.private_profile === null) reply.deprecated('users_private_profile_null');
      // A password change ends the user's other sessions; the one making the change stays signed in.
      const currentSession = req.actor.via === 'session' ? (req.cookies[SESSION_COOKIE] ?? null) : null;
      const user = await ctx.users.update(
        req.actor.user,
        req.params.id,
        {
          name: b.name,
          username: b.username,
          email: b.email,
          password: b.password,
          admin: b.admin,
          bio: b.bio,
          privateProfile: b.private_profile,
          projectsLimit: b.projects_limit,
          avatar: avatarParam(b),
        },
        currentSession,
      );
      return P.userDetail(user, viewOf(req, url));
    },
  );

  app.put(
    '/user/avatar',
    {
      config: { uploads: AVATAR_UPLOAD },
      schema: { tags, summary: "Set the signed-in user's avatar", response: { 200: E.AvatarEntity } },
    },
    async (req) => {
      const file = avatarParam(req.body);
      // Grape's `requires :avatar` (a file): text, even empty, is no avatar here.
      if (!file) throw paramError(file === undefined ? 'avatar is missing' : 'avatar is invalid');
      const user = await ctx.users.setOwnAvatar(req.actor.user, file);
      return { avatar_url: P.userBasic(user, viewOf(req, url)).avatar_url };
    },
  );

  app.delete(
    '/users/:id',
    { schema: { tags, summary: 'Delete a user (admin)', params: Id } },
    async (req, reply) => {
      await ctx.users.delete(req.actor.user, req.params.id);
      return reply.status(204).send();
    },
  );

  for (const [verb, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    app.post(
      `/users/:id/${verb}`,
      {
        schema: { tags, summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a user (admin)`, params: Id },
      },
      async (req, reply) => {
        const changed = await ctx.users.setBlocked(req.actor.user, req.params.id, blocked);
        // GitLab answers 201 with `true` when the state changed; for a user already blocked its endpoint ends early
        // (`null`), and unblocking an active user fails its state transition (`false`).
        const body = changed ? 'true' : blocked ? 'null' : 'false';
        return reply.status(201).type('application/json').send(body);
      },
    );
  }

  for (const [verb, banned] of [
    ['ban', true],
    ['unban', false],
  ] as const) {
    app.post(
      `/users/:id/${verb}`,
      {
        schema: {
          tags,
          summary: `${verb === 'ban' ? 'Ban' : 'Unban'} a user (admin): a banned user cannot sign in or use tokens`,
          params: Id,
        },
      },
      async (req, reply) => {
        await ctx.users.setBanned(req.actor.user, req.params.id, banned);
        // GitLab answers 201 with the body `true`.
        return reply.status(201).type('application/json').send('true');
      },
    );
  }
}
