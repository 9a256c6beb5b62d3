import { randomUUID } from 'node:crypto';
import type { Project } from '../accounts/accounts.js';
import type { ProjectsService } from '../accounts/projects.service.js';
import type { SettingsService } from '../accounts/settings.service.js';
import type { Clock } from '../clock.js';
import { safeEqual } from '../crypto.js';
import { FixedWindowThrottle } from '../throttle.js';
import type { ErrorTrackingRepository, SessionCounts } from './error-tracking.repository.js';
import type { ErrorTrackingService } from './error-tracking.service.js';
import { EventError, type NormalizedEvent, normalizeEvent } from './events.js';
import {
  decodeBody,
  type Envelope,
  keyFromAuthHeader,
  keyFromDsn,
  ProtocolError,
  parseEnvelope,
  parseJson,
} from './protocol.js';

/** Decompressed size limits (Sentry's): one event 1 MB, one envelope 20 MB. */
export const EVENT_LIMIT = 1024 * 1024;
export const ENVELOPE_LIMIT = 20 * 1024 * 1024;
const CACHE_MS = 1000;
/** Most requests written in one group-commit transaction. */
const MAX_BATCH = 64;

/** What the collector needs from one HTTP request. */
export interface CollectorRequest {
  readonly projectId: string;
  readonly kind: 'store' | 'envelope';
  readonly queryKey: string | null;
  readonly authHeader: string | undefined;
  readonly contentEncoding: string | undefined;
  readonly body: Buffer;
  readonly clientIp: string | null;
}

type Target = { project: Project; keys: readonly string[]; enabled: boolean } | null;

/** Rate limited: the SDK should wait `retryAfter` seconds. */
export class RateLimited extends ProtocolError {
  constructor(readonly retryAfter: number) {
    super(429, '429 Too Many Requests');
  }
}

/**
 * The Sentry collector: authenticates by client key, decodes store and envelope bodies, records events and
 * session aggregates. Refusals follow GitLab: unknown project, disabled feature or unknown key 404; no key 400.
 */
export class CollectorService {
  private readonly targets = new Map<string, { value: Promise<Target>; at: number }>();
  private readonly throttle = new FixedWindowThrottle();
  private readonly pending: {
    projectId: number;
    events: readonly NormalizedEvent[];
    resolve: () => void;
    reject: (err: unknown) => void;
  }[] = [];
  private flushScheduled = false;

  constructor(
    private readonly repo: ErrorTrackingRepository,
    private readonly projects: ProjectsService,
    private readonly errorTracking: ErrorTrackingService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {
    const clear = () => this.targets.clear();
    errorTracking.onChange(clear);
    projects.onChange(clear);
  }

  /** The project, whether the integrated collector is on for it, and its active keys (cached for a second). */
  private target(projectId: string): Promise<Target> {
    const now = this.clock.now().getTime();
    const hit = this.targets.get(projectId);
    if (hit && now - hit.at <= CACHE_MS) return hit.value;
    const value = (async (): Promise<Target> => {
      const project = await this.projects.findForIntake(projectId);
      if (!project) return null;
      const s = await this.repo.settings(project.id);
      const enabled =
        !!s?.enabled && s.integrated && (await this.errorTracking.integratedAvailable(project.id));
      const keys = enabled
        ? (await this.repo.keys(project.id)).filter((k) => k.active).map((k) => k.publicKey)
        : [];
      return { project, keys, enabled };
    })();
    if (this.targets.size > 10_000) this.targets.clear();
    this.targets.set(projectId, { value, at: now });
    value.catch(() => this.targets.delete(projectId));
    return value;
  }

  /**
   * Group commit: events of requests that arrive together are written in one transaction, and each request is
   * answered only after that transaction committed. If a batch fails, its requests are retried one by one so
   * that one bad request cannot fail the others.
   */
  private commit(projectId: number, events: readonly NormalizedEvent[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ projectId, events, resolve, reject });
      if (this.pending.length >= MAX_BATCH) void this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.pending.splice(0, this.pending.length);
    if (batch.length === 0) return;
    const now = this.clock.now().toISOString();
    try {
      await this.repo.recordMany(batch, now);
      for (const b of batch) b.resolve();
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const b of batch) {
        await this.repo.recordMany([b], now).then(b.resolve, b.reject);
      }
    }
  }

  /** Handles one store or envelope request; returns the event id answered to the SDK. */
  async ingest(req: CollectorRequest): Promise<{ id: string | null }> {
    const target = await this.target(req.projectId);
    if (!target) throw new ProtocolError(404, '404 Project Not Found');
    if (!target.enabled) throw new ProtocolError(404, '404 Not Found');

    let key = req.queryKey || keyFromAuthHeader(req.authHeader);
    let decoded: Buffer | null = null;
    let envelope: Envelope | null = null;
    if (!key && req.kind === 'envelope') {
      // The envelope header's `dsn` is the third way to authenticate.
      decoded = await decodeBody(req.body, req.contentEncoding, ENVELOPE_LIMIT);
      envelope = parseEnvelope(decoded);
      key = keyFromDsn(envelope.headers.dsn);
    }
    if (!key) throw new ProtocolError(400, '400 Bad request - Failed to parse sentry request');
    if (!target.keys.some((k) => safeEqual(k, key))) throw new ProtocolError(404, '404 Not Found');

    const limit = (await this.settings.get()).error_tracking_rate_limit_per_minute;
    if (limit > 0) {
      const wait = this.throttle.hit(key, limit, 60, this.clock.now().getTime());
      if (wait > 0) throw new RateLimited(wait);
    }

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
        if (err instanceof EventError) throw new ProtocolError(400, `400 Bad request - ${err.message}`);
        throw err;
      }
    };

    if (req.kind === 'store') {
      const body = await decodeBody(req.body, req.contentEncoding, EVENT_LIMIT);
      const raw = parseJson(body);
      const withId = withEventId(raw);
      const event = normalize(withId, withId === raw ? body.toString('utf8') : JSON.stringify(withId));
      await this.commit(target.project.id, [event]);
      return { id: event.eventId };
    }

    decoded ??= await decodeBody(req.body, req.contentEncoding, ENVELOPE_LIMIT);
    envelope ??= parseEnvelope(decoded);
    const headerId = typeof envelope.headers.event_id === 'string' ? envelope.headers.event_id : undefined;
    const events: NormalizedEvent[] = [];
    const sessions: SessionCounts[] = [];
    for (const item of envelope.items) {
      const type = item.headers.type;
      if (type === 'event') {
        if (item.payload.length > EVENT_LIMIT)
          throw new ProtocolError(413, '413 Request Entity Too Large - event larger than 1 MB');
        const raw = parseJson(item.payload);
        const withId = withEventId(raw, headerId);
        events.push(
          normalize(
            withId,
            withId === raw ? item.payload.toString('utf8') : JSON.stringify(withId),
            headerId,
          ),
        );
      } else if (type === 'session' || type === 'sessions') {
        sessions.push(...sessionCounts(type, parseJson(item.payload)));
      }
      // transaction, client_report, attachment and unknown types: accepted, not stored (Sentry: skip unknown items).
    }
    if (events.length > 0) await this.commit(target.project.id, events);
    await this.repo.addSessions(target.project.id, sessions);
    return { id: events[0]?.eventId ?? (headerId ? headerId.replace(/-/g, '') : null) };
  }
}

/** An event without an id gets one (SDKs always send it; hand-written payloads may not). */
function withEventId(raw: unknown, headerId?: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  if (typeof r.event_id === 'string' || headerId) return raw;
  return { ...r, event_id: randomUUID().replace(/-/g, '') };
}

/**
 * Session updates counted per release and environment. A `session` item: `init` counts a start; a final status
 * `crashed` counts a crash; `errored`, or an exited/abnormal session with errors, counts an errored session.
 * A `sessions` item carries pre-aggregated buckets.
 */
export function sessionCounts(type: string, payload: unknown): SessionCounts[] {
  if (typeof payload !== 'object' || payload === null) return [];
  const p = payload as Record<string, unknown>;
  const attrs = (typeof p.attrs === 'object' && p.attrs !== null ? p.attrs : {}) as Record<string, unknown>;
  const release = typeof attrs.release === 'string' ? attrs.release : null;
  if (!release) return [];
  const environment = typeof attrs.environment === 'string' ? attrs.environment : 'production';
  if (type === 'sessions') {
    const buckets = Array.isArray(p.aggregates) ? p.aggregates : [];
    const n = (b: Record<string, unknown>, k: string) => (typeof b[k] === 'number' ? (b[k] as number) : 0);
    return buckets
      .filter((b): b is Record<string, unknown> => typeof b === 'object' && b !== null)
      .map((b) => ({
        release,
        environment,
        started: n(b, 'exited') + n(b, 'errored') + n(b, 'crashed') + n(b, 'abnormal'),
        errored: n(b, 'errored'),
        crashed: n(b, 'crashed'),
      }));
  }
  const status = typeof p.status === 'string' ? p.status : 'ok';
  const errors = typeof p.errors === 'number' ? p.errors : 0;
  return [
    {
      release,
      environment,
      started: p.init === true ? 1 : 0,
      errored: status === 'errored' || ((status === 'exited' || status === 'abnormal') && errors > 0) ? 1 : 0,
      crashed: status === 'crashed' ? 1 : 0,
    },
  ];
}
