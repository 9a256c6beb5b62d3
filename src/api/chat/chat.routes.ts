import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { ChatChange } from '../../chat/chat.service.js';
import { MessageEntity } from '../common/common.entities.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import type { ApiApp, ApiVersion } from '../version.js';
import {
  ChatDeliveryEntity,
  ChatIntegrationBasicEntity,
  ChatIntegrationEntity,
  ChatIntegrationInput,
} from './chat.entities.js';
import { chatDelivery, chatIntegration, chatIntegrationBasic } from './chat.presenters.js';

const Params = Type.Object({ id: Type.String() });
const SlugParams = Type.Object({ id: Type.String(), slug: Type.String() });

const toChange = (b: Static<typeof ChatIntegrationInput> | undefined): ChatChange => ({
  active: b?.active,
  webhook: b?.webhook,
  token: b?.token,
  username: b?.username,
  channel: b?.channel,
  room: b?.room,
  thread: b?.thread,
  notifyOnlyDefaultBranch: b?.notify_only_default_branch,
  branchesToBeNotified: b?.branches_to_be_notified,
  events: {
    alert_events: b?.alert_events,
    incident_events: b?.incident_events,
    error_tracking_events: b?.error_tracking_events,
    page_events: b?.page_events,
  },
});

/**
 * Chat integrations as GitLab's project integrations (`/projects/:id/integrations`, Maintainer): `slack`,
 * `mattermost`, `microsoft-teams`, `discord`, `telegram`, `hangouts-chat`, `webex-teams`; svc adds each one's
 * delivery log and a test message.
 */
export function chatRoutes(app: ApiApp, ctx: Pick<AppContext, 'chat' | 'config'>, api: ApiVersion): void {
  // GitLab keeps the older `/projects/:id/services` paths in v4 only.
  for (const root of api.version === 4 ? ['integrations', 'services'] : ['integrations'])
    chatRoutesAt(app, ctx, root);
}

function chatRoutesAt(app: ApiApp, ctx: Pick<AppContext, 'chat' | 'config'>, root: string): void {
  const url = ctx.config.externalUrl;
  const tags = ['integrations'];
  const one = `/projects/:id/${root}/:slug`;

  app.get(
    `/projects/:id/${root}`,
    {
      schema: {
        tags,
        summary: "List the project's active chat integrations (Maintainer)",
        params: Params,
        response: { 200: Type.Array(ChatIntegrationBasicEntity) },
      },
    },
    async (req) => (await ctx.chat.list(req.actor.user, req.params.id)).map((i) => chatIntegrationBasic(i)),
  );
  app.get(
    one,
    {
      schema: {
        tags,
        summary: 'Get a chat integration and its settings, never its webhook or token (Maintainer)',
        params: SlugParams,
        response: { 200: ChatIntegrationEntity },
      },
    },
    async (req) => chatIntegration(await ctx.chat.get(req.actor.user, req.params.id, req.params.slug)),
  );
  app.put(
    one,
    {
      schema: {
        tags,
        summary: 'Set up or change a chat integration; re-enables a disabled one (Maintainer)',
        params: SlugParams,
        body: ChatIntegrationInput,
        response: { 200: ChatIntegrationEntity },
      },
    },
    async (req) =>
      chatIntegration(await ctx.chat.put(req.actor.user, req.params.id, req.params.slug, toChange(req.body))),
  );
  app.delete(
    one,
    { schema: { tags, summary: 'Remove a chat integration (Maintainer)', params: SlugParams } },
    async (req, reply) => {
      await ctx.chat.delete(req.actor.user, req.params.id, req.params.slug);
      return reply.status(204).send();
    },
  );
  app.post(
    `${one}/test`,
    {
      schema: {
        tags,
        summary: 'Send a test message now (svc; 422 with the reason when the service refuses it)',
        params: SlugParams,
        response: { 201: MessageEntity },
      },
    },
    async (req, reply) => {
      await ctx.chat.test(req.actor.user, req.params.id, req.params.slug);
      return reply.status(201).send({ message: '201 Created' });
    },
  );
  app.get(
    `${one}/deliveries`,
    {
      schema: {
        tags,
        summary: "A chat integration's recent messages, newest first (svc; Maintainer)",
        params: SlugParams,
        querystring: PageQuery,
        response: { 200: Type.Array(ChatDeliveryEntity) },
      },
    },
    async (req, reply) => {
      const page = pageRequest(req.query);
      const result = await ctx.chat.deliveries(req.actor.user, req.params.id, req.params.slug, page);
      setPageHeaders(reply, req, url, page, result.total);
      return result.items.map((d) => chatDelivery(d));
    },
  );
}
