import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { AppError, forbidden, paramError } from '../../errors.js';
import { type PersonalAccessToken, TOKEN_SCOPES } from '../../users/users.js';
import { requireAdmin, requireUser } from '../auth.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import type { ApiApp, ApiVersion } from '../version.js';

const Id = Type.Object({ id: Type.Integer() });
const Scopes = Type.Array(Type.Union(TOKEN_SCOPES.map((s) => Type.Literal(s))), { minItems: 1 });
/** What creating a token for a user takes (a personal or an impersonation token, by an admin). */
const TokenBody = Type.Object({
  name: Type.String(),
  scopes: Scopes,
  expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** Personal access tokens (GitLab's /personal_access_tokens and /users/:user_id/personal_access_tokens). */
export function tokenRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'access' | 'clock' | 'config' | 'users'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const ttags = ['personal_access_tokens'];
  app.post(
    '/users/:user_id/personal_access_tokens',
    {
      schema: {
        tags: ttags,
        summary: 'Create a personal access token for a user (admin)',
        params: Type.Object({ user_id: Type.Integer() }),
        body: TokenBody,
        response: { 201: E.Token },
      },
    },
    async (req, reply) => {
      const admin = requireAdmin(req);
      const t = await ctx.users.createToken(admin, req.params.user_id, {
        name: req.body.name,
        scopes: req.body.scopes,
        expiresAt: req.body.expires_at ?? null,
      });
      return reply.status(201).send(P.token(t, ctx.clock.now()));
    },
  );

  app.post(
    '/user/personal_access_tokens',
    {
      schema: {
        tags: ttags,
        summary: 'Create a personal access token for yourself (from a signed-in session)',
        body: Type.Object({
          name: Type.String(),
          description: Type.Optional(Type.String()),
          scopes: Scopes,
          expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        }),
        response: { 201: E.Token },
      },
    },
    async (req, reply) => {
      const user = requireUser(req);
      // GitLab 16.5+ has this endpoint but lets a token mint only `k8s_proxy` tokens (a leaked token must not
      // breed tokens that outlive it), and svc has no `k8s_proxy`: here a token is refused, a signed-in session
      // (the UI's, with its CSRF token, as GitLab's own settings page) may choose any scope.
      if (req.actor.via !== 'session') {
        throw forbidden(
          'Create your own tokens from a signed-in session (the web UI); with a token, an administrator uses POST /users/:user_id/personal_access_tokens',
        );
      }
      if ((req.body.scopes as readonly string[]).includes('sudo') && !ctx.access.isAdmin(user)) {
        throw paramError('scopes does not have a valid value: sudo is for administrators only');
      }
      const t = await ctx.users.createToken(user, user.id, {
        name: req.body.name,
        scopes: req.body.scopes,
        expiresAt: req.body.expires_at ?? null,
      });
      return reply.status(201).send(P.token(t, ctx.clock.now()));
    },
  );

  app.get(
    '/personal_access_tokens',
    {
      schema: {
        tags: ttags,
        summary: 'List personal access tokens (own; admins may filter by user_id)',
        querystring: Type.Object({ ...PageQuery.properties, user_id: Type.Optional(Type.Integer()) }),
        response: { 200: Type.Array(E.Token) },
      },
    },
    async (req, reply) => {
      const actor = requireUser(req);
      const page = pageRequest(req.query);
      const result = await ctx.users.listTokens(
        actor,
        req.query.user_id ?? (ctx.access.isAdmin(actor) ? null : actor.id),
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((t) => P.token(t, ctx.clock.now()));
    },
  );

  app.get(
    '/personal_access_tokens/self',
    {
      config: { readScope: 'read_user' },
      schema: { tags: ttags, summary: 'The token used for this request', response: { 200: E.Token } },
    },
    async (req) => P.token(tokenOfRequest(req), ctx.clock.now()),
  );

  app.get(
    '/personal_access_tokens/:id',
    {
      schema: { tags: ttags, summary: 'Get a personal access token', params: Id, response: { 200: E.Token } },
    },
    async (req) => P.token(await ctx.users.getToken(requireUser(req), req.params.id), ctx.clock.now()),
  );

  const RotateBody = Type.Object({ expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])) });
  app.post(
    '/personal_access_tokens/self/rotate',
    {
      schema: {
        tags: ttags,
        summary: 'Rotate the token used for this request: it is revoked, a new one returned once',
        body: Type.Optional(RotateBody),
        response: { 200: E.Token },
      },
    },
    async (req) => {
      requireUser(req);
      // GitLab's `not_allowed!` for a request not authenticated with a personal access token.
      if (!req.actor.token) throw new AppError('method_not_allowed', { shape: 'titled' });
      const created = await ctx.users.rotateToken(req.actor.token, req.body?.expires_at ?? null);
      return P.token(created, ctx.clock.now());
    },
  );

  app.post(
    '/personal_access_tokens/:id/rotate',
    {
      schema: {
        tags: ttags,
        summary: "Rotate a personal access token (one's own; admins any): revoked, a new one returned once",
        params: Id,
        body: Type.Optional(RotateBody),
        response: { 200: E.Token },
      },
    },
    async (req) => {
      const actor = requireUser(req);
      const token = await ctx.users.rotatableToken(actor, req.params.id);
      const created = await ctx.users.rotateToken(token, req.body?.expires_at ?? null);
      return P.token(created, ctx.clock.now());
    },
  );

  const itags = ['impersonation_tokens'];
  const UserParams = Type.Object({ user_id: Type.Integer() });
  const ImpersonationParams = Type.Object({
    user_id: Type.Integer(),
    impersonation_token_id: Type.Integer(),
  });
  app.get(
    '/users/:user_id/impersonation_tokens',
    {
      schema: {
        tags: itags,
        summary: "A user's impersonation tokens (admin)",
        params: UserParams,
        querystring: Type.Object({
          ...PageQuery.properties,
          state: Type.Optional(Type.Union(['all', 'active', 'inactive'].map((v) => Type.Literal(v)))),
        }),
        response: { 200: Type.Array(E.ImpersonationToken) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.users.listImpersonationTokens(
        req.actor.user,
        req.params.user_id,
        (req.query.state ?? 'all') as 'all' | 'active' | 'inactive',
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((t) => P.impersonationToken(t, ctx.clock.now()));
    },
  );

  app.post(
    '/users/:user_id/impersonation_tokens',
    {
      schema: {
        tags: itags,
        summary: 'Create an impersonation token (admin): it acts as the user; shown once',
        params: UserParams,
        body: TokenBody,
        response: { 201: E.ImpersonationToken },
      },
    },
    async (req, reply) => {
      const admin = requireAdmin(req);
      const t = await ctx.users.createToken(admin, req.params.user_id, {
        name: req.body.name,
        scopes: req.body.scopes,
        expiresAt: req.body.expires_at ?? null,
        impersonation: true,
      });
      return reply.status(201).send(P.impersonationToken(t, ctx.clock.now()));
    },
  );

  app.get(
    '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    {
      schema: {
        tags: itags,
        summary: 'Get an impersonation token (admin)',
        params: ImpersonationParams,
        response: { 200: E.ImpersonationToken },
      },
    },
    async (req) =>
      P.impersonationToken(
        await ctx.users.getImpersonationToken(
          req.actor.user,
          req.params.user_id,
          req.params.impersonation_token_id,
        ),
        ctx.clock.now(),
      ),
  );

  app.delete(
    '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    {
      schema: { tags: itags, summary: 'Revoke an impersonation token (admin)', params: ImpersonationParams },
    },
    async (req, reply) => {
      await ctx.users.revokeImpersonationToken(
        req.actor.user,
        req.params.user_id,
        req.params.impersonation_token_id,
      );
      return reply.status(204).send();
    },
  );

  app.delete(
    '/personal_access_tokens/self',
    { schema: { tags: ttags, summary: 'Revoke the token used for this request' } },
    async (req, reply) => {
      await ctx.users.revokeToken(requireUser(req), tokenOfRequest(req).id);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/personal_access_tokens/:id',
    { schema: { tags: ttags, summary: 'Revoke a personal access token', params: Id } },
    async (req, reply) => {
      await ctx.users.revokeToken(requireUser(req), req.params.id);
      return reply.status(204).send();
    },
  );
}

/** The token that authenticated this request; 400 for other kinds of authentication. */
function tokenOfRequest(req: FastifyRequest): PersonalAccessToken {
  if (!req.actor.token) throw paramError('This endpoint needs a personal access token');
  return req.actor.token;
}
