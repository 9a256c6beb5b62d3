import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { SourceAccess } from '../../members/members.service.js';
import { requireUser } from '../auth.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const AccessLevelInput = Type.Union([10, 20, 30, 40, 50].map((n) => Type.Literal(n)));

/** `GET/POST /<kind>/:id/members` and `GET/PUT/DELETE /<kind>/:id/members/:user_id`, for groups and projects. */
export function memberRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'members'>,
  api: ApiVersion,
  kind: 'groups' | 'projects',
  access: (req: FastifyRequest, id: string) => Promise<SourceAccess>,
): void {
  const E = api.entities;
  const url = ctx.config.externalUrl;
  const tags = [`${kind.slice(0, -1)} members`];
  const Params = Type.Object({ id: Type.String() });
  const MemberParams = Type.Object({ id: Type.String(), user_id: Type.Integer() });

  // Direct members, and direct with inherited ones (`/all`: each user once, at the highest access level).
  for (const [suffix, summary, list] of [
    ['', 'List direct members', ctx.members.list.bind(ctx.members)],
    [
      '/all',
      'List direct and inherited members (each user once, at the highest access level)',
      ctx.members.listAll.bind(ctx.members),
    ],
  ] as const) {
    app.get(
      `/${kind}/:id/members${suffix}`,
      {
        schema: {
          tags,
          summary,
          params: Params,
          querystring: Type.Object({ ...PageQuery.properties, query: Type.Optional(Type.String()) }),
          response: { 200: Type.Array(E.MemberEntity) },
        },
      },
      async (req, reply) => {
        const a = await access(req, req.params.id);
        const page = pageRequest(req.query);
        const result = await list(a, page, req.query.query);
        setPageHeaders(reply, req, url, page, result.total);
        return result.items.map((m) => api.present.member(m, viewOf(req, url)));
      },
    );
  }

  app.get(
    `/${kind}/:id/members/all/:user_id`,
    {
      schema: {
        tags,
        summary: 'Get a direct or inherited member',
        params: MemberParams,
        response: { 200: E.MemberEntity },
      },
    },
    async (req) => {
      const a = await access(req, req.params.id);
      return api.present.member(await ctx.members.getAll(a, req.params.user_id), viewOf(req, url));
    },
  );

  app.get(
    `/${kind}/:id/members/:user_id`,
    { schema: { tags, summary: 'Get a member', params: MemberParams, response: { 200: E.MemberEntity } } },
    async (req) => {
      const a = await access(req, req.params.id);
      return api.present.member(await ctx.members.get(a, req.params.user_id), viewOf(req, url));
    },
  );

  app.post(
    `/${kind}/:id/members`,
    {
      schema: {
        tags,
        summary: 'Add a member',
        params: Params,
        body: Type.Object({
          user_id: Type.Integer(),
          access_level: AccessLevelInput,
          expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        }),
        response: { 201: E.MemberEntity },
      },
    },
    async (req, reply) => {
      const actor = requireUser(req);
      const a = await access(req, req.params.id);
      const m = await ctx.members.add(actor, a, {
        userId: req.body.user_id,
        accessLevel: req.body.access_level,
        expiresAt: req.body.expires_at ?? null,
      });
      return reply.status(201).send(api.present.member(m, viewOf(req, url)));
    },
  );

  app.put(
    `/${kind}/:id/members/:user_id`,
    {
      schema: {
        tags,
        summary: 'Change a member',
        params: MemberParams,
        body: Type.Object({
          access_level: AccessLevelInput,
          expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        }),
        response: { 200: E.MemberEntity },
      },
    },
    async (req) => {
      const actor = requireUser(req);
      const a = await access(req, req.params.id);
      const m = await ctx.members.update(actor, a, {
        userId: req.params.user_id,
        accessLevel: req.body.access_level,
        expiresAt: req.body.expires_at,
      });
      return api.present.member(m, viewOf(req, url));
    },
  );

  app.delete(
    `/${kind}/:id/members/:user_id`,
    { schema: { tags, summary: 'Remove a member', params: MemberParams } },
    async (req, reply) => {
      const actor = requireUser(req);
      const a = await access(req, req.params.id);
      await ctx.members.remove(actor, a, req.params.user_id);
      return reply.status(204).send();
    },
  );
}
