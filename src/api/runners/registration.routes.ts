import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { RUNNER_TYPES } from '../../runners/runners.js';
import type { ApiApp, ApiVersion } from '../version.js';

const TypeInput = Type.Union(RUNNER_TYPES.map((t) => Type.Literal(t)));
const TokenBody = Type.Object({ token: Type.String() });
const Created = Type.Object({ id: Type.Integer(), token: Type.String(), token_expires_at: Type.Null() });

/**
 * Runner creation and registration: creating a runner for an authentication token, the runner's own endpoints
 * (gitlab-runner: legacy registration, verify, delete, token reset) and the deprecated registration token resets.
 */
export function runnerRegistrationRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'runners'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const tags = ['runners'];

  app.post(
    '/user/runners',
    {
      config: { writeScope: 'create_runner' },
      schema: {
        tags,
        summary: 'Create a runner with an authentication token (create_runner scope)',
        body: Type.Object({
          runner_type: TypeInput,
          group_id: Type.Optional(Type.Integer()),
          project_id: Type.Optional(Type.Integer()),
          ...E.RunnerSettingsInput.properties,
        }),
        response: { 201: Created },
      },
    },
    async (req, reply) => {
      const { runner, token } = await ctx.runners.create(req.actor.user, req.actor.scopes, req.body);
      return reply.status(201).send({ id: runner.id, token, token_expires_at: null });
    },
  );

  // The runner's own endpoints (gitlab-runner).
  app.post(
    '/runners',
    {
      schema: {
        tags,
        summary: 'Register a runner with a registration token (410 from 17.0)',
        body: E.RunnerRegistrationInput,
        response: { 201: Created },
      },
    },
    async (req, reply) => {
      reply.deprecated('runner_registration_token_api');
      const b = req.body;
      const { runner, token } = await ctx.runners.registerLegacy(
        b.token,
        {
          ...b,
          active: 'active' in b ? b.active : undefined,
          maintenance_note: b.maintenance_note ?? b.maintainer_note,
        },
        req.ip,
      );
      return reply.status(201).send({ id: runner.id, token, token_expires_at: null });
    },
  );
  app.post(
    '/runners/verify',
    { schema: { tags, summary: 'Verify a runner token (records contact)', body: TokenBody } },
    async (req) => {
      await ctx.runners.verify(req.body.token, req.ip);
      return 200;
    },
  );
  app.delete(
    '/runners',
    { schema: { tags, summary: 'Delete the runner of a token', body: TokenBody } },
    async (req, reply) => {
      await ctx.runners.deleteByToken(req.body.token);
      return reply.status(204).send();
    },
  );
  app.post(
    '/runners/reset_authentication_token',
    {
      schema: {
        tags,
        summary: "Reset the runner's own token",
        body: TokenBody,
        response: { 201: Type.Object({ token: Type.String(), token_expires_at: Type.Null() }) },
      },
    },
    async (req, reply) => reply.status(201).send(await ctx.runners.resetAuthenticationToken(req.body.token)),
  );

  // Registration token resets (410 from 18.0).
  const Reset = Type.Object({ token: Type.String(), token_expires_at: Type.Null() });
  const reset = (
    path: string,
    scope: (
      req: FastifyRequest<{ Params: { id: string } }>,
    ) => Parameters<typeof ctx.runners.resetRegistrationToken>[1],
  ) =>
    app.post(
      path,
      {
        schema: {
          tags,
          summary: 'Reset a registration token (deprecated; 410 from 18.0)',
          response: { 201: Reset },
        },
      },
      async (req, reply) => {
        reply.deprecated('runner_reset_registration_token_api');
        return reply
          .status(201)
          .send(
            await ctx.runners.resetRegistrationToken(
              req.actor.user,
              scope(req as FastifyRequest<{ Params: { id: string } }>),
            ),
          );
      },
    );
  reset('/runners/reset_registration_token', () => ({ kind: 'instance' }));
  reset('/projects/:id/runners/reset_registration_token', (req) => ({ kind: 'project', id: req.params.id }));
  reset('/groups/:id/runners/reset_registration_token', (req) => ({ kind: 'group', id: req.params.id }));
}
