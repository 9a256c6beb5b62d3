import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { ERROR_STATUSES, type ErrorStatus } from '../../error-tracking/error-tracking.js';
import { paramError } from '../../errors.js';
import type { StatsPeriod } from '../../time-buckets.js';
import { PageQuery, pageRequest, setCursorHeaders, setPageHeaders } from '../pagination.js';
import { StatsQuery } from '../schemas.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';
import {
  ErrorCountsEntity,
  ErrorHashEntity,
  ErrorMergeEntity,
  ErrorSessionsEntity,
} from './error-tracking.entities.js';

const Params = Type.Object({ id: Type.String() });
const ErrorParams = Type.Object({ id: Type.String(), error_id: Type.String() });
const StatusInput = Type.Union(ERROR_STATUSES.map((s) => Type.Literal(s)));
const SettingsBody = Type.Object({
  active: Type.Optional(Type.Boolean()),
  integrated: Type.Optional(Type.Boolean()),
  api_host: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  token: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  project: Type.Optional(
    Type.Union([
      Type.Object({
        slug: Type.String(),
        name: Type.String(),
        organization_slug: Type.String(),
        organization_name: Type.String(),
      }),
      Type.Null(),
    ]),
  ),
});

/** Error tracking settings, client keys and errors under /projects/:id/error_tracking. */
export function errorTrackingRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'errorTracking' | 'suspectCommits'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['error tracking'];
  const base = '/projects/:id/error_tracking';

  const shown = (r: Awaited<ReturnType<typeof ctx.errorTracking.settings>>) =>
    P.errorTrackingSettings(r.settings, r.integratedAvailable);
  const save = async (
    id: string,
    b: Static<typeof SettingsBody>,
    user: Parameters<typeof ctx.errorTracking.updateSettings>[0],
  ) =>
    shown(
      await ctx.errorTracking.updateSettings(user, id, {
        active: b.active,
        integrated: b.integrated,
        apiHost: b.api_host,
        token: b.token,
        project: b.project
          ? {
              slug: b.project.slug,
              name: b.project.name,
              organizationSlug: b.project.organization_slug,
              organizationName: b.project.organization_name,
            }
          : b.project,
      }),
    );

  app.get(
    `${base}/settings`,
    {
      schema: {
        tags,
        summary: 'Error tracking settings (Maintainer)',
        params: Params,
        response: { 200: E.ErrorTrackingSettingsEntity },
      },
    },
    async (req) => shown(await ctx.errorTracking.settings(req.actor.user, req.params.id)),
  );
  // GitLab's PATCH turns saved settings on or off: `active` is required, and there must be settings to change.
  app.patch(
    `${base}/settings`,
    {
      schema: {
        tags,
        summary: 'Enable or disable the saved error tracking settings (Maintainer)',
        params: Params,
        body: Type.Object({
          active: Type.Optional(Type.Boolean()),
          integrated: Type.Optional(Type.Boolean()),
        }),
        response: { 200: E.ErrorTrackingSettingsEntity },
      },
    },
    async (req) => {
      const b = req.body ?? {};
      if (b.active === undefined) throw paramError('active is missing');
      return shown(
        await ctx.errorTracking.toggleSettings(req.actor.user, req.params.id, b.active, b.integrated),
      );
    },
  );
  // PUT saves the whole configuration (and creates it): the backend, and for an external Sentry its host,
  // token and project, as the settings page does.
  app.put(
    `${base}/settings`,
    {
      schema: {
        tags,
        summary: 'Change error tracking settings (Maintainer)',
        params: Params,
        body: SettingsBody,
        response: { 200: E.ErrorTrackingSettingsEntity },
      },
    },
    async (req) => save(req.params.id, req.body ?? {}, req.actor.user),
  );

  app.get(
    `${base}/client_keys`,
    {
      schema: {
        tags,
        summary: 'Client keys (Maintainer)',
        params: Params,
        querystring: PageQuery,
        response: { 200: Type.Array(E.ClientKeyEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const { project, keys } = await ctx.errorTracking.keys(req.actor.user, req.params.id);
      setPageHeaders(reply, req, url, page, keys.length);
      const from = (page.page - 1) * page.perPage;
      return keys.slice(from, from + page.perPage).map((k) => P.clientKey(project, k, url));
    },
  );
  app.post(
    `${base}/client_keys`,
    {
      schema: {
        tags,
        summary: 'Create a client key (DSN)',
        params: Params,
        response: { 201: E.ClientKeyEntity },
      },
    },
    async (req, reply) => {
      const { project, key } = await ctx.errorTracking.createKey(req.actor.user, req.params.id);
      return reply.status(201).send(P.clientKey(project, key, url));
    },
  );
  // GitLab's route takes the key id in the path; gitbeaker's ErrorTrackingClientKeys.remove sends
  // DELETE .../client_keys with `key_id` in the body (or query), so both are served.
  const deleteKey = async (req: FastifyRequest, projectId: string, keyId: number) => {
    const { project, key } = await ctx.errorTracking.deleteKey(req.actor.user, projectId, keyId);
    return P.clientKey(project, key, url);
  };
  app.delete(
    `${base}/client_keys/:key_id`,
    {
      schema: {
        tags,
        summary: 'Delete a client key',
        params: Type.Object({ id: Type.String(), key_id: Type.Integer() }),
        response: { 200: E.ClientKeyEntity },
      },
    },
    async (req) => deleteKey(req, req.params.id, req.params.key_id),
  );
  app.delete(
    `${base}/client_keys`,
    {
      schema: {
        tags,
        summary: 'Delete a client key given as key_id (the form gitbeaker uses)',
        params: Type.Object({ id: Type.String() }),
        body: Type.Object({ key_id: Type.Optional(Type.Integer()) }),
        response: { 200: E.ClientKeyEntity },
      },
    },
    async (req) => {
      if (req.body.key_id === undefined) throw paramError('key_id is missing');
      return deleteKey(req, req.params.id, req.body.key_id);
    },
  );

  app.get(
    `${base}/errors`,
    {
      schema: {
        tags,
        summary: 'List errors (Reporter)',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          /** An external Sentry's cursor, from the `Link` of a previous page. */
          cursor: Type.Optional(Type.String({ maxLength: 64 })),
          status: Type.Optional(StatusInput),
          search: Type.Optional(Type.String()),
          sort: Type.Optional(
            Type.Union([Type.Literal('last_seen'), Type.Literal('first_seen'), Type.Literal('frequency')]),
          ),
        }),
        response: { 200: Type.Array(E.ErrorEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.errorTracking.list(
        req.actor.user,
        req.params.id,
        { status: req.query.status, search: req.query.search },
        req.query.sort ?? 'last_seen',
        page,
        req.query.cursor,
      );
      if (result.kind === 'offset') setPageHeaders(reply, req, url, page, result.total);
      else setCursorHeaders(reply, req, url, page, req.query.cursor !== undefined, result);
      return result.items.map((e) => P.trackedError(e, { externalUrl: url }));
    },
  );
  app.get(
    `${base}/errors/counts`,
    {
      schema: {
        tags,
        summary: 'Error counts per status (Reporter)',
        params: Params,
        response: { 200: ErrorCountsEntity },
      },
    },
    async (req) => ctx.errorTracking.counts(req.actor.user, req.params.id),
  );
  app.get(
    `${base}/errors/stats`,
    {
      schema: {
        tags,
        summary: 'Events over time of several errors (Reporter; the list sparklines)',
        params: Params,
        querystring: Type.Object({
          ...StatsQuery.properties,
          /** Comma-separated error ids, at most 100 (one page of the list). */
          error_ids: Type.String({ pattern: '^[0-9]{1,18}(,[0-9]{1,18}){0,99}$' }),
        }),
        response: { 200: Type.Array(E.ErrorStatsEntity) },
      },
    },
    async (req) =>
      (
        await ctx.errorTracking.stats(
          req.actor.user,
          req.params.id,
          req.query.error_ids.split(','),
          (req.query.stats_period ?? '24h') as StatsPeriod,
        )
      ).map(P.errorStats),
  );
  app.get(
    `${base}/errors/:error_id/stats`,
    {
      schema: {
        tags,
        summary: 'Events of an error over time (Reporter)',
        params: ErrorParams,
        querystring: StatsQuery,
        response: { 200: E.ErrorStatsEntity },
      },
    },
    async (req) => {
      const [stats] = await ctx.errorTracking.stats(
        req.actor.user,
        req.params.id,
        [req.params.error_id],
        (req.query.stats_period ?? '24h') as StatsPeriod,
      );
      return P.errorStats(stats!);
    },
  );
  app.get(
    `${base}/errors/:error_id/events/:event_id`,
    {
      schema: {
        tags,
        summary: 'One event of an error, with its payload and the events before and after it (Reporter)',
        params: Type.Object({
          id: Type.String(),
          error_id: Type.String(),
          event_id: Type.String({ maxLength: 64 }),
        }),
        response: { 200: E.ErrorEventDetailEntity },
      },
    },
    async (req) =>
      P.errorEventDetail(
        await ctx.errorTracking.event(
          req.actor.user,
          req.params.id,
          req.params.error_id,
          req.params.event_id,
        ),
      ),
  );
  app.get(
    `${base}/errors/:error_id`,
    {
      schema: {
        tags,
        summary: 'Get an error, with its suspect commits for callers who may read the code (Reporter)',
        params: ErrorParams,
        response: { 200: E.ErrorDetailEntity },
      },
    },
    async (req) =>
      P.errorDetail(
        await ctx.suspectCommits.errorWithSuspects(req.actor.user, req.params.id, req.params.error_id),
        viewOf(req, url),
      ),
  );
  app.get(
    `${base}/errors/:error_id/events`,
    {
      schema: {
        tags,
        summary: 'Events of an error',
        params: ErrorParams,
        querystring: PageQuery,
        response: { 200: Type.Array(E.ErrorEventEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.errorTracking.events(req.actor.user, req.params.id, req.params.error_id, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map(P.errorEvent);
    },
  );
  app.get(
    `${base}/errors/:error_id/stack_trace`,
    {
      schema: {
        tags,
        summary: 'Stack trace of the latest event',
        params: ErrorParams,
        response: { 200: E.StackTraceEntity },
      },
    },
    async (req) =>
      P.stackTrace(await ctx.errorTracking.stackTrace(req.actor.user, req.params.id, req.params.error_id)),
  );
  app.put(
    `${base}/errors/:error_id`,
    {
      schema: {
        tags,
        summary: 'Resolve, ignore or reopen an error (Developer)',
        params: ErrorParams,
        body: Type.Object({ status: StatusInput }),
        response: { 200: E.ErrorEntity },
      },
    },
    async (req) =>
      P.trackedError(
        await ctx.errorTracking.setStatus(
          req.actor.user,
          req.params.id,
          req.params.error_id,
          req.body.status as ErrorStatus,
        ),
        { externalUrl: url },
      ),
  );
  // Merge and unmerge (Sentry's issue merge and hash unmerge, in GitLab's error tracking paths).
  app.put(
    `${base}/errors/merge`,
    {
      schema: {
        tags,
        summary: 'Merge errors into the one with the most events (Developer)',
        params: Params,
        body: Type.Object({
          error_ids: Type.Array(
            Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,18}$' })]),
            {
              minItems: 2,
              maxItems: 100,
            },
          ),
        }),
        response: { 200: ErrorMergeEntity },
      },
    },
    async (req) => {
      const r = await ctx.errorTracking.merge(req.actor.user, req.params.id, req.body.error_ids.map(String));
      return { error: P.trackedError(r.error, { externalUrl: url }), merged_error_ids: r.merged };
    },
  );
  app.get(
    `${base}/errors/:error_id/hashes`,
    {
      schema: {
        tags,
        summary: 'Grouping hashes of an error (Reporter)',
        params: ErrorParams,
        response: { 200: Type.Array(ErrorHashEntity) },
      },
    },
    async (req) =>
      (await ctx.errorTracking.hashes(req.actor.user, req.params.id, req.params.error_id)).hashes.map(
        (h) => ({
          hash: h.hash,
          grouping_version: h.groupingVersion,
          created_at: h.createdAt,
          events_count: h.eventsCount,
        }),
      ),
  );
  app.post(
    `${base}/errors/:error_id/unmerge`,
    {
      schema: {
        tags,
        summary: 'Move some grouping hashes of an error, and their events, into a new error (Developer)',
        params: ErrorParams,
        body: Type.Object({
          hashes: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 100 }),
        }),
        response: { 201: E.ErrorEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          P.trackedError(
            await ctx.errorTracking.unmerge(
              req.actor.user,
              req.params.id,
              req.params.error_id,
              req.body.hashes,
            ),
            { externalUrl: url },
          ),
        ),
  );
  app.get(
    `${base}/sessions`,
    {
      schema: {
        tags,
        summary: 'Session counts per release and environment',
        params: Params,
        response: {
          200: Type.Array(ErrorSessionsEntity),
        },
      },
    },
    async (req) => ctx.errorTracking.sessions(req.actor.user, req.params.id),
  );
}
