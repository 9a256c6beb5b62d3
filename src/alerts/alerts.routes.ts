import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { PageQuery, pageRequest, setPageHeaders } from '../api/pagination.js';
import { SortInput } from '../api/schemas.js';
import { type ApiApp, type ApiVersion, viewOf } from '../api/version.js';
import type { AppContext } from '../context.js';
import type { User } from '../users/users.js';
import { ALERT_STATUSES, type AlertStatus, INTEGRATION_TYPES } from './alerts.js';
import type { IntegrationInput, IntegrationView } from './integrations.service.js';

const Params = Type.Object({ id: Type.String() });
const IntegrationParams = Type.Object({ id: Type.String(), integration_id: Type.Integer() });
const AlertParams = Type.Object({ id: Type.String(), alert_iid: Type.Integer() });
const IntegrationBody = Type.Object({
  name: Type.Optional(Type.String()),
  type: Type.Optional(Type.Union(INTEGRATION_TYPES.map((t) => Type.Literal(t)))),
  active: Type.Optional(Type.Boolean()),
  api_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  payload_example: Type.Optional(Type.Unknown()),
  payload_attribute_mapping: Type.Optional(Type.Unknown()),
});
const StatusInput = Type.Union(ALERT_STATUSES.map((s) => Type.Literal(s)));
const AlertOrderBy = Type.Union(
  ['started_at', 'ended_at', 'created_at', 'updated_at', 'severity', 'status', 'event_count'].map((v) =>
    Type.Literal(v),
  ),
);

const toInput = (b: {
  name?: string;
  type?: IntegrationInput['type'];
  active?: boolean;
  api_url?: string | null;
  payload_example?: unknown;
  payload_attribute_mapping?: unknown;
}): IntegrationInput => ({
  name: b.name,
  type: b.type,
  active: b.active,
  apiUrl: b.api_url,
  payloadExample: b.payload_example,
  payloadAttributeMapping: b.payload_attribute_mapping,
});

/** Alert integrations management, alerts, alert notes and alert settings under /projects/:id/alert_management. */
export function alertRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'alertIntake' | 'alerts' | 'config' | 'integrations' | 'users'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['alert integrations'];
  const base = '/projects/:id/alert_management';

  // Spec: the direct link to the external on-call tool is deprecated from release 13.8.
  const deprecate = (reply: FastifyReply, i: IntegrationView) => {
    if (i.type === 'oncall_link') reply.deprecated('oncall_link');
  };
  // All management endpoints need Maintainer, so the key is always shown with the integration.
  const show = (project: Parameters<typeof P.integration>[0], i: IntegrationView, user: User | null) =>
    P.integration(project, i, { externalUrl: url, viewer: user }, true);

  app.get(
    `${base}/integrations`,
    {
      schema: {
        tags,
        summary: 'List alert integrations (Maintainer)',
        params: Params,
        response: { 200: Type.Array(E.IntegrationEntity) },
      },
    },
    async (req) => {
      const { project, items } = await ctx.integrations.list(req.actor.user, req.params.id);
      return items.map((i) => show(project, i, req.actor.user));
    },
  );

  app.get(
    `${base}/integrations/:integration_id`,
    {
      schema: {
        tags,
        summary: 'Get an alert integration',
        params: IntegrationParams,
        response: { 200: E.IntegrationEntity },
      },
    },
    async (req, reply) => {
      const { project, item } = await ctx.integrations.get(
        req.actor.user,
        req.params.id,
        req.params.integration_id,
      );
      deprecate(reply, item);
      return show(project, item, req.actor.user);
    },
  );

  app.post(
    `${base}/integrations`,
    {
      schema: {
        tags,
        summary: 'Create an alert integration',
        params: Params,
        body: IntegrationBody,
        response: { 201: E.IntegrationEntity },
      },
    },
    async (req, reply) => {
      const { project, item } = await ctx.integrations.create(
        req.actor.user,
        req.params.id,
        toInput(req.body),
      );
      deprecate(reply, item);
      return reply.status(201).send(show(project, item, req.actor.user));
    },
  );

  app.put(
    `${base}/integrations/:integration_id`,
    {
      schema: {
        tags,
        summary: 'Update an alert integration',
        params: IntegrationParams,
        body: IntegrationBody,
        response: { 200: E.IntegrationEntity },
      },
    },
    async (req, reply) => {
      const { project, item } = await ctx.integrations.update(
        req.actor.user,
        req.params.id,
        req.params.integration_id,
        toInput(req.body ?? {}),
      );
      deprecate(reply, item);
      return show(project, item, req.actor.user);
    },
  );

  app.delete(
    `${base}/integrations/:integration_id`,
    { schema: { tags, summary: 'Delete an alert integration', params: IntegrationParams } },
    async (req, reply) => {
      await ctx.integrations.delete(req.actor.user, req.params.id, req.params.integration_id);
      return reply.status(204).send();
    },
  );

  app.post(
    `${base}/integrations/:integration_id/reset_authorization_key`,
    {
      schema: {
        tags,
        summary: 'Generate a new authorization key',
        params: IntegrationParams,
        response: { 200: E.IntegrationEntity },
      },
    },
    async (req, reply) => {
      const { project, item } = await ctx.integrations.resetKey(
        req.actor.user,
        req.params.id,
        req.params.integration_id,
      );
      deprecate(reply, item);
      return show(project, item, req.actor.user);
    },
  );

  app.get(
    `${base}/integrations/:integration_id/payload_fields`,
    {
      schema: {
        tags,
        summary: 'Key paths of the sample payload',
        params: IntegrationParams,
        response: {
          200: Type.Array(
            Type.Object({
              path: Type.Array(Type.Union([Type.String(), Type.Integer()])),
              label: Type.String(),
              type: Type.String(),
              example: Type.Unknown(),
            }),
          ),
        },
      },
    },
    async (req) => ctx.integrations.payloadFields(req.actor.user, req.params.id, req.params.integration_id),
  );

  app.post(
    `${base}/integrations/:integration_id/test`,
    {
      schema: {
        tags,
        summary: 'Send a test alert (Developer)',
        params: IntegrationParams,
        response: { 200: E.IntakeEntity },
      },
    },
    async (req) => ctx.alertIntake.test(req.actor.user, req.params.id, req.params.integration_id, req.body),
  );

  // Alerts

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
          search: Type.Optional(Type.String()),
          order_by: Type.Optional(AlertOrderBy),
          sort: Type.Optional(SortInput),
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
        { status: req.query.status, search: req.query.search },
        order,
        req.query.sort ?? 'desc',
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((a) => P.alert(a, viewOf(req, url)));
    },
  );

  app.get(
    `${base}/alerts/counts`,
    {
      schema: {
        tags: atags,
        summary: 'Alert counts per status',
        params: Params,
        response: { 200: Type.Record(Type.String(), Type.Integer()) },
      },
    },
    async (req) => ctx.alerts.counts(req.actor.user, req.params.id),
  );

  app.get(
    `${base}/alerts/:alert_iid`,
    {
      schema: { tags: atags, summary: 'Get an alert', params: AlertParams, response: { 200: E.AlertEntity } },
    },
    async (req) =>
      P.alert(await ctx.alerts.get(req.actor.user, req.params.id, req.params.alert_iid), viewOf(req, url)),
  );

  app.put(
    `${base}/alerts/:alert_iid`,
    {
      schema: {
        tags: atags,
        summary: 'Change the status of an alert (Developer)',
        params: AlertParams,
        body: Type.Object({ status: StatusInput }),
        response: { 200: E.AlertEntity },
      },
    },
    async (req) =>
      P.alert(
        await ctx.alerts.setStatus(
          req.actor.user,
          req.params.id,
          req.params.alert_iid,
          req.body.status as AlertStatus,
        ),
        viewOf(req, url),
      ),
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

  const Settings = Type.Object({ create_incident: Type.Boolean(), auto_close_incident: Type.Boolean() });
  const present = (s: { createIncident: boolean; autoCloseIncident: boolean }) => ({
    create_incident: s.createIncident,
    auto_close_incident: s.autoCloseIncident,
  });
  app.get(
    `${base}/settings`,
    {
      schema: {
        tags: atags,
        summary: 'Alert settings (Maintainer)',
        params: Params,
        response: { 200: Settings },
      },
    },
    async (req) => present(await ctx.alerts.settings(req.actor.user, req.params.id)),
  );
  app.put(
    `${base}/settings`,
    {
      schema: {
        tags: atags,
        summary: 'Change alert settings (Maintainer)',
        params: Params,
        body: Type.Partial(Settings),
        response: { 200: Settings },
      },
    },
    async (req) =>
      present(
        await ctx.alerts.updateSettings(req.actor.user, req.params.id, {
          createIncident: req.body?.create_incident,
          autoCloseIncident: req.body?.auto_close_incident,
        }),
      ),
  );
}
