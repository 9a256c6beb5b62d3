import { Type } from 'typebox';
import type { ResourceKind } from '../../access-tokens/access-tokens.service.js';
import type { AppContext } from '../../app-context.js';
import { RESOURCE_TOKEN_SCOPES } from '../../users/users.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import type { ApiApp, ApiVersion } from '../version.js';

/** GitLab's `Gitlab::Access.options_with_owner`: the levels a project or group access token may have. */
const TokenAccessLevel = Type.Union([10, 20, 30, 40, 50].map((n) => Type.Literal(n)));

/**
 * Project and group access tokens (GitLab's lib/api/resource_access_tokens.rb): `GET/POST /<kind>/:id/access_tokens`,
 * `GET/DELETE .../:token_id`, `POST .../:token_id/rotate`, for projects and groups alike.
 */
export function accessTokenRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'accessTokens' | 'clock' | 'config'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const now = () => ctx.clock.now();

  for (const kind of ['project', 'group'] as const satisfies readonly ResourceKind[]) {
    const base = `/${kind}s/:id/access_tokens`;
    const tags = [`${kind}_access_tokens`];
    const Params = Type.Object({ id: Type.String() });
    const TokenParams = Type.Object({ id: Type.String(), token_id: Type.Integer() });

    app.get(
      base,
      {
        schema: {
          tags,
          summary: `List the ${kind}'s access tokens (${kind === 'project' ? 'Maintainer' : 'Owner'})`,
          params: Params,
          querystring: PageQuery,
          response: { 200: Type.Array(E.ResourceAccessToken) },
        },
      },
      async (req, reply) => {
        const page = pageRequest(req.query);
        const result = await ctx.accessTokens.list(req.actor.user, kind, req.params.id, page);
        setPageHeaders(reply, req, url, page, result.total);
        return result.items.map((t) => P.resourceAccessToken(t, now()));
      },
    );

    app.get(
      `${base}/:token_id`,
      {
        schema: {
          tags,
          summary: `Get a ${kind} access token`,
          params: TokenParams,
          response: { 200: E.ResourceAccessToken },
        },
      },
      async (req) =>
        P.resourceAccessToken(
          await ctx.accessTokens.get(req.actor.user, kind, req.params.id, req.params.token_id),
          now(),
        ),
    );

    app.post(
      base,
      {
        schema: {
          tags,
          summary: `Create a ${kind} access token: a bot member at access_level, the token shown once`,
          params: Params,
          body: Type.Object({
            name: Type.String(),
            description: Type.Optional(Type.String()),
            scopes: Type.Array(Type.Union(RESOURCE_TOKEN_SCOPES.map((s) => Type.Literal(s))), {
              minItems: 1,
            }),
            expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
            access_level: Type.Optional(TokenAccessLevel),
          }),
          response: { 201: E.ResourceAccessToken },
        },
      },
      async (req, reply) => {
        const created = await ctx.accessTokens.create(req.actor.user, kind, req.params.id, {
          name: req.body.name,
          scopes: req.body.scopes,
          expiresAt: req.body.expires_at ?? null,
          // GitLab's default: Maintainer.
          accessLevel: req.body.access_level ?? 40,
        });
        return reply.status(201).send(P.resourceAccessToken(created, now()));
      },
    );

    app.post(
      `${base}/:token_id/rotate`,
      {
        schema: {
          tags,
          summary: `Rotate a ${kind} access token: revoked, a new one for the same bot returned once`,
          params: TokenParams,
          body: Type.Optional(
            Type.Object({ expires_at: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
          ),
          response: { 200: E.ResourceAccessToken },
        },
      },
      async (req) =>
        P.resourceAccessToken(
          await ctx.accessTokens.rotate(
            req.actor.user,
            kind,
            req.params.id,
            req.params.token_id,
            req.body?.expires_at ?? null,
          ),
          now(),
        ),
    );

    app.delete(
      `${base}/:token_id`,
      {
        schema: {
          tags,
          summary: `Revoke a ${kind} access token (its bot leaves the ${kind} and is blocked)`,
          params: TokenParams,
        },
      },
      async (req, reply) => {
        await ctx.accessTokens.revoke(req.actor.user, kind, req.params.id, req.params.token_id);
        return reply.status(204).send();
      },
    );
  }
}
