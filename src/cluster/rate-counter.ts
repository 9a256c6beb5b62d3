import type { Clock } from '../clock.js';
import { FixedWindowThrottle } from '../throttle.js';
import type { ClusterRepository } from './cluster.repository.js';

/**
 * Fixed-window request counters by key (alert notifications per integration, collector events per client key,
 * failed sign-ins per client address). `LocalRateCounter` counts in this process's memory (one process: SQLite);
 * `SharedRateCounter` in the database, so every process on it gives the same answer.
 */
export interface RateCounter {
  /** Counts `n` hits on `key`; the seconds to wait when its window then holds more than `limit`, else 0. */
  hit(key: string, n: number, limit: number, periodSeconds: number): Promise<number>;
  /** Without counting: the seconds to wait when the window of `key` already holds `limit` hits or more, else 0. */
  check(key: string, limit: number): Promise<number>;
}

/** Counts in memory, bounded (see `FixedWindowThrottle`). */
export class LocalRateCounter implements RateCounter {
  private readonly throttle = new FixedWindowThrottle<string>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, n: number, limit: number, periodSeconds: number): Promise<number> {
    const now = this.clock.now().getTime();
    for (let i = 0; i < n; i++) {
      const wait = this.throttle.hit(key, limit, periodSeconds, now);
      if (wait > 0) return wait;
    }
    return 0;
  }

  async check(key: string, limit: number): Promise<number> {
    return this.throttle.peek(key, limit, this.clock.now().getTime());
  }
}

/** How often a process deletes ended windows (the table holds only open windows plus at most this much). */
const SWEEP_MS = 60_000;

/**
 * Counts in the database (`rate_limit_windows`, one atomic upsert per request counted): whichever process a
 * request reaches, it sees every other process's hits. Nothing is held in memory; ended windows are deleted by
 * whichever process sweeps first, at most once a minute each.
 */
export class SharedRateCounter implements RateCounter {
  private lastSweep = 0;

  constructor(
    private readonly repo: ClusterRepository,
    private readonly clock: Clock,
  ) {}

  async hit(key: string, n: number, limit: number, periodSeconds: number): Promise<number> {
    if (n <= 0) return 0;
    const now = this.clock.now().getTime();
    await this.sweep(now);
    const w = await this.repo.hit(key, n, periodSeconds * 1000, now);
    return w.count > limit ? Math.max(1, Math.ceil((w.endsAt - now) / 1000)) : 0;
  }

  async check(key: string, limit: number): Promise<number> {
    const now = this.clock.now().getTime();
    const w = await this.repo.window(key, now);
    return w && w.count >= limit ? Math.max(1, Math.ceil((w.endsAt - now) / 1000)) : 0;
  }

  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < SWEEP_MS) return;
    this.lastSweep = now;
    await this.repo.sweepWindows(now);
  }
}
