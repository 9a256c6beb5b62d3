import type { Clock } from './clock.js';
import type { Job } from './jobs/queue.js';
import { OutboundError, type OutboundHttp } from './outbound.js';

/**
 * One delivery to a receiver outside (a webhook, a chat service): the attempt, its record, and what repeated
 * failure does to the receiver, the same for every kind, as GitLab's WebHooks::AutoDisabling:
 * - a delivery is tried DELIVERY_MAX_ATTEMPTS times (the job queue's backoff between them: 2 s, 4 s, 8 s);
 * - from the DELIVERY_REST_AFTER-th failure in a row the receiver rests, a minute doubling with each further
 *   failure up to a day, and the delivery that failed ends there;
 * - at DELIVERY_DISABLE_AFTER failures in a row it is disabled until edited or tested.
 */
export const DELIVERY_MAX_ATTEMPTS = 4;
export const DELIVERY_REST_AFTER = 4;
export const DELIVERY_DISABLE_AFTER = 40;
const REST_FIRST_MS = 60_000;
const REST_MAX_MS = 86_400_000;
/** How long a receiver rests after `failures` failures in a row (from DELIVERY_REST_AFTER on). */
export const deliveryRestMs = (failures: number) =>
  Math.min(REST_MAX_MS, REST_FIRST_MS * 2 ** Math.min(20, failures - DELIVERY_REST_AFTER));

/** What one POST did. `error` never names the URL: it may hold a secret (a chat webhook, a bot token). */
export interface PostResult {
  readonly ok: boolean;
  readonly status: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/** One JSON POST through the outbound client (SSRF guard, deadline, no redirects, bounded answer). */
export async function postJson(
  http: OutboundHttp,
  url: string,
  opts: {
    readonly headers: Readonly<Record<string, string>>;
    readonly body: unknown;
    readonly maxResponseBytes: number;
    readonly insecureTls?: boolean;
    /** Who answered, in the error of a non-2xx answer ("the receiver", "the service"). */
    readonly peer: string;
  },
): Promise<PostResult> {
  const started = performance.now();
  try {
    const res = await http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...opts.headers },
      body: JSON.stringify(opts.body),
      maxResponseBytes: opts.maxResponseBytes,
      ...(opts.insecureTls !== undefined && { insecureTls: opts.insecureTls }),
    });
    const durationMs = Math.round(performance.now() - started);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, durationMs, error: ok ? null : `${opts.peer} answered ${res.status}` };
  } catch (err) {
    const durationMs = Math.round(performance.now() - started);
    const error = err instanceof OutboundError ? err.message : 'the request failed';
    return { ok: false, status: null, durationMs, error };
  }
}

/** A delivery as its log row holds it. */
export interface DeliveryRow {
  readonly id: number;
  readonly status: string;
  readonly attempts: number;
  readonly payload: unknown;
}

/** How a delivery log row changes. */
export interface DeliveryUpdate {
  readonly status: 'pending' | 'success' | 'failed';
  readonly responseStatus: number | null;
  readonly durationMs: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly finishedAt: string | null;
}

/** What a kind of delivery gives `runDelivery`: its log, its receivers and how to send to one. */
export interface DeliveryKind<D extends DeliveryRow, R extends { readonly id: number }> {
  delivery(id: number): Promise<D | null>;
  receiver(delivery: D): Promise<R | null>;
  /** Why nothing is sent to `receiver` now (missing, inactive, disabled, resting), or null. */
  notSent(receiver: R | null): string | null;
  post(receiver: R, payload: unknown): Promise<PostResult>;
  update(id: number, update: DeliveryUpdate): Promise<void>;
  succeeded(receiverId: number): Promise<void>;
  /** Counts a failure in a row; at `limit` disables the receiver with `reason`. Returns the count. */
  failed(receiverId: number, limit: number, reason: string, now: string): Promise<number>;
  restUntil(receiverId: number, until: string): Promise<void>;
}

/**
 * Runs one delivery job: sends the logged payload unless the receiver may not receive now, records the answer,
 * and counts the receiver's failures (resting, then disabling it). Throws to have the queue retry the delivery.
 */
export async function runDelivery<D extends DeliveryRow, R extends { readonly id: number }>(
  job: Job,
  kind: DeliveryKind<D, R>,
  clock: Clock,
): Promise<void> {
  const { deliveryId } = job.payload as { deliveryId: number };
  const d = await kind.delivery(deliveryId);
  if (!d || d.status !== 'pending') return;
  const receiver = await kind.receiver(d);
  const now = () => clock.now().toISOString();
  const reason = kind.notSent(receiver);
  if (receiver === null || reason !== null) {
    await kind.update(d.id, {
      status: 'failed',
      responseStatus: null,
      durationMs: null,
      error: reason ?? 'not sent',
      attempts: d.attempts,
      finishedAt: now(),
    });
    return;
  }
  const r = await kind.post(receiver, d.payload);
  if (r.ok) {
    await kind.update(d.id, {
      status: 'success',
      responseStatus: r.status,
      durationMs: r.durationMs,
      error: null,
      attempts: job.attempts,
      finishedAt: now(),
    });
    await kind.succeeded(receiver.id);
    return;
  }
  const failures = await kind.failed(
    receiver.id,
    DELIVERY_DISABLE_AFTER,
    `disabled after ${DELIVERY_DISABLE_AFTER} failed deliveries in a row; the last: ${r.error}`,
    now(),
  );
  const resting = failures >= DELIVERY_REST_AFTER;
  if (resting && failures < DELIVERY_DISABLE_AFTER)
    await kind.restUntil(
      receiver.id,
      new Date(clock.now().getTime() + deliveryRestMs(failures)).toISOString(),
    );
  // A resting receiver ends this delivery too; one that used its attempts stays failed.
  const last = job.attempts >= DELIVERY_MAX_ATTEMPTS || resting;
  await kind.update(d.id, {
    status: last ? 'failed' : 'pending',
    responseStatus: r.status,
    durationMs: r.durationMs,
    error: r.error,
    attempts: job.attempts,
    finishedAt: last ? now() : null,
  });
  if (!last) throw new Error(r.error ?? 'delivery failed');
}
