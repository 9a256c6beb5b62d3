import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { ERROR_STATUSES, type ErrorStatus, type TrackedError } from '../../error-tracking/error-tracking.js';
import { MAX_BULK, type TriageInput } from '../../error-tracking/error-tracking.service.js';
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
const ErrorId = Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[0-9]{1,18}$' })]);
/** A triage change: GitLab's `status`, and Sentry's statusDetails and assignee in snake_case. */
const TriageFields = {
  status: Type.Optional(StatusInput),
  /** Resolve in this release: events of older releases leave it resolved, of this one or newer reopen it. */
  resolved_in_release: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** Resolve in the next release: any release newer than the project's latest reopens it. */
  resolved_in_next_release: Type.Optional(Type.Boolean()),
  ignore_until: Type.Optional(Type.String({ maxLength: 64 })),
  /** Minutes (Sentry's ignoreDuration). */
  ignore_duration: Type.Optional(Type.Integer()),
  ignore_count: Type.Optional(Type.Integer()),
  ignore_user_count: Type.Optional(Type.Integer()),
  /** `me`, a username or a user id of a project member; null or "" unassigns. */
  assignee: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Integer(), Type.Null()])),
};
const TriageBody = Type.Object(TriageFields);
const triageInput = (b: Partial<Static<typeof TriageBody>>): TriageInput => ({
  status: b.status as ErrorStatus | undefined,
  resolvedInRelease: b.resolved_in_release,
  resolvedInNextRelease: b.resolved_in_next_release,
  ignoreUntil: b.ignore_until,
  ignoreDuration: b.ignore_duration,
  ignoreCount: b.ignore_count,
  ignoreUserCount: b.ignore_user_count,
  assignee: b.assignee,
});
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
  max_attachment_size: Type.Optional(Type.Integer()),
});
const EventParams = Type.Object({
  id: Type.String(),
  error_id: Type.String(),
  event_id: Type.String({ maxLength: 64 }),
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
  /** Errors as entities, their assignees read once for all of them. */
  const shownErrors = async (errors: readonly TrackedError[]) => {
    const assignees = await ctx.errorTracking.usersById(errors.map((e) => e.assigneeId));
    return errors.map((e) => P.trackedError(e, { externalUrl: url, assignees }));
  };
  const shownError = async (e: TrackedError) => (await shownErrors([e]))[0]!;

  const shown = (r: Awaited<ReturnType<typeof ctx.errorTracking.settings>>) =>
    P.errorTrackingSettings(r.settings, r.integratedAvailable, r.droppedItems);
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
        maxAttachmentSize: b.max_attachment_size,
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
          /** GitLab's search; takes Sentry's search syntax, as `query` does (docs/api.md). */
          search: Type.Optional(Type.String({ maxLength: 1000 })),
          /** Sentry's issue search: `is:unresolved assigned:me release:1.2 server:web-8 "text"`. */
          query: Type.Optional(Type.String({ maxLength: 1000 })),
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
        { status: req.query.status, search: req.query.search, query: req.query.query },
        req.query.sort ?? 'last_seen',
        page,
        req.query.cursor,
      );
      if (result.kind === 'offset') setPageHeaders(reply, req, url, page, result.total);
      else setCursorHeaders(reply, req, url, page, req.query.cursor !== undefined, result);
      return shownErrors(result.items);
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
      (async () => {
        const r = await ctx.suspectCommits.errorWithSuspects(
          req.actor.user,
          req.params.id,
          req.params.error_id,
        );
        const assignees = await ctx.errorTracking.usersById([r.error.assigneeId]);
        return P.errorDetail(r, { ...viewOf(req, url), assignees });
      })(),
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
    `${base}/feedback`,
    {
      schema: {
        tags,
        summary: "User feedback of the project's events, newest first (Reporter)",
        params: Params,
        response: { 200: Type.Array(E.ErrorFeedbackEntity) },
      },
    },
    async (req) =>
      (await ctx.errorTracking.feedbackOfProject(req.actor.user, req.params.id)).map(P.errorFeedback),
  );
  app.get(
    `${base}/errors/:error_id/feedback`,
    {
      schema: {
        tags,
        summary: 'User feedback about the events of an error, newest first (Reporter)',
        params: ErrorParams,
        response: { 200: Type.Array(E.ErrorFeedbackEntity) },
      },
    },
    async (req) =>
      (await ctx.errorTracking.feedbackOfError(req.actor.user, req.params.id, req.params.error_id)).map(
        P.errorFeedback,
      ),
  );
  app.get(
    `${base}/errors/:error_id/events/:event_id/attachments`,
    {
      schema: {
        tags,
        summary: 'Attachments of an event (Reporter)',
        params: EventParams,
        response: { 200: Type.Array(E.ErrorAttachmentEntity) },
      },
    },
    async (req) =>
      (
        await ctx.errorTracking.attachments(
          req.actor.user,
          req.params.id,
          req.params.error_id,
          req.params.event_id,
        )
      ).map(P.errorAttachment),
  );
  app.get(
    `${base}/errors/:error_id/events/:event_id/attachments/:attachment_id`,
    {
      schema: {
        tags,
        summary: "An attachment's bytes, as a download (Reporter)",
        params: Type.Object({
          id: Type.String(),
          error_id: Type.String(),
          event_id: Type.String({ maxLength: 64 }),
          attachment_id: Type.String(),
        }),
      },
    },
    async (req, reply) => {
      const { attachment, content } = await ctx.errorTracking.attachment(
        req.actor.user,
        req.params.id,
        req.params.error_id,
        req.params.event_id,
        req.params.attachment_id,
      );
      const name = attachment.filename;
      // Whatever an SDK sent is the sender's content: always a download, never rendered in svc's origin.
      return reply
        .header('Cache-Control', 'private, no-cache')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "sandbox; default-src 'none'")
        .header(
          'Content-Disposition',
          `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        )
        .type('application/octet-stream')
        .send(content);
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
        summary: 'Resolve (in a release), ignore (with a condition), reopen or assign an error (Developer)',
        params: ErrorParams,
        body: TriageBody,
        response: { 200: E.ErrorEntity },
      },
    },
    async (req) => {
      const [e] = await ctx.errorTracking.triage(
        req.actor.user,
        req.params.id,
        [req.params.error_id],
        triageInput(req.body ?? {}),
      );
      return shownError(e!);
    },
  );
  // Bulk triage, as Sentry's `PUT .../issues/?id=1&id=2`: the ids in the body (`ids`) or the query (`id`, `ids[]`).
  app.put(
    `${base}/errors`,
    {
      schema: {
        tags,
        summary: 'Resolve, ignore, reopen or assign several errors (Developer)',
        params: Params,
        querystring: Type.Object({
          id: Type.Optional(Type.Union([ErrorId, Type.Array(ErrorId, { maxItems: MAX_BULK })])),
          'ids[]': Type.Optional(Type.Union([ErrorId, Type.Array(ErrorId, { maxItems: MAX_BULK })])),
        }),
        body: Type.Object({
          ids: Type.Optional(Type.Array(ErrorId, { maxItems: MAX_BULK })),
          ...TriageFields,
        }),
        response: { 200: Type.Array(E.ErrorEntity) },
      },
    },
    async (req) => {
      const list = (v: unknown) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
      const ids = [...list(req.body?.ids), ...list(req.query.id), ...list(req.query['ids[]'])].map(String);
      if (ids.length === 0) throw paramError('ids is missing');
      return shownErrors(
        await ctx.errorTracking.triage(req.actor.user, req.params.id, ids, triageInput(req.body ?? {})),
      );
    },
  );
  app.get(
    `${base}/errors/:error_id/activities`,
    {
      schema: {
        tags,
        summary:
          "An error's activity, oldest first: status changes, assignments, merges, regressions, comments (Reporter)",
        params: ErrorParams,
        response: { 200: Type.Array(E.ErrorActivityEntity) },
      },
    },
    async (req) =>
      (await ctx.errorTracking.activity(req.actor.user, req.params.id, req.params.error_id)).map((a) =>
        P.errorActivity(a, { externalUrl: url }),
      ),
  );
  app.post(
    `${base}/errors/:error_id/notes`,
    {
      schema: {
        tags,
        summary: 'Comment on an error, in Markdown (Developer)',
        params: ErrorParams,
        body: Type.Object({ body: Type.String() }),
        response: { 201: E.ErrorActivityEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          P.errorActivity(
            await ctx.errorTracking.comment(
              req.actor.user,
              req.params.id,
              req.params.error_id,
              req.body.body,
            ),
            { externalUrl: url },
          ),
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
      return { error: await shownError(r.error), merged_error_ids: r.merged };
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
          await shownError(
            await ctx.errorTracking.unmerge(
              req.actor.user,
              req.params.id,
              req.params.error_id,
              req.body.hashes,
            ),
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
