/** Most keys whose windows are kept at once (memory stays bounded whatever arrives). */
export const THROTTLE_MAX_ENTRIES = 10_000;

/**
 * A fixed-window request counter per key: alert notifications per integration (GitLab's
 * `throttle_incident_management_notification_*`), collector events per client key. Bounded: a window is dropped
 * once its period is over, and past `maxEntries` keys the oldest windows go first (those keys start afresh).
 */
export class FixedWindowThrottle<K extends string | number = string | number> {
  /** Insertion order is window start order: a window that restarts is deleted and inserted again. */
  private readonly windows = new Map<K, { start: number; end: number; count: number }>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly maxEntries: number = THROTTLE_MAX_ENTRIES) {}

  /** How many windows are held. */
  get size(): number {
    return this.windows.size;
  }

  /** Counts a request; returns the seconds to wait when over `limit` in `periodSeconds`, else 0. */
  hit(key: K, limit: number, periodSeconds: number, nowMs: number): number {
    const periodMs = periodSeconds * 1000;
    let w = this.windows.get(key);
    if (w && nowMs - w.start >= periodMs) {
      this.windows.delete(key);
      w = undefined;
    }
    if (!w) {
      this.evict(nowMs, periodMs);
      w = { start: nowMs, end: nowMs + periodMs, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return w.count > limit ? Math.max(1, Math.ceil((w.start + periodMs - nowMs) / 1000)) : 0;
  }

  /** Without counting: the seconds to wait when `key`'s open window already holds `limit` requests, else 0. */
  peek(key: K, limit: number, nowMs: number): number {
    const w = this.windows.get(key);
    if (!w || w.count < limit) return 0;
    const left = w.end - nowMs;
    return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : 0;
  }

  /**
   * Drops ended windows (from the oldest on) at most once a period; when the map is full, also the oldest tenth
   * of the open ones. One sweep per period or per tenth of the cap, never one per request.
   */
  private evict(nowMs: number, periodMs: number): void {
    const full = this.windows.size >= this.maxEntries;
    if (!full && nowMs - this.lastSweep < periodMs) return;
    this.lastSweep = nowMs;
    const keep = full ? Math.floor(this.maxEntries * 0.9) : this.maxEntries;
    for (const [k, w] of this.windows) {
      if (nowMs - w.start < periodMs && this.windows.size <= keep) return;
      this.windows.delete(k);
    }
  }
}
