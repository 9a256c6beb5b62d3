import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { LocalRateCounter, type RateCounter } from '../cluster/rate-counter.js';
import { safeEqual } from '../crypto.js';
import type { Ingest } from '../ingest/ingest.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import { TtlCache } from '../ttl-cache.js';
import type { ErrorTrackingRepository, SessionCounts } from './error-tracking.repository.js';
import type { ErrorTrackingService } from './error-tracking.service.js';
import { EventError, type NormalizedEvent, normalizeEvent, usableEventId } from './events.js';
import { CheckInError } from './monitors.js';
import type { MonitorsService } from './monitors.service.js';
import {
  decodeBody,
  decodeFirstLine,
  type EnvelopeItem,
  keyFromAuthHeader,
  keyFromDsn,
  ProtocolError,
  parseEnvelope,
  parseHeader,
  parseJson,
} from './protocol.js';
import {
  countedType,
  DEFAULT_ATTACHMENT_LIMIT,
  discardedCounts,
  eventIdOf,
  type FeedbackInput,
  feedbackFromForm,
  feedbackFromItem,
  feedbackFromUserReport,
  KEPT_ITEM_TYPES,
  ReportError,
  securityEvents,
} from './reports.js';
import type { AttachmentInput, ReportsRepository } from './reports.repository.js';

/** Decompressed size limits (Sentry's): one event 1 MB, one envelope 20 MB. */
export const EVENT_LIMIT = 1024 * 1024;
export const ENVELOPE_LIMIT = 20 * 1024 * 1024;
/**
 * Items per envelope. SDKs send one event per envelope; a few more are tolerated (hand-built envelopes batch
 * some), each counted against the rate limit. Session items: at most 100 (Relay's `limits.max_session_count`),
 * and 200 items in all (attachments, client reports, transactions...). Beyond: 400 and nothing stored, so a
 * small compressed envelope can never turn into thousands of writes.
 */
export const MAX_EVENT_ITEMS = 10;
export const MAX_SESSION_ITEMS = 100;
export const MAX_ENVELOPE_ITEMS = 200;
/** Longest envelope header read to find the `dsn` of a request with no key in its URL or headers. */
const HEADER_LIMIT = 64 * 1024;
const CACHE_MS = 1000;

/** What the collector needs from one HTTP request. */
export interface CollectorRequest {
  readonly projectId: string;
  readonly kind: 'store' | 'envelope';
  readonly queryKey: string | null;
  /** `X-Sentry-Auth`. */
  readonly authHeader: string | undefined;
  /** `Authorization` (used only with the `Sentry` scheme). */
  readonly authorization?: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly body: Buffer;
  readonly clientIp: string | null;
}

type Target = {
  project: Project;
  keys: readonly string[];
  enabled: boolean;
  maxAttachmentSize: number;
} | null;

/** What one envelope brings besides events and sessions, written in the events' transaction. */
interface Extras {
  feedback: FeedbackInput[];
  attachments: AttachmentInput[];
  dropped: Record<string, number>;
}

/** Rate limited: the SDK should wait `retryAfter` seconds. */
export class RateLimited extends ProtocolError {
  constructor(readonly retryAfter: number) {
    super('rate_limited', '429 Too Many Requests');
  }
}

/**
 * The Sentry collector: authenticates by client key, decodes store and envelope bodies, records events and
 * session aggregates. Refusals follow GitLab: unknown project, disabled feature or unknown key 404; no key 400.
 */
export class CollectorService {
  private readonly targets: TtlCache<string, Target>;

  constructor(
    private readonly repo: ErrorTrackingRepository,
    private readonly projects: ProjectsService,
    private readonly errorTracking: ErrorTrackingService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    /**
     * The intake core: events of requests that arrive together are written in one transaction (retried when a
     * concurrent one stored the same event_id first); outbox events are dispatched after commit.
     */
    private readonly writes: Ingest,
    /** Events per client key (`error_tracking_rate_limit_per_minute`); shared by processes. */
    private readonly rates: RateCounter = new LocalRateCounter(clock),
    cacheTtlMs = CACHE_MS,
    /** Cron monitors: the envelopes' `check_in` items. */
    private readonly monitors: Pick<MonitorsService, 'record'> | null = null,
    /** Feedback, attachments and the counts of items not kept. */
    private readonly reports: ReportsRepository | null = null,
  ) {
    this.targets = new TtlCache(clock, cacheTtlMs);
    const clear = () => this.invalidate();
    errorTracking.onChange(clear);
    projects.onChange(clear);
  }

  /** Forgets every cached project and key list (they changed, here or in another process). */
  invalidate(): void {
    this.targets.clear();
  }

  /** The project, whether the integrated collector is on for it, and its active keys (cached for a second). */
  private target(projectId: string): Promise<Target> {
    return this.targets.get(projectId, async (): Promise<Target> => {
      const project = await this.projects.findForIntake(projectId);
      if (!project) return null;
      const s = await this.repo.settings(project.id);
      const enabled =
        !!s?.enabled && s.integrated && (await this.errorTracking.integratedAvailable(project.id));
      const keys = enabled
        ? (await this.repo.keys(project.id)).filter((k) => k.active).map((k) => k.publicKey)
        : [];
      return { project, keys, enabled, maxAttachmentSize: s?.maxAttachmentSize ?? DEFAULT_ATTACHMENT_LIMIT };
    });
  }

  /**
   * Group commit: events of requests that arrive together are written in one transaction, and each request is
   * answered only after that transaction committed. If a batch fails, its requests are retried one by one so
   * that one bad request cannot fail the others.
   */
  private commit(projectId: number, events: readonly NormalizedEvent[], extras?: Extras): Promise<void> {
    const now = this.clock.now().toISOString();
    return this.writes.submit(async ({ trx, outbox }) => {
      for (const r of await this.repo.recordEvents(trx, projectId, events, now)) {
        // After commit: the hooks and error notification rules this event can trigger (handlers in src/context.ts).
        await outbox.add('error.recorded', { projectId, ...r });
      }
      if (extras && this.reports) {
        await this.reports.addFeedback(trx, projectId, extras.feedback, now);
        await this.reports.addAttachments(trx, projectId, extras.attachments, now);
        await this.reports.addDropped(trx, projectId, extras.dropped);
      }
    });
  }

  /** The project and key of a request, or the refusal (Sentry's: unknown project 404, unknown key 404). */
  private async authenticated(projectId: string, key: string | null): Promise<NonNullable<Target>> {
    const target = await this.target(projectId);
    if (!target) throw new ProtocolError('not_found', '404 Project Not Found');
    if (!target.enabled) throw new ProtocolError('not_found', '404 Not Found');
    if (!key) throw new ProtocolError('bad_request', '400 Bad request - Failed to parse sentry request');
    if (!target.keys.some((k) => safeEqual(k, key))) throw new ProtocolError('not_found', '404 Not Found');
    return target;
  }

  private async throttle(key: string, events: number): Promise<void> {
    const limit = (await this.settings.get()).error_tracking_rate_limit_per_minute;
    if (limit <= 0 || events <= 0) return;
    const wait = await this.rates.hit(`sentry-key:${key}`, events, limit, 60);
    if (wait > 0) throw new RateLimited(wait);
  }

  /**
   * A browser's security report (`/api/<project>/security/?sentry_key=...`): CSP violations (CSP level 2's
   * application/csp-report, the Reporting API's application/reports+json), Expect-CT, Expect-Staple and HPKP
   * reports become events of their own error type (`csp`, `expectct`, `expectstaple`, `hpkp`), titled as Sentry
   * titles them. Reporting API entries of other types are counted as dropped.
   */
  async security(req: {
    readonly projectId: string;
    readonly queryKey: string | null;
    /** `sentry_release` and `sentry_environment` of the report URL. */
    readonly release?: string | null;
    readonly environment?: string | null;
    readonly body: Buffer;
    readonly contentEncoding: string | undefined;
    readonly userAgent: string | undefined;
    readonly clientIp: string | null;
  }): Promise<void> {
    const target = await this.authenticated(req.projectId, req.queryKey);
    await this.throttle(req.queryKey!, 1);
    const body = parseJson(await decodeBody(req.body, req.contentEncoding, EVENT_LIMIT));
    let parsed: ReturnType<typeof securityEvents>;
    try {
      parsed = securityEvents(body, req.userAgent ?? null);
    } catch (err) {
      if (err instanceof ReportError)
        throw new ProtocolError('bad_request', `400 Bad request - ${err.message}`);
      throw err;
    }
    await this.throttle(req.queryKey!, parsed.events.length - 1);
    const now = this.clock.now();
    const events = parsed.events.map((r) => ({
      ...normalizeEvent(
        {
          ...r.event,
          ...(req.release && { release: req.release.slice(0, 200) }),
          ...(req.environment && { environment: req.environment.slice(0, 64) }),
        },
        { now, clientIp: req.clientIp },
      ),
      type: r.type,
    }));
    const dropped: Record<string, number> = {};
    for (const t of parsed.others) dropped[t] = (dropped[t] ?? 0) + 1;
    await this.commit(target.project.id, events, { feedback: [], attachments: [], dropped });
  }

  /**
   * The error page form that Sentry's `showReportDialog` posts (`/api/embed/error-page/?dsn=...&eventId=...`,
   * form fields `name`, `email`, `comments`): one feedback about the event. The DSN names project and key.
   */
  async errorPageFeedback(req: {
    readonly dsn: unknown;
    readonly eventId: unknown;
    readonly form: Readonly<Record<string, unknown>>;
  }): Promise<void> {
    const { projectId, key } = dsnParts(req.dsn);
    if (!projectId || !key) throw new ProtocolError('not_found', '404 Missing or invalid parameter: dsn');
    const target = await this.authenticated(projectId, key);
    await this.throttle(key, 1);
    // Field errors are the caller's to show (FormErrors); they pass through to the route.
    const feedback = feedbackFromForm(req.eventId, req.form);
    await this.commit(target.project.id, [], { feedback: [feedback], attachments: [], dropped: {} });
  }

  /**
   * Checks a key given in the URL or a header before the request body is even read: a wrong key costs no upload,
   * no decompression. Without such a key nothing is decided here (the envelope header may carry it).
   */
  async precheck(
    req: Omit<CollectorRequest, 'body' | 'contentEncoding' | 'clientIp' | 'kind'>,
  ): Promise<void> {
    const key = requestKey(req);
    if (!key) return;
    const target = await this.target(req.projectId);
    if (!target) throw new ProtocolError('not_found', '404 Project Not Found');
    if (!target.enabled) throw new ProtocolError('not_found', '404 Not Found');
    if (!target.keys.some((k) => safeEqual(k, key))) throw new ProtocolError('not_found', '404 Not Found');
  }

  /**
   * Sentry's HTTP check-in endpoint (`/api/<project>/cron/<monitor_slug>/<public key>/`, GET with query
   * parameters or POST with a JSON body): one check-in, refused with 400 when invalid (no SDK to drop it for).
   */
  async httpCheckIn(req: {
    readonly projectId: string;
    readonly key: string;
    readonly slug: string;
    readonly query: Readonly<Record<string, unknown>>;
    readonly body: Buffer;
    readonly contentEncoding: string | undefined;
  }): Promise<void> {
    const target = await this.target(req.projectId);
    if (!target) throw new ProtocolError('not_found', '404 Project Not Found');
    if (!target.enabled || !this.monitors) throw new ProtocolError('not_found', '404 Not Found');
    if (!target.keys.some((k) => safeEqual(k, req.key)))
      throw new ProtocolError('not_found', '404 Not Found');
    const limit = (await this.settings.get()).error_tracking_rate_limit_per_minute;
    if (limit > 0) {
      const wait = await this.rates.hit(`sentry-key:${req.key}`, 1, limit, 60);
      if (wait > 0) throw new RateLimited(wait);
    }
    const body =
      req.body.length > 0 ? parseJson(await decodeBody(req.body, req.contentEncoding, EVENT_LIMIT)) : {};
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ProtocolError('bad_request', '400 Bad request - the check-in must be a JSON object');
    // Query parameters are strings: a duration given there is a number of seconds.
    const q = { ...req.query } as Record<string, unknown>;
    if (typeof q.duration === 'string' && q.duration !== '') q.duration = Number(q.duration);
    try {
      await this.monitors.record(target.project.id, [{ ...q, ...body, monitor_slug: req.slug }], true);
    } catch (err) {
      if (err instanceof CheckInError)
        throw new ProtocolError('bad_request', `400 Bad request - ${err.message}`);
      throw err;
    }
  }

  /**
   * An envelope's feedback and attachments, and the counts of what is not kept: other item types, attachments over
   * the project's limit or without an event, feedback that cannot be read, and the SDK's own discarded counts
   * (client reports). Nothing here refuses the envelope: Sentry's Relay drops such items and accepts the rest.
   */
  private extras(
    items: readonly EnvelopeItem[],
    headerId: string | undefined,
    maxAttachment: number,
  ): Extras {
    const out: Extras = { feedback: [], attachments: [], dropped: {} };
    const eventId = eventIdOf(headerId);
    for (const item of items) {
      const type = item.headers.type;
      if (type === 'feedback' || type === 'user_report') {
        try {
          const raw = item.payload.length > EVENT_LIMIT ? null : parseJson(item.payload);
          out.feedback.push(type === 'feedback' ? feedbackFromItem(raw) : feedbackFromUserReport(raw));
        } catch (err) {
          if (!(err instanceof ReportError || err instanceof ProtocolError)) throw err;
          tally(out.dropped, `invalid_${type}`);
        }
      } else if (type === 'attachment') {
        if (item.payload.length > maxAttachment || !eventId) tally(out.dropped, 'attachment');
        else out.attachments.push(attachmentOf(item, eventId));
      } else if (type === 'client_report') {
        tally(out.dropped, 'client_report');
        try {
          const raw = item.payload.length > EVENT_LIMIT ? null : parseJson(item.payload);
          for (const [k, n] of Object.entries(discardedCounts(raw))) tally(out.dropped, k, n);
        } catch (err) {
          if (!(err instanceof ProtocolError)) throw err;
        }
      } else if (typeof type !== 'string' || !KEPT_ITEM_TYPES.has(type))
        tally(out.dropped, countedType(type));
    }
    return out;
  }

  /** Handles one store or envelope request; returns the event id answered to the SDK. */
  async ingest(req: CollectorRequest): Promise<{ id: string | null }> {
    const target = await this.target(req.projectId);
    if (!target) throw new ProtocolError('not_found', '404 Project Not Found');
    if (!target.enabled) throw new ProtocolError('not_found', '404 Not Found');

    // The key is checked before the body is decompressed: from the URL or a header when there, else from the
    // envelope header's `dsn` (the third way), for which only the first line is decompressed.
    let key = requestKey(req);
    if (!key && req.kind === 'envelope') {
      const head = await decodeFirstLine(req.body, req.contentEncoding, HEADER_LIMIT);
      key = keyFromDsn(parseHeader(head, 'envelope header').dsn);
    }
    if (!key) throw new ProtocolError('bad_request', '400 Bad request - Failed to parse sentry request');
    if (!target.keys.some((k) => safeEqual(k, key))) throw new ProtocolError('not_found', '404 Not Found');

    // The rate limit counts events: one for the request here (before any decoding), one more for each further
    // event of an envelope once they are counted (below).
    const limit = (await this.settings.get()).error_tracking_rate_limit_per_minute;
    const throttle = async (events: number) => {
      if (limit <= 0 || events <= 0) return;
      const wait = await this.rates.hit(`sentry-key:${key}`, events, limit, 60);
      if (wait > 0) throw new RateLimited(wait);
    };
    await throttle(1);

    const now = this.clock.now();
    const normalize = (raw: unknown, text: string, eventId?: string): NormalizedEvent => {
      try {
        return normalizeEvent(raw, {
          now,
          clientIp: req.clientIp,
          eventId,
          text: raw === undefined ? undefined : text,
        });
      } catch (err) {
        if (err instanceof EventError)
          throw new ProtocolError('bad_request', `400 Bad request - ${err.message}`);
        throw err;
      }
    };

    if (req.kind === 'store') {
      const body = await decodeBody(req.body, req.contentEncoding, EVENT_LIMIT);
      const raw = parseJson(body);
      // A transaction is not an error: Sentry's store endpoint takes it as one, svc keeps no traces. Answered as
      // accepted with its id (the SDK must not retry it) and not stored.
      if (isTransaction(raw)) {
        await this.commit(target.project.id, [], {
          feedback: [],
          attachments: [],
          dropped: { transaction: 1 },
        });
        return { id: usableEventId(str((raw as { event_id?: unknown }).event_id) ?? '') };
      }
      const withId = withEventId(raw);
      const event = normalize(withId, withId === raw ? body.toString('utf8') : JSON.stringify(withId));
      await this.commit(target.project.id, [event]);
      return { id: event.eventId };
    }

    const envelope = parseEnvelope(
      await decodeBody(req.body, req.contentEncoding, ENVELOPE_LIMIT),
      MAX_ENVELOPE_ITEMS,
    );
    const headerId = typeof envelope.headers.event_id === 'string' ? envelope.headers.event_id : undefined;
    const eventItems = envelope.items.filter((i) => i.headers.type === 'event');
    const sessionItems = envelope.items.filter(
      (i) => i.headers.type === 'session' || i.headers.type === 'sessions',
    );
    const checkInItems = envelope.items.filter((i) => i.headers.type === 'check_in');
    // Counted before anything is parsed or stored: an envelope beyond the limits changes nothing.
    if (eventItems.length > MAX_EVENT_ITEMS)
      throw new ProtocolError(
        'bad_request',
        `400 Bad request - too many events in envelope (at most ${MAX_EVENT_ITEMS})`,
      );
    if (sessionItems.length > MAX_SESSION_ITEMS)
      throw new ProtocolError(
        'bad_request',
        `400 Bad request - too many session items in envelope (at most ${MAX_SESSION_ITEMS})`,
      );
    if (checkInItems.length > MAX_CHECK_IN_ITEMS)
      throw new ProtocolError(
        'bad_request',
        `400 Bad request - too many check-ins in envelope (at most ${MAX_CHECK_IN_ITEMS})`,
      );
    await throttle(eventItems.length - 1);
    const events: NormalizedEvent[] = [];
    const sessions: SessionCounts[] = [];
    const extras = this.extras(envelope.items, headerId, target.maxAttachmentSize);
    for (const item of eventItems) {
      if (item.payload.length > EVENT_LIMIT)
        throw new ProtocolError('too_large', '413 Request Entity Too Large - event larger than 1 MB');
      const raw = parseJson(item.payload);
      if (isTransaction(raw)) {
        tally(extras.dropped, 'transaction');
        continue;
      }
      const withId = withEventId(raw, headerId);
      // The event's own event_id first: the envelope header's names the (usual) single event when it has none,
      // and must not make several events of one envelope duplicates of each other.
      const own =
        typeof raw === 'object' &&
        raw !== null &&
        typeof (raw as { event_id?: unknown }).event_id === 'string';
      events.push(
        normalize(
          withId,
          withId === raw ? item.payload.toString('utf8') : JSON.stringify(withId),
          own ? undefined : headerId,
        ),
      );
    }
    for (const item of sessionItems) {
      if (item.payload.length > EVENT_LIMIT)
        throw new ProtocolError('too_large', '413 Request Entity Too Large - session item larger than 1 MB');
      // Each item is parsed in its own turn of the event loop: other requests (and /-/health) go in between.
      await new Promise<void>((resolve) => setImmediate(resolve));
      sessions.push(...sessionCounts(item.headers.type as string, parseJson(item.payload)));
    }
    // Transactions, spans, profiles, replays, logs, client reports and unknown types are accepted and counted
    // (Sentry skips unknown items; counting them says where they went).
    if (
      events.length > 0 ||
      extras.feedback.length > 0 ||
      extras.attachments.length > 0 ||
      Object.keys(extras.dropped).length > 0
    )
      await this.commit(target.project.id, events, extras);
    await this.repo.addSessions(target.project.id, sessions);
    if (checkInItems.length > 0 && this.monitors) {
      const checkIns = checkInItems.map((item) => {
        if (item.payload.length > EVENT_LIMIT)
          throw new ProtocolError('too_large', '413 Request Entity Too Large - check-in larger than 1 MB');
        return parseJson(item.payload);
      });
      // Invalid check-ins are dropped, as Sentry's relay drops them: the SDK is answered 200 either way.
      await this.monitors.record(target.project.id, checkIns);
    }
    return { id: events[0]?.eventId ?? (headerId ? headerId.replace(/-/g, '') : null) };
  }
}

const tally = (into: Record<string, number>, key: string, n = 1) => {
  into[key] = (into[key] ?? 0) + n;
};

/** An attachment item as stored: its file name, content type and Sentry attachment type, within bounds. */
function attachmentOf(item: EnvelopeItem, eventId: string): AttachmentInput {
  const h = item.headers;
  const text = (v: unknown, fallback: string, max: number) =>
    typeof v === 'string' && v.trim() !== '' ? v.slice(0, max) : fallback;
  return {
    eventId,
    // A path is not a name: only its last part is kept (the download's Content-Disposition carries it).
    filename: text(h.filename, 'attachment', 1024).split(/[\\/]/).pop() || 'attachment',
    contentType: text(h.content_type, 'application/octet-stream', 255),
    attachmentType: text(h.attachment_type, 'event.attachment', 64),
    content: Buffer.from(item.payload),
  };
}

/** The project id (the path's last part) and public key of a DSN. */
function dsnParts(dsn: unknown): { projectId: string | null; key: string | null } {
  if (typeof dsn !== 'string' || dsn.length > 2048) return { projectId: null, key: null };
  try {
    const u = new URL(dsn);
    const id = u.pathname.replace(/\/+$/, '').split('/').pop() ?? '';
    return { projectId: /^\d{1,10}$/.test(id) ? id : null, key: keyFromDsn(dsn) };
  } catch {
    return { projectId: null, key: null };
  }
}

/** Check-in items one envelope may carry (SDKs send one). */
const MAX_CHECK_IN_ITEMS = 100;

/** The key from `sentry_key=`, `X-Sentry-Auth` or `Authorization: Sentry ...`, in that order. */
function requestKey(req: Pick<CollectorRequest, 'queryKey' | 'authHeader' | 'authorization'>): string | null {
  return (
    req.queryKey ||
    keyFromAuthHeader(req.authHeader) ||
    (typeof req.authorization === 'string' && /^sentry\s/i.test(req.authorization)
      ? keyFromAuthHeader(req.authorization)
      : null)
  );
}

/** An event of type `transaction` (performance data, which svc does not keep). */
function isTransaction(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'transaction';
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** An event without an id gets one (SDKs always send it; hand-written payloads may not). */
function withEventId(raw: unknown, headerId?: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  if (typeof r.event_id === 'string' || headerId) return raw;
  return { ...r, event_id: randomUUID().replace(/-/g, '') };
}

/** Largest count one session field may carry or accumulate (PostgreSQL `integer`; Relay takes u32). */
export const MAX_SESSION_COUNT = 2_147_483_647;
const SESSION_STATUSES = new Set(['ok', 'exited', 'crashed', 'abnormal', 'errored']);

const invalidSession = (reason: string) =>
  new ProtocolError('bad_request', `400 Bad request - Invalid session: ${reason}`);

/** A count field: absent is 0; else a non-negative integer within bounds (Sentry's session schema). */
function count(o: Record<string, unknown>, key: string): number {
  const v = o[key];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_SESSION_COUNT)
    throw invalidSession(`${key} must be an integer between 0 and ${MAX_SESSION_COUNT}`);
  return v;
}

/** A timestamp field: absent, or an RFC 3339 string / epoch seconds that is a real date. */
function checkTime(o: Record<string, unknown>, key: string): void {
  const v = o[key];
  if (v === undefined || v === null) return;
  const ms = typeof v === 'number' ? v * 1000 : typeof v === 'string' ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(ms) || Number.isNaN(new Date(ms).getTime()) || ms < 0)
    throw invalidSession(`${key} must be a timestamp`);
}

/**
 * Release and environment as Sentry accepts them: release 1 to 200 characters without control characters and
 * not `.`, `..` or blank; environment at most 64 characters without control characters or `/`.
 */
function sessionAttrs(p: Record<string, unknown>): { release: string; environment: string } | null {
  const attrs = (typeof p.attrs === 'object' && p.attrs !== null ? p.attrs : {}) as Record<string, unknown>;
  const release = attrs.release;
  if (release === undefined || release === null || release === '') return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  const control = /[\u0000-\u001f\u007f]/;
  if (
    typeof release !== 'string' ||
    release.length > 200 ||
    control.test(release) ||
    release.trim() === '' ||
    release === '.' ||
    release === '..'
  )
    throw invalidSession('attrs.release is not a valid release name');
  const env = attrs.environment;
  if (env === undefined || env === null || env === '') return { release, environment: 'production' };
  if (typeof env !== 'string' || env.length > 64 || control.test(env) || env.includes('/'))
    throw invalidSession('attrs.environment is not a valid environment name');
  return { release, environment: env };
}

const cap = (n: number) => Math.min(n, MAX_SESSION_COUNT);

/**
 * Session updates counted per release and environment. A `session` item: `init` counts a start; a final status
 * `crashed` counts a crash; `errored`, or an exited/abnormal session with errors, counts an errored session.
 * A `sessions` item carries pre-aggregated buckets (summed here into one row). Invalid numbers, statuses,
 * timestamps or names are refused with 400 (they would otherwise poison the stored aggregates).
 */
export function sessionCounts(type: string, payload: unknown): SessionCounts[] {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw invalidSession('not a JSON object');
  const p = payload as Record<string, unknown>;
  if (type === 'sessions') {
    if (p.aggregates !== undefined && !Array.isArray(p.aggregates))
      throw invalidSession('aggregates must be a list');
    const attrs = sessionAttrs(p);
    let started = 0;
    let errored = 0;
    let crashed = 0;
    for (const b of (p.aggregates ?? []) as unknown[]) {
      if (typeof b !== 'object' || b === null || Array.isArray(b))
        throw invalidSession('aggregates must hold objects');
      const bucket = b as Record<string, unknown>;
      checkTime(bucket, 'started');
      const e = count(bucket, 'errored');
      const c = count(bucket, 'crashed');
      started = cap(started + count(bucket, 'exited') + e + c + count(bucket, 'abnormal'));
      errored = cap(errored + e);
      crashed = cap(crashed + c);
    }
    return attrs ? [{ ...attrs, started, errored, crashed }] : [];
  }
  const status = p.status ?? 'ok';
  if (typeof status !== 'string' || !SESSION_STATUSES.has(status))
    throw invalidSession('status must be one of ok, exited, crashed, abnormal, errored');
  if (p.init !== undefined && p.init !== null && typeof p.init !== 'boolean')
    throw invalidSession('init must be a boolean');
  const errors = count(p, 'errors');
  if (p.seq !== undefined && p.seq !== null && !(Number.isSafeInteger(p.seq) && (p.seq as number) >= 0))
    throw invalidSession('seq must be a non-negative integer');
  if (
    p.duration !== undefined &&
    p.duration !== null &&
    (typeof p.duration !== 'number' || !Number.isFinite(p.duration) || p.duration < 0)
  )
    throw invalidSession('duration must be a non-negative number');
  checkTime(p, 'timestamp');
  checkTime(p, 'started');
  const attrs = sessionAttrs(p);
  if (!attrs) return [];
  return [
    {
      ...attrs,
      started: p.init === true ? 1 : 0,
      errored: status === 'errored' || ((status === 'exited' || status === 'abnormal') && errors > 0) ? 1 : 0,
      crashed: status === 'crashed' ? 1 : 0,
    },
  ];
}
