import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { INTEGRATION_TYPES } from '../../alerts/alerts.js';
import type { IntegrationInput, IntegrationView } from '../../alerts/integrations.service.js';
import type { AppContext } from '../../app-context.js';
import type { User } from '../../users/users.js';
import type { ApiApp, ApiVersion } from '../version.js';
import { PayloadFieldEntity } from './alerts.entities.js';

const Params = Type.Object({ id: Type.String() });
const IntegrationParams = Type.Object({ id: Type.String(), integration_id: Type.Integer() });
const IntegrationBody = Type.Object({
  name: Type.Optional(Type.String()),
  type: Type.Optional(Type.Union(INTEGRATION_TYPES.map((t) => Type.Literal(t)))),
  active: Type.Optional(Type.Boolean()),
  api_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  payload_example: Type.Optional(Type.Unknown()),
  payload_attribute_mapping: Type.Optional(Type.Unknown()),
  // Checked by the service (field-named 400s): interval_seconds, grace_seconds, alertname.
  heartbeat: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});
const toInput = (b: {
  name?: string;
  type?: IntegrationInput['type'];
  active?: boolean;
  api_url?: string | null;
  payload_example?: unknown;
  payload_attribute_mapping?: unknown;
  heartbeat?: Record<string, unknown> | null;
}): IntegrationInput => ({
  name: b.name,
  type: b.type,
  active: b.active,
  apiUrl: b.api_url,
  payloadExample: b.payload_example,
  payloadAttributeMapping: b.payload_attribute_mapping,
  heartbeat:
    b.heartbeat === undefined || b.heartbeat === null
      ? b.heartbeat
      : {
          intervalSeconds: b.heartbeat.interval_seconds,
          graceSeconds: b.heartbeat.grace_seconds,
          alertname: b.heartbeat.alertname,
        },
});

/** Alert integrations management under /projects/:id/alert_management/integrations (Maintainer). */
export function integrationRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'alertIntake' | 'config' | 'integrations'>,
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
          200: Type.Array(PayloadFieldEntity),
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
}
