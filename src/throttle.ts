/** A fixed-window request counter per key (GitLab throttles alert notifications per URL path). */
export class FixedWindowThrottle {
  private readonly windows = new Map<string, { start: number; count: number }>();

  /** Counts a request; returns the seconds to wait when over `limit` in `periodSeconds`, else 0. */
  hit(key: string, limit: number, periodSeconds: number, nowMs: number): number {
    const periodMs = periodSeconds * 1000;
    let w = this.windows.get(key);
    if (!w || nowMs - w.start >= periodMs) {
      w = { start: nowMs, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.prune(nowMs, periodMs);
    }
    w.count++;
    return w.count > limit ? Math.max(1, Math.ceil((w.start + periodMs - nowMs) / 1000)) : 0;
  }

  private prune(nowMs: number, periodMs: number): void {
    for (const [k, w] of this.windows) if (nowMs - w.start >= periodMs) this.windows.delete(k);
  }
}
