import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { Namespace } from '../../namespaces/namespaces.js';
import type { Project } from '../../projects/projects.js';
import { RUNNER_TYPES, type Runner } from '../../runners/runners.js';
import type { RunnerFilter, RunnerOptions } from '../../runners/runners.service.js';
import { requireUser } from '../auth.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const TypeInput = Type.Union(RUNNER_TYPES.map((t) => Type.Literal(t)));

/** Runner management: lists, details, changes, deletion and project assignment (v4 and v5 shapes). */
export function runnerRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'clock' | 'config' | 'gates' | 'groups' | 'projects' | 'runners'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['runners'];
  const view = () => ({ now: ctx.clock.now(), blankIpAddress: ctx.gates.inEffect('runner_ip_address') });
  const Filters = Type.Object({
    type: Type.Optional(TypeInput),
    // Spec: v4 status filters include active and paused (deprecated); v5 only online, offline, not_connected.
    status: Type.Optional(E.RunnerStatusInput),
    paused: Type.Optional(Type.Boolean()),
    tag_list: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()])),
  });
  const filters = (q: Static<typeof Filters>): RunnerFilter => ({
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
  /** The v4 `active` input is deprecated (a signal); v5's input schema refuses it. */
  const activeInput = (reply: FastifyReply, body: object | undefined) => {
    if (body === undefined || !('active' in body) || typeof body.active !== 'boolean') return undefined;
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
    async (req) => list(await ctx.runners.list(req.actor.user, false, filters(req.query))),
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
    async (req) => list(await ctx.runners.list(req.actor.user, true, filters(req.query))),
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
        body: E.RunnerUpdateInput,
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
    async (req) => list(await ctx.runners.listForProject(req.actor.user, req.params.id, filters(req.query))),
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
    async (req) => list(await ctx.runners.listForGroup(req.actor.user, req.params.id, filters(req.query))),
  );
}
