import { randomUUID } from 'node:crypto';

/**
 * What SDKs and browsers send besides error events, pure: user feedback in its three shapes, attachments' limits,
 * the item types counted rather than kept, and security reports (CSP, Expect-CT, Expect-Staple, HPKP) turned
 * into events the way Sentry's Relay does.
 */

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

/** Where a feedback came from: a `feedback` item (new SDKs), a `user_report` item, the error page form. */
export type FeedbackSource = 'feedback' | 'user_report' | 'error_page';

export interface FeedbackInput {
  /** The event the feedback is about (32 lowercase hex digits), when it names one. */
  readonly eventId: string | null;
  readonly source: FeedbackSource;
  readonly name: string;
  readonly email: string;
  readonly comments: string;
  readonly url: string | null;
}

export interface Feedback extends FeedbackInput {
  readonly id: number;
  readonly createdAt: string;
}

export interface Attachment {
  readonly id: number;
  readonly eventId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly attachmentType: string;
  readonly size: number;
  readonly createdAt: string;
}

/** The feedback or report cannot be used: 400 with this message. */
export class ReportError extends Error {}

/** Sentry's field limits (its UserReport model): name and email 128 characters, comments 4096. */
const NAME_MAX = 128;
const EMAIL_MAX = 128;
const COMMENTS_MAX = 4096;
const URL_MAX = 2048;

/** An event id as stored (32 lowercase hex digits), or null when it is none. */
export function eventIdOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const id = v.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(id) ? id : null;
}

function feedback(
  source: FeedbackSource,
  f: { eventId: unknown; name: unknown; email: unknown; comments: unknown; url?: unknown },
): FeedbackInput {
  const comments = str(f.comments);
  if (!comments) throw new ReportError('the feedback has no comments');
  return {
    eventId: eventIdOf(f.eventId),
    source,
    name: clip(str(f.name) ?? '', NAME_MAX),
    email: clip(str(f.email) ?? '', EMAIL_MAX),
    comments: clip(comments, COMMENTS_MAX),
    url: str(f.url) ? clip(f.url as string, URL_MAX) : null,
  };
}

/**
 * A `feedback` item (the new SDKs' `captureFeedback`): an event whose `contexts.feedback` holds `message`, `name`,
 * `contact_email`, `url` and `associated_event_id` (the error it is about, when the SDK knew one).
 */
export function feedbackFromItem(payload: unknown): FeedbackInput {
  if (!isObject(payload) || !isObject(payload.contexts) || !isObject(payload.contexts.feedback))
    throw new ReportError('a feedback item needs contexts.feedback');
  const f = payload.contexts.feedback;
  return feedback('feedback', {
    eventId: f.associated_event_id,
    name: f.name,
    email: f.contact_email,
    comments: f.message,
    url: f.url,
  });
}

/** A `user_report` item (older SDKs, `capture_user_feedback`): `event_id`, `name`, `email`, `comments`. */
export function feedbackFromUserReport(payload: unknown): FeedbackInput {
  if (!isObject(payload)) throw new ReportError('a user report must be a JSON object');
  const r = feedback('user_report', {
    eventId: payload.event_id,
    name: payload.name,
    email: payload.email,
    comments: payload.comments,
  });
  if (!r.eventId) throw new ReportError('a user report needs the event_id of its event');
  return r;
}

/** The error page form (`showReportDialog`): `name`, `email`, `comments`; the event id comes in the URL. */
export function feedbackFromForm(eventId: unknown, form: Readonly<Record<string, unknown>>): FeedbackInput {
  const id = eventIdOf(eventId);
  if (!id) throw new ReportError('Missing or invalid parameter: eventId');
  const errors: Record<string, string[]> = {};
  if (!str(form.name)) errors.name = ['This field is required.'];
  const email = str(form.email);
  if (!email) errors.email = ['This field is required.'];
  else if (!/^[^\s@]+@[^\s@]+$/.test(email)) errors.email = ['Enter a valid email address.'];
  if (!str(form.comments)) errors.comments = ['This field is required.'];
  if (Object.keys(errors).length > 0) throw new FormErrors(errors);
  return feedback('error_page', { eventId: id, name: form.name, email, comments: form.comments });
}

/** The form's field errors, answered as Sentry answers them: `{"errors": {field: [reason]}}`. */
export class FormErrors extends ReportError {
  constructor(readonly errors: Record<string, string[]>) {
    super('invalid form');
  }
}

/** Largest attachment a project may allow (the envelope's own limit). */
export const MAX_ATTACHMENT_LIMIT = 20 * 1024 * 1024;
export const DEFAULT_ATTACHMENT_LIMIT = 1024 * 1024;

/** Item types the collector keeps; every other type is counted per project (`dropped_items`). */
export const KEPT_ITEM_TYPES: ReadonlySet<string> = new Set([
  'event',
  'session',
  'sessions',
  'check_in',
  'feedback',
  'user_report',
  'attachment',
]);

/** An item type as counted: Sentry's names are short snake_case words; anything else is `other`. */
export function countedType(type: unknown): string {
  return typeof type === 'string' && /^[a-z][a-z0-9_]{0,39}$/.test(type) ? type : 'other';
}

/**
 * A client report's discarded counts (`discarded_events: [{reason, category, quantity}]`), per category, as
 * `discarded:<category>`: what the SDK itself dropped before sending (rate limits, queue overflow, sampling).
 */
export function discardedCounts(payload: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isObject(payload) || !Array.isArray(payload.discarded_events)) return out;
  for (const d of payload.discarded_events) {
    if (
      !isObject(d) ||
      typeof d.quantity !== 'number' ||
      !Number.isSafeInteger(d.quantity) ||
      d.quantity <= 0
    )
      continue;
    const key = `discarded:${countedType(d.category)}`;
    out[key] = Math.min((out[key] ?? 0) + d.quantity, 2 ** 31 - 1);
  }
  return out;
}

// Security reports.

/** The error types of security reports, whose title is their message alone (as Sentry titles them). */
export const SECURITY_TYPES: ReadonlySet<string> = new Set(['csp', 'hpkp', 'expectct', 'expectstaple']);

/** A security report as an event for the collector, and its error type. */
export interface SecurityEvent {
  readonly type: string;
  readonly event: JsonObject;
}

const CSP_DIRECTIVES = new Set([
  'base-uri',
  'child-src',
  'connect-src',
  'default-src',
  'fenced-frame-src',
  'font-src',
  'form-action',
  'frame-ancestors',
  'frame-src',
  'img-src',
  'manifest-src',
  'media-src',
  'object-src',
  'plugin-types',
  'prefetch-src',
  'referrer',
  'script-src',
  'script-src-attr',
  'script-src-elem',
  'style-src',
  'style-src-elem',
  'style-src-attr',
  'upgrade-insecure-requests',
  'worker-src',
  'sandbox',
  'navigate-to',
  'report-uri',
  'report-to',
  'block-all-mixed-content',
  'require-sri-for',
  'require-trusted-types-for',
  'trusted-types',
]);

/** Schemes whose URIs have a host (Python's urlunsplit, which Sentry's titles follow). */
const HOST_SCHEMES = new Set(['ftp', 'http', 'gopher', 'file', 'https', 'ws', 'wss', 'git', 'sftp', 'rtsp']);

const isLocal = (uri: string) => uri === '' || uri === 'self' || uri === "'self'";

/** The blocked URI as Sentry's titles show it: the host of a web URI, `scheme:` of a bare scheme. */
function normalizeUri(value: string): string {
  if (isLocal(value)) return "'self'";
  const unsplit = (scheme: string, host: string) =>
    host !== '' || HOST_SCHEMES.has(scheme)
      ? `${scheme}://${host}`
      : scheme !== ''
        ? `${scheme}:${host}`
        : '';
  if (!value.includes(':')) return unsplit(value, '');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const scheme = url.protocol.replace(/:$/, '');
  const base = scheme === 'http' || scheme === 'https' ? url.hostname : unsplit(scheme, url.hostname);
  return url.port ? `${base}:${url.port}` : base;
}

const LOCAL_TITLES: Record<string, string> = {
  'child-src': "Blocked inline 'child'",
  'connect-src': "Blocked inline 'connect'",
  'font-src': "Blocked inline 'font'",
  'img-src': "Blocked inline 'image'",
  'manifest-src': "Blocked inline 'manifest'",
  'media-src': "Blocked inline 'media'",
  'object-src': "Blocked inline 'object'",
  'script-src-attr': "Blocked unsafe 'script' element",
  'script-src-elem': 'Blocked inline script attribute',
  'style-src': "Blocked inline 'style'",
  'style-src-elem': "Blocked 'style' or 'link' element",
  'style-src-attr': 'Blocked style attribute',
  'script-src': "Blocked unsafe (eval() or inline) 'script'",
};

const REMOTE_TITLES: Record<string, string> = {
  'child-src': "Blocked 'child' from",
  'connect-src': "Blocked 'connect' from",
  'font-src': "Blocked 'font' from",
  'form-action': "Blocked 'form' action to",
  'img-src': "Blocked 'image' from",
  'manifest-src': "Blocked 'manifest' from",
  'media-src': "Blocked 'media' from",
  'object-src': "Blocked 'object' from",
  'script-src': "Blocked 'script' from",
  'script-src-attr': 'Blocked inline script attribute from',
  'script-src-elem': "Blocked 'script' from",
  'style-src': "Blocked 'style' from",
  'style-src-elem': "Blocked 'style' from",
  'style-src-attr': 'Blocked style attribute from',
};

/** Sentry's title of a CSP violation ("Blocked 'script' from 'evil.com'"). */
export function cspTitle(directive: string, blockedUri: string): string {
  if (directive === 'script-src' && blockedUri === 'inline') return "Blocked unsafe inline 'script'";
  if (directive === 'script-src' && blockedUri === 'eval') return "Blocked unsafe eval() 'script'";
  if (isLocal(blockedUri)) return LOCAL_TITLES[directive] ?? `Blocked inline '${directive}'`;
  const uri = normalizeUri(blockedUri);
  const lead = REMOTE_TITLES[directive] ?? `Blocked '${directive}' from`;
  return `${lead} '${uri}'`;
}

/** The first word of a directive field that names a known directive. */
function directiveOf(v: unknown): string | null {
  const word = typeof v === 'string' ? v.trim().split(/\s+/)[0]!.toLowerCase() : '';
  return CSP_DIRECTIVES.has(word) ? word : null;
}

/** A field by any of its spellings (CSP level 2's kebab case, the Reporting API's camel case). */
function field(o: JsonObject, ...names: string[]): unknown {
  for (const n of names) if (o[n] !== undefined && o[n] !== null) return o[n];
  return undefined;
}

function cspEvent(r: JsonObject, userAgent: string | null): SecurityEvent {
  const blockedUri = str(field(r, 'blocked-uri', 'blockedURL', 'blocked_uri')) ?? 'self';
  const violated = str(field(r, 'violated-directive', 'violatedDirective', 'violated_directive')) ?? '';
  const directive =
    directiveOf(field(r, 'effective-directive', 'effectiveDirective', 'effective_directive')) ??
    directiveOf(violated);
  if (!directive) throw new ReportError('the CSP report names no known directive');
  const documentUri = str(field(r, 'document-uri', 'documentURL', 'document_uri'));
  const csp = {
    effective_directive: directive,
    blocked_uri: blockedUri,
    document_uri: documentUri,
    violated_directive: violated || directive,
    original_policy: str(field(r, 'original-policy', 'originalPolicy')),
    referrer: str(r.referrer),
    disposition: str(r.disposition),
    status_code: field(r, 'status-code', 'statusCode') ?? null,
    source_file: str(field(r, 'source-file', 'sourceFile')),
    line_number: field(r, 'line-number', 'lineNumber') ?? null,
    column_number: field(r, 'column-number', 'columnNumber') ?? null,
    script_sample: str(field(r, 'script-sample', 'sample')),
  };
  return {
    type: 'csp',
    event: securityEvent(cspTitle(directive, blockedUri), violated || directive, documentUri, userAgent, {
      csp,
      tags: { 'effective-directive': directive, 'blocked-uri': clip(blockedUri, 200) },
    }),
  };
}

function hostReport(
  type: 'hpkp' | 'expectct' | 'expectstaple',
  r: JsonObject,
  userAgent: string | null,
): SecurityEvent {
  const hostname = str(r.hostname);
  if (!hostname) throw new ReportError('the report has no hostname');
  const title =
    type === 'hpkp'
      ? `Public key pinning validation failed for '${hostname}'`
      : type === 'expectct'
        ? `Expect-CT failed for '${hostname}'`
        : `Expect-Staple failed for '${hostname}'`;
  return {
    type,
    event: securityEvent(title, hostname, null, userAgent, {
      [type]: r,
      tags: { hostname: clip(hostname, 200) },
    }),
  };
}

function securityEvent(
  title: string,
  culprit: string,
  url: string | null,
  userAgent: string | null,
  extra: JsonObject,
): JsonObject {
  return {
    event_id: randomUUID().replace(/-/g, ''),
    level: 'error',
    platform: 'other',
    logger: 'csp',
    logentry: { formatted: title },
    culprit: clip(culprit, 255),
    ...(url || userAgent
      ? {
          request: {
            ...(url && { url }),
            ...(userAgent && { headers: [['User-Agent', userAgent]] }),
          },
        }
      : {}),
    ...extra,
  };
}

/** Reports one request may carry (the Reporting API batches them). */
export const MAX_SECURITY_REPORTS = 100;

/**
 * The events of one security report body: `{"csp-report": ...}` (application/csp-report), a Reporting API list
 * (application/reports+json) of `csp-violation` reports, `{"expect-ct-report": ...}`, `{"expect-staple-report":
 * ...}`, or an HPKP report (`hostname`, `known-pins`). Reporting API entries of other types (deprecation,
 * intervention, ...) are returned in `others` to be counted. A body that is none of these: ReportError.
 */
export function securityEvents(
  body: unknown,
  userAgent: string | null,
): { events: SecurityEvent[]; others: string[] } {
  if (Array.isArray(body)) {
    if (body.length > MAX_SECURITY_REPORTS)
      throw new ReportError(`at most ${MAX_SECURITY_REPORTS} reports per request`);
    const events: SecurityEvent[] = [];
    const others: string[] = [];
    for (const r of body) {
      if (!isObject(r)) throw new ReportError('each report must be a JSON object');
      if (r.type === 'csp-violation' && isObject(r.body))
        events.push(cspEvent(r.body, str(r.user_agent) ?? userAgent));
      else
        others.push(`report:${countedType(typeof r.type === 'string' ? r.type.replace(/-/g, '_') : r.type)}`);
    }
    return { events, others };
  }
  if (!isObject(body)) throw new ReportError('unsupported security report');
  if (isObject(body['csp-report'])) return { events: [cspEvent(body['csp-report'], userAgent)], others: [] };
  if (isObject(body['expect-ct-report']))
    return { events: [hostReport('expectct', body['expect-ct-report'], userAgent)], others: [] };
  if (isObject(body['expect-staple-report']))
    return { events: [hostReport('expectstaple', body['expect-staple-report'], userAgent)], others: [] };
  if (Array.isArray(body['known-pins'])) return { events: [hostReport('hpkp', body, userAgent)], others: [] };
  throw new ReportError('unsupported security report');
}
