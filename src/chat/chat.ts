/**
 * Chat integrations (GitLab's project integrations for chat services): which services there are, their settings,
 * and each service's message, built as its incoming webhook (or Telegram's Bot API) documents it. Pure.
 */

export const CHAT_SLUGS = [
  'slack',
  'mattermost',
  'microsoft-teams',
  'discord',
  'telegram',
  'hangouts-chat',
  'webex-teams',
] as const;
export type ChatSlug = (typeof CHAT_SLUGS)[number];

export const isChatSlug = (s: string): s is ChatSlug => (CHAT_SLUGS as readonly string[]).includes(s);

/** svc's event flags of a chat integration (GitLab's Slack and Mattermost have `alert_events` and `incident_events`). */
export const CHAT_EVENT_FLAGS = [
  'alert_events',
  'incident_events',
  'error_tracking_events',
  'page_events',
] as const;
export type ChatEventFlag = (typeof CHAT_EVENT_FLAGS)[number];

/** GitLab's `branches_to_be_notified` values (kept for GitLab clients; svc sends no branch events). */
export const BRANCHES_TO_BE_NOTIFIED = ['all', 'default', 'protected', 'default_and_protected'] as const;

/** What a service takes besides its secret: GitLab's fields of the integration. */
export interface ChatServiceDef {
  readonly slug: ChatSlug;
  /** GitLab's title of the integration. */
  readonly title: string;
  /** The secret field: the incoming webhook URL, or Telegram's bot token. Never returned. */
  readonly secret: 'webhook' | 'token';
  /** Whether the service takes `username` and `channel` (GitLab: Slack and Mattermost). */
  readonly userAndChannel: boolean;
  /** Whether it takes `room` and `thread` (GitLab: Telegram). */
  readonly room: boolean;
}

export const CHAT_SERVICES: Readonly<Record<ChatSlug, ChatServiceDef>> = {
  slack: {
    slug: 'slack',
    title: 'Slack notifications',
    secret: 'webhook',
    userAndChannel: true,
    room: false,
  },
  mattermost: {
    slug: 'mattermost',
    title: 'Mattermost notifications',
    secret: 'webhook',
    userAndChannel: true,
    room: false,
  },
  'microsoft-teams': {
    slug: 'microsoft-teams',
    title: 'Microsoft Teams notifications',
    secret: 'webhook',
    userAndChannel: false,
    room: false,
  },
  discord: {
    slug: 'discord',
    title: 'Discord Notifications',
    secret: 'webhook',
    userAndChannel: false,
    room: false,
  },
  telegram: { slug: 'telegram', title: 'Telegram', secret: 'token', userAndChannel: false, room: true },
  'hangouts-chat': {
    slug: 'hangouts-chat',
    title: 'Google Chat',
    secret: 'webhook',
    userAndChannel: false,
    room: false,
  },
  'webex-teams': {
    slug: 'webex-teams',
    title: 'Webex Teams',
    secret: 'webhook',
    userAndChannel: false,
    room: false,
  },
};

/** A service's non-secret settings (those it does not take stay null). */
export interface ChatProperties {
  readonly username: string | null;
  readonly channel: string | null;
  readonly room: string | null;
  readonly thread: number | null;
  readonly notifyOnlyDefaultBranch: boolean;
  readonly branchesToBeNotified: string;
}

export interface ChatIntegration {
  readonly id: number;
  readonly projectId: number;
  readonly slug: ChatSlug;
  readonly active: boolean;
  readonly properties: ChatProperties;
  readonly events: Readonly<Record<ChatEventFlag, boolean>>;
  /** Failed attempts in a row (a success starts over). */
  readonly failures: number;
  /** Set after failing this often in a row: sends nothing until edited or tested. */
  readonly disabledReason: string | null;
  /** Resting after a few failures in a row: sends nothing before. */
  readonly disabledUntil: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type ChatDeliveryStatus = 'pending' | 'success' | 'failed';

export interface ChatDelivery {
  readonly id: number;
  readonly integrationId: number;
  /** `alert`, `incident`, `error`, `page` or `test`. */
  readonly event: string;
  /** What happened: `new`, `resolved`, `regression`, `paged`, `test`. */
  readonly action: string;
  readonly payload: unknown;
  readonly status: ChatDeliveryStatus;
  readonly responseStatus: number | null;
  readonly durationMs: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

/** What a chat message tells, whatever the service. */
export interface ChatMessage {
  readonly event: 'alert' | 'incident' | 'error' | 'page' | 'test';
  readonly action: string;
  /** What happened, e.g. `Alert triggered`, `New error`, `Paged`. */
  readonly headline: string;
  readonly title: string;
  readonly severity: string | null;
  readonly status: string;
  readonly project: { readonly name: string; readonly fullPath: string; readonly url: string };
  /** The alert's, incident's or error's page in svc's UI, and the link's label. */
  readonly url: string;
  readonly linkLabel: string;
  /** For pages: who is paged (usernames), and the policy. */
  readonly paged?: readonly string[];
  readonly policy?: string;
  readonly at: string;
}

/** The message's facts, in the order every service shows them. */
export function facts(m: ChatMessage): [string, string][] {
  return [
    ...(m.severity ? ([['Severity', m.severity]] as [string, string][]) : []),
    ['Status', m.status],
    ['Project', m.project.fullPath],
    ...(m.paged
      ? ([['Paged', m.paged.length > 0 ? m.paged.join(', ') : 'nobody on call']] as [string, string][])
      : []),
    ...(m.policy ? ([['Escalation policy', m.policy]] as [string, string][]) : []),
  ];
}

/** A colour per severity (red for critical and high, amber for medium, blue otherwise; green when resolved). */
export function colorOf(m: ChatMessage): string {
  if (m.action === 'resolved' || m.action === 'closed') return '#2da160';
  switch (m.severity) {
    case 'critical':
      return '#c21e56';
    case 'high':
      return '#e24329';
    case 'medium':
      return '#fc9403';
    default:
      return '#1f78d1';
  }
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** Slack's and Mattermost's control characters in text (their documented escaping). */
const slackEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Telegram's HTML parse mode: `<`, `>` and `&` as entities. */
const htmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Markdown's link and emphasis characters, escaped in titles (Discord, Webex). */
const mdEscape = (s: string) => s.replace(/([\\`*_~[\]()<>|#])/g, '\\$1');

const line = (m: ChatMessage) => `${m.headline} in ${m.project.fullPath}: ${m.title}`;

/**
 * The request body a service receives. Slack: `text` and Block Kit `blocks`; Mattermost: `text` and
 * `attachments` (Slack's attachment fields, which Mattermost documents); Microsoft Teams: a message with an
 * Adaptive Card attachment (what Workflows webhooks take); Discord: `content` and `embeds`; Telegram:
 * `sendMessage`'s `chat_id`, `text` and `parse_mode` HTML; Google Chat: `text` and `cardsV2`; Webex: `markdown`.
 */
export function chatBody(slug: ChatSlug, m: ChatMessage, p: ChatProperties): Record<string, unknown> {
  const f = facts(m);
  switch (slug) {
    case 'slack':
      return {
        text: slackEscape(line(m)),
        ...(p.username && { username: p.username }),
        ...(p.channel && { channel: p.channel }),
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: clip(`${m.headline}: ${m.title}`, 150) } },
          {
            type: 'section',
            text: { type: 'mrkdwn', text: `<${m.url}|${slackEscape(clip(m.title, 2000))}>` },
            fields: f.slice(0, 10).map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${slackEscape(v)}` })),
          },
          {
            type: 'actions',
            elements: [{ type: 'button', text: { type: 'plain_text', text: m.linkLabel }, url: m.url }],
          },
        ],
      };
    case 'mattermost':
      return {
        text: line(m),
        ...(p.username && { username: p.username }),
        ...(p.channel && { channel: p.channel }),
        attachments: [
          {
            fallback: line(m),
            color: colorOf(m),
            pretext: m.headline,
            title: m.title,
            title_link: m.url,
            fields: f.map(([k, v]) => ({ title: k, value: v, short: true })),
          },
        ],
      };
    case 'microsoft-teams':
      return {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                { type: 'TextBlock', text: m.headline, weight: 'Bolder', size: 'Medium', wrap: true },
                { type: 'TextBlock', text: m.title, wrap: true },
                { type: 'FactSet', facts: f.map(([k, v]) => ({ title: k, value: v })) },
              ],
              actions: [{ type: 'Action.OpenUrl', title: m.linkLabel, url: m.url }],
            },
          },
        ],
      };
    case 'discord':
      return {
        content: clip(line(m), 2000),
        embeds: [
          {
            title: clip(m.title, 256),
            url: m.url,
            description: clip(m.headline, 4096),
            color: Number.parseInt(colorOf(m).slice(1), 16),
            fields: f.slice(0, 25).map(([k, v]) => ({ name: k, value: clip(v, 1024), inline: true })),
            timestamp: m.at,
          },
        ],
      };
    case 'telegram':
      return {
        chat_id: p.room,
        ...(p.thread !== null && { message_thread_id: p.thread }),
        parse_mode: 'HTML',
        text: clip(
          [
            `<b>${htmlEscape(m.headline)}</b>: <a href="${htmlEscape(m.url)}">${htmlEscape(m.title)}</a>`,
            ...f.map(([k, v]) => `${htmlEscape(k)}: ${htmlEscape(v)}`),
          ].join('\n'),
          4096,
        ),
        link_preview_options: { is_disabled: true },
      };
    case 'hangouts-chat':
      return {
        text: line(m),
        cardsV2: [
          {
            cardId: `svc-${m.event}`,
            card: {
              header: { title: clip(m.headline, 200), subtitle: clip(m.title, 200) },
              sections: [
                {
                  widgets: [
                    ...f.map(([k, v]) => ({ decoratedText: { topLabel: k, text: v } })),
                    {
                      buttonList: {
                        buttons: [{ text: m.linkLabel, onClick: { openLink: { url: m.url } } }],
                      },
                    },
                  ],
                },
              ],
            },
          },
        ],
      };
    case 'webex-teams':
      return {
        markdown: [
          `**${mdEscape(m.headline)}**: [${mdEscape(m.title)}](${m.url})`,
          ...f.map(([k, v]) => `- ${k}: ${mdEscape(v)}`),
        ].join('\n'),
      };
  }
}
