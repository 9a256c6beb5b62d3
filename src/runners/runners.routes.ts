import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireUser } from '../api/auth.js';
import { PageQuery, pageRequest, setPageHeaders } from '../api/pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../api/version.js';
import type { AppContext } from '../context.js';
import { paramError } from '../errors.js';
import type { Namespace } from '../groups/namespaces.js';
import type { Project } from '../projects/projects.js';
import { RUNNER_TYPES, type Runner } from './runners.js';
import type { RunnerFilter, RunnerOptions } from './runners.service.js';

const TypeInput = Type.Union(RUNNER_TYPES.map((t) => Type.Literal(t)));
const Options = {
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  paused: Type.Optional(Type.Boolean()),
  locked: Type.Optional(Type.Boolean()),
  run_untagged: Type.Optional(Type.Boolean()),
  tag_list: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()])),
  access_level: Type.Optional(Type.Union([Type.Literal('not_protected'), Type.Literal('ref_protected')])),
  maximum_timeout: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  maintenance_note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};
const TokenBody = Type.Object({ token: Type.String() });
const Created = Type.Object({ id: Type.Integer(), token: Type.String(), token_expires_at: Type.Null() });

/** Runners: creation, legacy registration, the runner's endpoints, and management (v4 and v5 shapes). */
export function runnerRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'clock' | 'config' | 'gates' | 'groups' | 'projects' | 'runners'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['runners'];
  // Spec: v4 status filters include active and paused (deprecated); v5 only online, offline, not_connected.
  const statuses = api.removes('runner_status_values')
    ? ['online', 'offline', 'not_connected']
    : ['active', 'paused', 'online', 'offline', 'not_connected'];
  const view = () => ({ now: ctx.clock.now(), blankIpAddress: ctx.gates.inEffect('runner_ip_address') });
  const Filters = Type.Object({
    type: Type.Optional(TypeInput),
    status: Type.Optional(Type.String()),
    paused: Type.Optional(Type.Boolean()),
    tag_list: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()])),
  });
  const filters = (q: typeof Filters.static): RunnerFilter => ({
    type: q.type,
    status: q.status,
    paused: q.paused,
    tagList:
      q.tag_list === undefined
        ? undefined
        : (Array.isArray(q.tag_list) ? q.tag_list : q.tag_list.split(','))
            .map((t) => t.trim())
            .filter(Boolean),
  });
  /** The v4 `active` input is deprecated (a signal) and gone in v5 (refused). */
  const activeInput = (reply: FastifyReply, body: { active?: boolean } | undefined) => {
    if (body?.active === undefined) return undefined;
    if (api.removes('runner_active')) throw paramError('active was removed in API v5: use paused');
    reply.deprecated('runner_active');
    return body.active;
  };
  const details = async (req: FastifyRequest, r: Runner) => {
    const projects = (
      await Promise.all(
        r.projectIds.map((id) =>
          ctx.projects.find(req.actor.user, String(id)).then(
            (x) => x.project,
            () => null,
          ),
        ),
      )
    ).filter((p): p is Project => p !== null);
    const groups =
      r.groupId === null
        ? []
        : [
            await ctx.groups.find(req.actor.user, String(r.groupId)).then(
              (x) => x.group as Namespace,
              () => null,
            ),
          ].filter((g): g is Namespace => g !== null);
    return P.runnerDetails(r, view(), projects, groups, viewOf(req, url));
  };
  const list = (rows: Runner[]) => rows.map((r) => P.runner(r, view()));

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
          ...Options,
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
        body: Type.Object({
          token: Type.String(),
          info: Type.Optional(Type.Object({ name: Type.Optional(Type.String()) })),
          active: Type.Optional(Type.Boolean()),
          maintainer_note: Type.Optional(Type.String()),
          ...Options,
        }),
        response: { 201: Created },
      },
    },
    async (req, reply) => {
      reply.deprecated('runner_registration_token_api');
      const b = req.body;
      const { runner, token } = await ctx.runners.registerLegacy(
        b.token,
        { ...b, maintenance_note: b.maintenance_note ?? b.maintainer_note },
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

  // Management
  app.get(
    '/runners',
    {
      schema: {
        tags,
        summary: "The caller's runners",
        querystring: Filters,
        response: { 200: Type.Array(E.RunnerEntity) },
      },
    },
    async (req) => list(await ctx.runners.list(req.actor.user, false, filters(req.query), statuses)),
  );
  app.get(
    '/runners/all',
    {
      schema: {
        tags,
        summary: 'Every runner (admin)',
        querystring: Filters,
        response: { 200: Type.Array(E.RunnerEntity) },
      },
    },
    async (req) => list(await ctx.runners.list(req.actor.user, true, filters(req.query), statuses)),
  );
  app.get(
    '/runners/:id',
    {
      schema: {
        tags,
        summary: 'Runner details',
        params: Type.Object({ id: Type.Integer() }),
        response: { 200: E.RunnerDetailsEntity },
      },
    },
    async (req) => details(req, await ctx.runners.get(req.actor.user, req.params.id)),
  );
  // svc runs no CI pipelines, so no runner has run a job here: the list is empty, after the same access check.
  app.get(
    '/runners/:id/jobs',
    {
      schema: {
        tags,
        summary: "A runner's jobs (svc runs no CI jobs: always empty)",
        params: Type.Object({ id: Type.Integer() }),
        querystring: PageQuery,
        response: { 200: Type.Array(Type.Object({ id: Type.Integer() })) },
      },
    },
    async (req, reply) => {
      await ctx.runners.get(req.actor.user, req.params.id);
      setPageHeaders(reply, req, url, pageRequest(req.query), 0);
      return [];
    },
  );
  app.put(
    '/runners/:id',
    {
      schema: {
        tags,
        summary: 'Change a runner (v4 takes the deprecated active or paused; v5 paused only)',
        params: Type.Object({ id: Type.Integer() }),
        body: Type.Object({ active: Type.Optional(Type.Boolean()), ...Options }),
        response: { 200: E.RunnerDetailsEntity },
      },
    },
    async (req, reply) => {
      const active = activeInput(reply, req.body);
      return details(
        req,
        await ctx.runners.update(req.actor.user, req.params.id, {
          ...(req.body ?? {}),
          active,
        } as RunnerOptions & { active?: boolean }),
      );
    },
  );
  app.delete(
    '/runners/:id',
    { schema: { tags, summary: 'Delete a runner', params: Type.Object({ id: Type.Integer() }) } },
    async (req, reply) => {
      await ctx.runners.delete(req.actor.user, req.params.id);
      return reply.status(204).send();
    },
  );
  app.get(
    '/projects/:id/runners',
    {
      schema: {
        tags,
        summary: "A project's runners (Maintainer)",
        params: Type.Object({ id: Type.String() }),
        querystring: Filters,
        response: { 200: Type.Array(E.RunnerEntity) },
      },
    },
    async (req) =>
      list(await ctx.runners.listForProject(req.actor.user, req.params.id, filters(req.query), statuses)),
  );
  app.post(
    '/projects/:id/runners',
    {
      schema: {
        tags,
        summary: 'Assign a runner to a project',
        params: Type.Object({ id: Type.String() }),
        body: Type.Object({ runner_id: Type.Integer() }),
        response: { 201: E.RunnerEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(P.runner(await ctx.runners.assign(req.actor.user, req.params.id, req.body.runner_id), view())),
  );
  app.delete(
    '/projects/:id/runners/:runner_id',
    {
      schema: {
        tags,
        summary: 'Unassign a runner from a project',
        params: Type.Object({ id: Type.String(), runner_id: Type.Integer() }),
      },
    },
    async (req, reply) => {
      requireUser(req);
      await ctx.runners.unassign(req.actor.user, req.params.id, req.params.runner_id);
      return reply.status(204).send();
    },
  );
  app.get(
    '/groups/:id/runners',
    {
      schema: {
        tags,
        summary: "A group's runners",
        params: Type.Object({ id: Type.String() }),
        querystring: Filters,
        response: { 200: Type.Array(E.RunnerEntity) },
      },
    },
    async (req) =>
      list(await ctx.runners.listForGroup(req.actor.user, req.params.id, filters(req.query), statuses)),
  );
}
