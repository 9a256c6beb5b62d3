/** Notifications: e-mails, project webhooks and error rules. Domain types and pure rules. */

/** What happened to an alert that people hear about. */
export type AlertEventType = 'new' | 'resolved';
/** What happened to an error that a rule or a hook reports. */
export type ErrorEventType = 'new' | 'regression' | 'threshold';
/** The `object_kind` of a webhook payload: svc's own events, and GitLab's. */
export type ObjectKind = 'alert' | 'incident' | 'error' | 'push' | 'tag_push' | 'merge_request' | 'note';

/**
 * An e-mail's delivery state: waiting for the worker, handed to the SMTP server, given up on (with a reason), or
 * skipped because the recipient could no longer read what it is about when it was due to go out.
 */
export type EmailStatus = 'pending' | 'sent' | 'undeliverable' | 'failed' | 'skipped';

/** An e-mail as recorded: one per event and recipient. */
export interface NotificationEmail {
  readonly id: number;
  readonly projectId: number;
  readonly userId: number | null;
  readonly recipient: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly status: EmailStatus;
  /** Why it was not sent (SMTP not configured, the server's answer); null once sent. */
  readonly reason: string | null;
  readonly attempts: number;
  readonly createdAt: string;
  readonly sentAt: string | null;
}

/**
 * GitLab's boolean event flags of a project hook (its `web_hooks` columns and `API::Entities::ProjectHook`), each
 * with GitLab's default. `confidential_note_events` is apart: GitLab's column has no default (null until set).
 */
export const HOOK_EVENT_FLAGS = {
  push_events: true,
  tag_push_events: false,
  merge_requests_events: false,
  issues_events: false,
  confidential_issues_events: false,
  note_events: false,
  job_events: false,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  releases_events: false,
  feature_flag_events: false,
  milestone_events: false,
  emoji_events: false,
  resource_access_token_events: false,
  resource_deploy_token_events: false,
  vulnerability_events: false,
} as const satisfies Record<string, boolean>;
export type HookEventFlag = keyof typeof HOOK_EVENT_FLAGS;
export const HOOK_EVENT_FLAG_NAMES = Object.keys(HOOK_EVENT_FLAGS) as HookEventFlag[];

/** How `push_events_branch_filter` is read (GitLab's `branch_filter_strategy`). */
export type BranchFilterStrategy = 'wildcard' | 'regex' | 'all_branches';
export const BRANCH_FILTER_STRATEGIES: readonly BranchFilterStrategy[] = [
  'wildcard',
  'regex',
  'all_branches',
];

/** A project webhook. The token is never shown again (GitLab). */
export interface ProjectHook {
  readonly id: number;
  readonly projectId: number;
  readonly url: string;
  readonly name: string;
  readonly description: string;
  readonly hasToken: boolean;
  readonly enableSslVerification: boolean;
  readonly alertEvents: boolean;
  readonly errorTrackingEvents: boolean;
  /** GitLab's event flags. */
  readonly events: Readonly<Record<HookEventFlag, boolean>>;
  /** Null until set (GitLab's column has no default). */
  readonly confidentialNoteEvents: boolean | null;
  /** Push events only for branches it matches (blank: every branch). */
  readonly pushEventsBranchFilter: string | null;
  readonly branchFilterStrategy: BranchFilterStrategy;
  /** Failed delivery attempts in a row (reset by a success). */
  readonly failures: number;
  /** Why the hook was disabled (it kept failing); null while it is active. */
  readonly disabledReason: string | null;
  readonly disabledAt: string | null;
  /** Until when the hook is temporarily disabled (failing, before it is disabled for good); null if it is not. */
  readonly disabledUntil: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type DeliveryStatus = 'pending' | 'success' | 'failed';

/** One event sent (or being sent) to one hook. */
export interface HookDelivery {
  readonly id: number;
  readonly hookId: number;
  readonly objectKind: string;
  readonly eventType: string;
  readonly payload: unknown;
  readonly status: DeliveryStatus;
  readonly responseStatus: number | null;
  readonly durationMs: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

export type ErrorRuleTrigger = 'new' | 'regression' | 'threshold';
export const ERROR_RULE_TRIGGERS: readonly ErrorRuleTrigger[] = ['new', 'regression', 'threshold'];

/** A project's rule: on a new error, a regression, or N events in M minutes, mail chosen members and/or call hooks. */
export interface ErrorRule {
  readonly id: number;
  readonly projectId: number;
  readonly trigger: ErrorRuleTrigger;
  readonly thresholdCount: number | null;
  readonly thresholdMinutes: number | null;
  readonly recipientIds: readonly number[];
  readonly webhook: boolean;
  /** At most one notification per this many minutes for one error (Sentry's action interval). */
  readonly actionIntervalMinutes: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** How the webhook payload shows an alert, an error and a project: the API's own entities (a port). */
export interface EventPresenter {
  alert(alert: unknown): unknown;
  error(error: unknown): unknown;
}

/** A webhook payload (docs/api.md: "Webhook payloads"): svc's alert and error events, and GitLab's events. */
export interface HookPayload {
  readonly object_kind: ObjectKind;
  readonly event_type?: string;
  readonly project: { id: number; name: string; path_with_namespace: string; web_url: string };
  readonly [extra: string]: unknown;
}

/**
 * Whether `ref` (a full ref name) passes a hook's push branch filter (GitLab's ActiveHookFilter): a blank filter
 * or `all_branches` passes every branch; `wildcard` matches the branch name exactly, or with `*` standing for any
 * run of characters; refs that are not branches (tags) are not filtered.
 */
export function branchFilterPasses(
  hook: Pick<ProjectHook, 'pushEventsBranchFilter' | 'branchFilterStrategy'>,
  ref: string,
): boolean {
  const filter = hook.pushEventsBranchFilter;
  if (!filter || hook.branchFilterStrategy === 'all_branches' || !ref.startsWith('refs/heads/')) return true;
  const branch = ref.slice('refs/heads/'.length);
  if (!filter.includes('*')) return branch === filter;
  const pattern = filter
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`, 's').test(branch);
}

/**
 * Whether a wildcard branch filter is valid (GitLab's WildcardBranchFilterValidator): with each `*` read as a
 * character, a valid branch name (git's ref name rules), at most 4000 characters.
 */
export function validWildcardFilter(filter: string): boolean {
  if (filter.length > 4000) return false;
  const name = filter.replaceAll('*', 'x');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what git refuses.
  if (/[\u0000-\u0020\u007f~^:?[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{') || name === '@') return false;
  if (name.startsWith('/') || name.startsWith('-') || name.endsWith('/') || name.endsWith('.')) return false;
  return !name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A one-line subject: control characters (a header injection) become spaces, long titles are cut. */
export function subjectLine(s: string): string {
  let flat = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    flat += c < 0x20 || c === 0x7f ? ' ' : ch;
  }
  flat = flat.replace(/ {2,}/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** An e-mail's text and HTML parts from a heading, facts and a link to the page. */
export function renderEmail(
  subject: string,
  heading: string,
  facts: readonly (readonly [string, string])[],
  link: { url: string; label: string },
  /** A link shown first (a page's acknowledge link). */
  first?: { url: string; label: string },
): { subject: string; text: string; html: string } {
  const text = [
    heading,
    '',
    ...facts.map(([k, v]) => `${k}: ${v}`),
    '',
    ...(first ? [`${first.label}: ${first.url}`, ''] : []),
    `${link.label}: ${link.url}`,
    '',
    '-- ',
    'You are receiving this e-mail because of your role in the project (svc notification settings).',
    '',
  ].join('\n');
  const rows = facts
    .map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  const html =
    `<!doctype html><html><body><p>${escapeHtml(heading)}</p><table>${rows}</table>` +
    (first ? `<p><a href="${escapeHtml(first.url)}">${escapeHtml(first.label)}</a></p>` : '') +
    `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p></body></html>`;
  return { subject: subjectLine(subject), text, html };
}
