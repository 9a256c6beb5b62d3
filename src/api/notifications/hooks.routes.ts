import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { HookChange } from '../../notifications/hooks.service.js';
import { type EmailStatus, HOOK_EVENT_FLAG_NAMES } from '../../notifications/notifications.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import type { ApiApp, ApiVersion } from '../version.js';
import type { ProjectHookInput } from './notifications.entities.js';

const Params = Type.Object({ id: Type.String() });
const HookParams = Type.Object({ id: Type.String(), hook_id: Type.Integer() });
const TestParams = Type.Object({ id: Type.String(), hook_id: Type.Integer(), trigger: Type.String() });
const RuleParams = Type.Object({ id: Type.String(), rule_id: Type.Integer() });
const EmailStatusInput = Type.Union(
  (['pending', 'sent', 'undeliverable', 'failed', 'skipped'] as const).map((s) => Type.Literal(s)),
);

/**
 * Project webhooks (`/projects/:id/hooks`, GitLab's shape), their recent deliveries, error notification rules
 * (`/projects/:id/error_tracking/notification_rules`) and the admin's view of notification e-mails.
 */
export function hookRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'hooks' | 'notifications' | 'config'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['hooks'];
  const toChange = (b: Static<typeof ProjectHookInput>): HookChange => ({
    url: b.url,
    name: b.name,
    description: b.description,
    token: b.token,
    enableSslVerification: b.enable_ssl_verification,
    alertEvents: b.alert_events,
    errorTrackingEvents: b.error_tracking_events,
    events: Object.fromEntries(HOOK_EVENT_FLAG_NAMES.flatMap((f) => (b[f] === undefined ? [] : [[f, b[f]]]))),
    confidentialNoteEvents: b.confidential_note_events,
    pushEventsBranchFilter: b.push_events_branch_filter,
    branchFilterStrategy: b.branch_filter_strategy,
  });

  app.get(
    '/projects/:id/hooks',
    {
      schema: {
        tags,
        summary: 'List project webhooks, oldest first (Maintainer)',
        params: Params,
        querystring: PageQuery,
        response: { 200: Type.Array(E.ProjectHookEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.hooks.list(req.actor.user, req.params.id, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((h) => P.projectHook(h));
    },
  );
  app.get(
    '/projects/:id/hooks/:hook_id',
    {
      schema: {
        tags,
        summary: 'Get a project webhook (Maintainer)',
        params: HookParams,
        response: { 200: E.ProjectHookEntity },
      },
    },
    async (req) => P.projectHook(await ctx.hooks.get(req.actor.user, req.params.id, req.params.hook_id)),
  );
  app.post(
    '/projects/:id/hooks',
    {
      schema: {
        tags,
        summary: 'Add a project webhook (Maintainer)',
        params: Params,
        body: E.ProjectHookInput,
        response: { 201: E.ProjectHookEntity },
      },
    },
    async (req, reply) => {
      const hook = await ctx.hooks.create(req.actor.user, req.params.id, toChange(req.body ?? {}));
      return reply.status(201).send(P.projectHook(hook));
    },
  );
  app.put(
    '/projects/:id/hooks/:hook_id',
    {
      schema: {
        tags,
        summary: 'Change a project webhook; re-enables a disabled one (Maintainer)',
        params: HookParams,
        body: E.ProjectHookInput,
        response: { 200: E.ProjectHookEntity },
      },
    },
    async (req) =>
      P.projectHook(
        await ctx.hooks.update(req.actor.user, req.params.id, req.params.hook_id, toChange(req.body ?? {})),
      ),
  );
  app.delete(
    '/projects/:id/hooks/:hook_id',
    { schema: { tags, summary: 'Delete a project webhook (Maintainer)', params: HookParams } },
    async (req, reply) => {
      await ctx.hooks.delete(req.actor.user, req.params.id, req.params.hook_id);
      return reply.status(204).send();
    },
  );
  app.post(
    '/projects/:id/hooks/:hook_id/test/:trigger',
    {
      schema: {
        tags,
        summary: 'Send a sample event to a webhook now (alert_events or error_tracking_events)',
        params: TestParams,
        response: { 201: E.MessageEntity },
      },
    },
    async (req, reply) => {
      await ctx.hooks.test(req.actor.user, req.params.id, req.params.hook_id, req.params.trigger);
      return reply.status(201).send({ message: '201 Created' });
    },
  );
  app.post(
    '/projects/:id/hooks/:hook_id/events/:hook_event_id/resend',
    {
      schema: {
        tags,
        summary: 'Send a recent delivery again, now (Maintainer)',
        params: Type.Object({ id: Type.String(), hook_id: Type.Integer(), hook_event_id: Type.Integer() }),
        response: { 201: Type.Object({ response_status: Type.Union([Type.Integer(), Type.Null()]) }) },
      },
    },
    async (req, reply) => {
      const { id, hook_id, hook_event_id } = req.params;
      const status = await ctx.hooks.resend(req.actor.user, id, hook_id, hook_event_id);
      return reply.status(201).send({ response_status: status });
    },
  );
  app.get(
    '/projects/:id/hooks/:hook_id/events',
    {
      schema: {
        tags,
        summary: "A webhook's recent deliveries, newest first (Maintainer)",
        params: HookParams,
        querystring: PageQuery,
        response: { 200: Type.Array(E.HookDeliveryEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.hooks.deliveries(req.actor.user, req.params.id, req.params.hook_id, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((d) => P.hookDelivery(d));
    },
  );

  const rtags = ['error_tracking'];
  const toRule = (b: {
    trigger?: string;
    threshold_count?: number | null;
    threshold_minutes?: number | null;
    recipient_ids?: number[];
    webhook?: boolean;
    action_interval_minutes?: number;
  }) => ({
    trigger: b.trigger,
    thresholdCount: b.threshold_count,
    thresholdMinutes: b.threshold_minutes,
    recipientIds: b.recipient_ids,
    webhook: b.webhook,
    actionIntervalMinutes: b.action_interval_minutes,
  });
  const rules = '/projects/:id/error_tracking/notification_rules';
  app.get(
    rules,
    {
      schema: {
        tags: rtags,
        summary: 'List error notification rules (Maintainer)',
        params: Params,
        response: { 200: Type.Array(E.ErrorNotificationRuleEntity) },
      },
    },
    async (req) =>
      (await ctx.hooks.rules(req.actor.user, req.params.id)).map((r) => P.errorNotificationRule(r)),
  );
  app.get(
    `${rules}/:rule_id`,
    {
      schema: {
        tags: rtags,
        summary: 'Get an error notification rule (Maintainer)',
        params: RuleParams,
        response: { 200: E.ErrorNotificationRuleEntity },
      },
    },
    async (req) =>
      P.errorNotificationRule(await ctx.hooks.rule(req.actor.user, req.params.id, req.params.rule_id)),
  );
  app.post(
    rules,
    {
      schema: {
        tags: rtags,
        summary: 'Add an error notification rule: new, regression or threshold (Maintainer)',
        params: Params,
        body: E.ErrorNotificationRuleInput,
        response: { 201: E.ErrorNotificationRuleEntity },
      },
    },
    async (req, reply) => {
      const rule = await ctx.hooks.createRule(req.actor.user, req.params.id, toRule(req.body ?? {}));
      return reply.status(201).send(P.errorNotificationRule(rule));
    },
  );
  app.put(
    `${rules}/:rule_id`,
    {
      schema: {
        tags: rtags,
        summary: 'Change an error notification rule (Maintainer)',
        params: RuleParams,
        body: E.ErrorNotificationRuleInput,
        response: { 200: E.ErrorNotificationRuleEntity },
      },
    },
    async (req) =>
      P.errorNotificationRule(
        await ctx.hooks.updateRule(req.actor.user, req.params.id, req.params.rule_id, toRule(req.body ?? {})),
      ),
  );
  app.delete(
    `${rules}/:rule_id`,
    {
      schema: { tags: rtags, summary: 'Delete an error notification rule (Maintainer)', params: RuleParams },
    },
    async (req, reply) => {
      await ctx.hooks.deleteRule(req.actor.user, req.params.id, req.params.rule_id);
      return reply.status(204).send();
    },
  );

  app.get(
    '/admin/notifications/emails',
    {
      schema: {
        tags: ['settings'],
        summary: 'Notification e-mails, newest first, with why any was not sent (admin)',
        querystring: Type.Object({
          ...PageQuery.properties,
          status: Type.Optional(EmailStatusInput),
          project_id: Type.Optional(Type.Integer()),
        }),
        response: { 200: Type.Array(E.NotificationEmailEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.notifications.emails(
        req.actor.user,
        { status: req.query.status as EmailStatus | undefined, projectId: req.query.project_id },
        page,
      );
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((e) => P.notificationEmail(e));
    },
  );
}
