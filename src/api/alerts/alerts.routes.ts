import { Type } from 'typebox';
import { ALERT_STATUSES, type AlertStatus } from '../../alerts/alerts.js';
import type { AppContext } from '../../app-context.js';
import type { StatsPeriod } from '../../time-buckets.js';
import type { User } from '../../users/users.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { SortInput, StatsQuery } from '../schemas.js';
import { silencedBy } from '../silences/silences.presenters.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';
import { AlertCountsEntity } from './alerts.entities.js';

const Params = Type.Object({ id: Type.String() });
const AlertParams = Type.Object({ id: Type.String(), alert_iid: Type.Integer() });
const StatusInput = Type.Union(ALERT_STATUSES.map((s) => Type.Literal(s)));

const AlertOrderBy = Type.Union(
  ['started_at', 'ended_at', 'created_at', 'updated_at', 'severity', 'status', 'event_count'].map((v) =>
    Type.Literal(v),
  ),
);

/** Alerts, alert notes and alert settings under /projects/:id/alert_management. */
export function alertRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'alerts' | 'config' | 'users' | 'silences'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const base = '/projects/:id/alert_management';
  const atags = ['alerts'];
  app.get(
    `${base}/alerts`,
    {
      schema: {
        tags: atags,
        summary: 'List alerts (Reporter)',
        params: Params,
        querystring: Type.Object({
          ...PageQuery.properties,
          // `open` means triggered or acknowledged (GitLab's "Open" tab).
          status: Type.Optional(Type.Union([StatusInput, Type.Literal('open')])),
          // No NUL: PostgreSQL cannot compare one, SQLite's search index cannot parse one (400 on both).
          search: Type.Optional(Type.String({ pattern: '^[^\\u0000]*$' })),
          order_by: Type.Optional(AlertOrderBy),
          sort: Type.Optional(SortInput),
          /** svc's: the alerts of one incident (GitLab's incident page lists them from GraphQL). */
          incident_iid: Type.Optional(Type.Integer()),
        }),
        response: { 200: Type.Array(E.AlertEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const order = req.query.order_by === 'event_count' ? 'events' : (req.query.order_by ?? 'started_at');
      const result = await ctx.alerts.list(
        req.actor.user,
        req.params.id,
        { status: req.query.status, search: req.query.search, incidentIid: req.query.incident_iid },
        order,
        req.query.sort ?? 'desc',
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      const first = result.items[0];
      const silenced = first ? await ctx.silences.silencedBy(first.projectId, result.items) : new Map();
      return result.items.map((a) => ({
        ...P.alert(a, viewOf(req, url)),
        silenced_by: silencedBy(silenced.get(a.id)),
      }));
    },
  );

  app.get(
    `${base}/alerts/counts`,
    {
      schema: {
        tags: atags,
        summary: 'Alert counts per status',
        params: Params,
        response: { 200: AlertCountsEntity },
      },
    },
    async (req) => ctx.alerts.counts(req.actor.user, req.params.id),
  );

  app.get(
    `${base}/alerts/:alert_iid`,
    {
      schema: { tags: atags, summary: 'Get an alert', params: AlertParams, response: { 200: E.AlertEntity } },
    },
    async (req) => {
      const alert = await ctx.alerts.get(req.actor.user, req.params.id, req.params.alert_iid);
      const silenced = await ctx.silences.silencedBy(alert.projectId, [alert]);
      return { ...P.alert(alert, viewOf(req, url)), silenced_by: silencedBy(silenced.get(alert.id)) };
    },
  );

  app.put(
    `${base}/alerts/:alert_iid`,
    {
      schema: {
        tags: atags,
        summary: 'Change the status or the assignee of an alert (Developer)',
        params: AlertParams,
        body: Type.Object({
          status: Type.Optional(StatusInput),
          /** GitLab's `alertSetAssignees(assigneeUsernames)`: the first username is kept; [] unassigns. */
          assignee_usernames: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
        }),
        response: { 200: E.AlertEntity },
      },
    },
    async (req) =>
      P.alert(
        await ctx.alerts.update(req.actor.user, req.params.id, req.params.alert_iid, {
          status: req.body.status as AlertStatus | undefined,
          assigneeUsernames: req.body.assignee_usernames,
        }),
        viewOf(req, url),
      ),
  );

  app.get(
    `${base}/alerts/:alert_iid/stats`,
    {
      schema: {
        tags: atags,
        summary: 'Occurrences of an alert over time (Reporter)',
        params: AlertParams,
        querystring: StatsQuery,
        response: { 200: E.OccurrencesEntity },
      },
    },
    async (req) =>
      P.occurrences(
        await ctx.alerts.occurrences(
          req.actor.user,
          req.params.id,
          req.params.alert_iid,
          (req.query.stats_period ?? '24h') as StatsPeriod,
        ),
      ),
  );

  app.post(
    `${base}/alerts/:alert_iid/create_issue`,
    {
      schema: {
        tags: atags,
        summary: 'Create an incident from an alert (Developer; GitLab createAlertIssue)',
        params: AlertParams,
        response: { 201: E.AlertEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          P.alert(
            await ctx.alerts.createIncident(req.actor.user, req.params.id, req.params.alert_iid),
            viewOf(req, url),
          ),
        ),
  );

  app.post(
    `${base}/alerts/:alert_iid/notes`,
    {
      schema: {
        tags: atags,
        summary: 'Comment on an alert (Reporter)',
        params: AlertParams,
        body: Type.Object({ body: Type.String() }),
        response: { 201: E.AlertNoteEntity },
      },
    },
    async (req, reply) => {
      const note = await ctx.alerts.comment(
        req.actor.user,
        req.params.id,
        req.params.alert_iid,
        req.body.body,
      );
      return reply.status(201).send(P.alertNote(note, req.actor.user));
    },
  );

  app.get(
    `${base}/alerts/:alert_iid/notes`,
    {
      schema: {
        tags: atags,
        summary: 'System notes of an alert',
        params: AlertParams,
        response: { 200: Type.Array(E.AlertNoteEntity) },
      },
    },
    async (req) => {
      const notes = await ctx.alerts.notes(req.actor.user, req.params.id, req.params.alert_iid);
      const authors = new Map<number, User | null>();
      for (const n of notes) {
        if (n.authorId !== null && !authors.has(n.authorId)) {
          authors.set(n.authorId, await ctx.users.get(n.authorId).catch(() => null));
        }
      }
      return notes.map((n) => P.alertNote(n, n.authorId === null ? null : (authors.get(n.authorId) ?? null)));
    },
  );

  app.get(
    `${base}/settings`,
    {
      schema: {
        tags: atags,
        summary: 'Alert settings (Maintainer)',
        params: Params,
        response: { 200: E.AlertSettingsEntity },
      },
    },
    async (req) => P.alertSettings(await ctx.alerts.settings(req.actor.user, req.params.id)),
  );
  app.put(
    `${base}/settings`,
    {
      schema: {
        tags: atags,
        summary: 'Change alert settings (Maintainer)',
        params: Params,
        body: Type.Partial(E.AlertSettingsEntity),
        response: { 200: E.AlertSettingsEntity },
      },
    },
    async (req) =>
      P.alertSettings(
        await ctx.alerts.updateSettings(req.actor.user, req.params.id, {
          createIncident: req.body?.create_incident,
          autoCloseIncident: req.body?.auto_close_incident,
          sendEmail: req.body?.send_email,
          autoResolveAlerts: req.body?.auto_resolve_alerts,
        }),
      ),
  );
}
