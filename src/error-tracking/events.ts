import { createHash, randomUUID } from 'node:crypto';
import { type EventHashes, groupingHashes } from './grouping.js';
import { SECURITY_TYPES } from './reports.js';

/**
 * Sentry event handling, pure: normalising what every SDK sends (exception as object or list, message as string
 * or logentry, synthetic exceptions, timestamps in several forms), grouping keys, users, stack traces.
 */

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export interface Frame {
  readonly filename: string | null;
  readonly absPath: string | null;
  readonly function: string | null;
  readonly module: string | null;
  readonly lineNo: number | null;
  readonly colNo: number | null;
  readonly inApp: boolean | null;
  /** `[line number, code]` pairs: pre-context, the line, post-context. */
  readonly context: readonly (readonly [number, string])[];
}

/** What grouping and the error record need from one event. */
export interface NormalizedEvent {
  readonly eventId: string;
  readonly timestamp: string;
  readonly platform: string;
  readonly level: string;
  readonly type: string;
  readonly message: string;
  readonly culprit: string;
  readonly release: string | null;
  readonly environment: string | null;
  readonly tags: Readonly<Record<string, string>>;
  /** The user key for "users affected": id, username, email or IP address. */
  readonly userKey: string | null;
  /** The grouping hashes of every supported grouping version (grouping.ts). */
  readonly hashes: EventHashes;
  readonly frames: readonly Frame[];
  /** The event with NUL bytes removed, as stored. */
  readonly payload: JsonObject;
  /** The stored JSON text of `payload` (the request's own text when nothing had to change). */
  readonly payloadJson: string;
}

/** The event cannot be used: 400 with this message. */
export class EventError extends Error {}

/** Removes NUL characters from every string (PostgreSQL text and jsonb refuse them). */
function scrubNul(v: unknown): unknown {
  if (typeof v === 'string') return v.includes('\u0000') ? v.replaceAll('\u0000', '') : v;
  if (Array.isArray(v)) return v.map(scrubNul);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, val] of Object.entries(v)) out[k.replaceAll('\u0000', '')] = scrubNul(val);
    return out;
  }
  return v;
}

/**
 * Event timestamps: epoch seconds as a number or numeric string (JS), RFC 3339 with any number of fractional
 * digits (Python µs, Go ns), or no timezone at all (raven: taken as UTC). Missing or unparseable: now.
 */
function parseTimestamp(v: unknown, now: Date): string {
  // Relay replaces timestamps from the future (beyond 60 s of clock drift) and unrepresentable ones with the
  // receive time, so that one broken clock cannot pin an error to the year 275760 (or fail the request).
  const sane = (ms: number): string =>
    Number.isFinite(ms) && ms >= 0 && ms <= now.getTime() + MAX_FUTURE_MS
      ? new Date(ms).toISOString()
      : now.toISOString();
  if (typeof v === 'number' && Number.isFinite(v)) return sane(v * 1000);
  if (typeof v === 'string' && v.trim() !== '') {
    const s = v.trim();
    if (/^\d+(\.\d+)?$/.test(s)) return sane(Number(s) * 1000);
    const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(s);
    if (m) {
      const frac = m[3] ? m[3].slice(0, 4).padEnd(4, '0') : '.000';
      const zone = m[4]
        ? m[4].toUpperCase() === 'Z'
          ? 'Z'
          : m[4].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')
        : 'Z';
      const ms = Date.parse(`${m[1]}T${m[2]}${frac}${zone}`);
      if (!Number.isNaN(ms)) return sane(ms);
    }
    const ms = Date.parse(s);
    if (!Number.isNaN(ms)) return sane(ms);
  }
  return now.toISOString();
}

/** Clock drift tolerated before an event's timestamp is replaced by the receive time (Relay: 60 s). */
const MAX_FUTURE_MS = 60_000;

/** Deepest nesting of objects and arrays accepted in an event (SDKs normalise to a depth of 3 to 10). */
const MAX_EVENT_DEPTH = 100;

/** Whether `v` nests objects/arrays deeper than `max` levels; iterative, so any depth is safe to check. */
function nestedDeeperThan(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (d > max) return true;
    for (const child of Array.isArray(x) ? x : Object.values(x)) {
      if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
    }
  }
  return false;
}

/** The exception values, whether sent as `{values: [...]}` or as a list. */
function exceptionValues(event: JsonObject): JsonObject[] {
  const ex = event.exception;
  const list = Array.isArray(ex) ? ex : isObject(ex) && Array.isArray(ex.values) ? ex.values : [];
  return list.filter(isObject);
}

function framesOf(value: JsonObject | undefined): JsonObject[] {
  const st = value?.stacktrace;
  return isObject(st) && Array.isArray(st.frames) ? st.frames.filter(isObject) : [];
}

/** The exception that explains the event: with several, the last one that has a stack trace (the raised one). */
function mainException(event: JsonObject): JsonObject | undefined {
  const values = exceptionValues(event);
  const withFrames = values.filter((v) => framesOf(v).length > 0);
  return withFrames[withFrames.length - 1] ?? values[values.length - 1];
}

/**
 * The message: a string `message`, `message.formatted`, or `logentry.formatted`/`logentry.message`. Without
 * `formatted`, the template is formatted with `params` (sentry-python before 2.26 sends only those).
 */
function eventMessage(event: JsonObject): { formatted: string | null; template: string | null } {
  for (const key of ['logentry', 'message']) {
    const m = event[key];
    if (typeof m === 'string' && m !== '') return { formatted: m, template: m };
    if (isObject(m)) {
      const template = str(m.message) ?? str(m.formatted);
      const formatted = str(m.formatted) ?? (template !== null ? formatMessage(template, m.params) : null);
      if (formatted) return { formatted, template };
    }
  }
  return { formatted: null, template: null };
}

const paramText = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined ? '' : (JSON.stringify(v) ?? String(v));

/**
 * `logentry.message` with its `params` filled in, as the SDKs format them: a list fills `%s`/`%d`-style
 * (Python, `%%` is a percent sign), `{}` (Rust, Java's SLF4J) or `{0}` (.NET) positions in order; an object
 * fills `{name}` (.NET structured logging) and `%(name)s` (Python). Positions without a parameter stay as sent.
 */
export function formatMessage(template: string, params: unknown): string {
  if (Array.isArray(params)) {
    if (params.length === 0) return template;
    let i = 0;
    const next = (whole: string) => (i < params.length ? paramText(params[i++]) : whole);
    if (/%[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGcoaub]/.test(template))
      return template.replace(/%%|%[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGcoaub]/g, (m) =>
        m === '%%' ? '%' : next(m),
      );
    if (template.includes('{}')) return template.replace(/\{\}/g, next);
    return template.replace(/\{(\d+)(?:[,:][^}]*)?\}/g, (m, n: string) =>
      Number(n) < params.length ? paramText(params[Number(n)]) : m,
    );
  }
  if (isObject(params)) {
    return template
      .replace(/%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdifr]/g, (m, k: string) =>
        k in params ? paramText(params[k]) : m,
      )
      .replace(/\{@?(\w+)(?:[,:][^}]*)?\}/g, (m, k: string) => (k in params ? paramText(params[k]) : m));
  }
  return template;
}

/** Context lines without their line ending (raven-ruby sends them with a trailing newline). */
const code = (v: unknown): string | null => (typeof v === 'string' ? v.replace(/\r?\n$/, '') : null);

function toFrame(f: JsonObject): Frame {
  const lineNo = typeof f.lineno === 'number' ? f.lineno : null;
  const context: [number, string][] = [];
  if (lineNo !== null) {
    const pre = Array.isArray(f.pre_context) ? f.pre_context : [];
    pre.forEach((line, i) => {
      const c = code(line);
      if (c !== null) context.push([lineNo - pre.length + i, c]);
    });
    const current = code(f.context_line);
    if (current !== null) context.push([lineNo, current]);
    const post = Array.isArray(f.post_context) ? f.post_context : [];
    post.forEach((line, i) => {
      const c = code(line);
      if (c !== null) context.push([lineNo + 1 + i, c]);
    });
  }
  const absPath = str(f.abs_path);
  return {
    // sentry-go sends only abs_path: the file name is its last segment.
    filename: str(f.filename) ?? (absPath ? (absPath.split(/[\\/]/).pop() ?? null) : null),
    absPath,
    function: str(f.function),
    module: str(f.module),
    lineNo,
    colNo: typeof f.colno === 'number' ? f.colno : null,
    inApp: typeof f.in_app === 'boolean' ? f.in_app : null,
    context,
  };
}

/** The frames of the main exception, or of the first thread with a stack trace (.NET), caller first. */
export function stackFrames(event: JsonObject): Frame[] {
  const main = mainException(event);
  let frames = framesOf(main);
  if (frames.length === 0) {
    const threads =
      isObject(event.threads) && Array.isArray(event.threads.values) ? event.threads.values : [];
    const withFrames = threads.filter(isObject).find((t) => framesOf(t).length > 0);
    frames = framesOf(withFrames);
  }
  if (frames.length === 0 && isObject(event.stacktrace) && Array.isArray(event.stacktrace.frames)) {
    frames = event.stacktrace.frames.filter(isObject);
  }
  return frames.map(toFrame);
}

/** Tags as a map: Sentry sends an object or a list of `[key, value]` pairs. */
function tagsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v)) {
    for (const [k, val] of Object.entries(v))
      if (val !== null && val !== undefined) out[k] = String(val).slice(0, 200);
  } else if (Array.isArray(v)) {
    for (const pair of v) {
      if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string')
        out[pair[0]] = String(pair[1]).slice(0, 200);
    }
  }
  return out;
}

/** The user key for users affected: id, username, email or IP address (Sentry: at least one identifies a user). */
export function userKey(event: JsonObject, clientIp: string | null): string | null {
  const u = isObject(event.user) ? event.user : null;
  if (!u) return null;
  for (const field of ['id', 'username', 'email'] as const) {
    const v = u[field];
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') return `${field}:${v}`;
  }
  const ip = u.ip_address === '{{auto}}' ? clientIp : str(u.ip_address);
  return ip ? `ip:${ip}` : null;
}

const truncate = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 3)}...` : s);

/**
 * Normalises an event for storage and grouping (grouping.ts computes its hashes; the legacy grouping's default key,
 * exception type + culprit + platform or message template + platform, is computed here from the same fields).
 */
export function normalizeEvent(
  raw: unknown,
  opts: {
    now: Date;
    clientIp: string | null;
    eventId?: string;
    /** The JSON text `raw` was parsed from: lets clean payloads skip the NUL scrub and a re-serialisation. */
    text?: string;
  },
): NormalizedEvent {
  if (!isObject(raw)) throw new EventError('Unsupported sentry payload');
  if (nestedDeeperThan(raw, MAX_EVENT_DEPTH))
    throw new EventError(`Unsupported sentry payload: nested deeper than ${MAX_EVENT_DEPTH} levels`);
  // JSON text can only carry NUL as the escape \u0000: without it, there is nothing to scrub.
  const clean = opts.text !== undefined && !opts.text.includes('\\u0000');
  const event = clean ? raw : (scrubNul(raw) as JsonObject);
  const platform = truncate(str(event.platform) ?? 'other', 255);
  const main = mainException(event);
  const frames = stackFrames(event);
  const msg = eventMessage(event);
  // Newer SDKs add a synthetic exception with no type to message events: those are message events all the same.
  const synthetic =
    !!main && isObject(main.mechanism) && main.mechanism.synthetic === true && !str(main.type);
  const isMessageEvent = !main || (synthetic && msg.formatted !== null);
  const type = isMessageEvent
    ? msg.formatted
      ? 'Message'
      : 'Error'
    : (str(main?.type) ?? str(main?.module) ?? 'Error');
  const message = truncate(
    (isMessageEvent ? msg.formatted : str(main?.value)) ?? str(main?.value) ?? '',
    1024,
  );
  const last = frames[frames.length - 1];
  const culprit = truncate(
    str(event.transaction) ??
      str(event.culprit) ??
      (last && !isMessageEvent ? `${last.function ?? '?'}(${last.module ?? last.filename ?? ''})` : ''),
    255,
  );
  const legacyKey =
    isMessageEvent && msg.template !== null
      ? `message\u0000${msg.template}\u0000${platform}`
      : `exception\u0000${type}\u0000${culprit}\u0000${platform}`;
  const eventId = usableEventId(opts.eventId ?? str(event.event_id) ?? '');
  return {
    eventId,
    timestamp: parseTimestamp(event.timestamp, opts.now),
    platform,
    level: str(event.level) ?? 'error',
    type: truncate(type, 255),
    message,
    culprit,
    release: str(event.release),
    environment: str(event.environment),
    tags: tagsOf(event.tags),
    userKey: userKey(event, opts.clientIp),
    hashes: groupingHashes(event, platform, legacyKey),
    frames,
    payload: event,
    payloadJson: clean && opts.text !== undefined ? opts.text : JSON.stringify(event),
  };
}

/**
 * The event id as 32 lowercase hex digits. SDKs that send something else are accepted, as GitLab accepts them (the PHP
 * SDK sends 32 letters and digits, the Python REPL an empty string): a given id is hashed to 32 hex digits, so a
 * retry of the same event is still recognised; an empty one is replaced by a random id.
 */
export function usableEventId(given: string): string {
  const id = given.replace(/-/g, '').toLowerCase();
  if (/^[0-9a-f]{32}$/.test(id)) return id;
  if (given.trim() === '') return randomUUID().replace(/-/g, '');
  return createHash('md5').update(given).digest('hex');
}

/**
 * The error title: type and message, 64 characters at most (GitLab). A security report's is its message alone
 * ("Blocked 'script' from 'evil.com'"), as Sentry titles it.
 */
export function errorTitle(type: string, message: string): string {
  if (SECURITY_TYPES.has(type) && message) return truncate(message, 64);
  return truncate(message ? `${type} ${message}` : type, 64);
}
