import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { ClusterRepository, ContainerKey } from './cluster.repository.js';

/** How often a process renews the heartbeat of its pushes in progress. */
export const PUSH_HEARTBEAT_MS = 5000;
/** A push whose process has not beaten for this long is taken as gone (the process was killed). */
export const PUSH_STALE_MS = 3 * PUSH_HEARTBEAT_MS;
/** How often a waiting move looks at the pushes of other processes. */
const POLL_MS = 100;

/**
 * Pushes in progress, by container, for storage moves: a move never starts copying while a push to the container
 * runs, and a push never starts once a move is scheduled. In this process they are counted in memory; with
 * `shared` (several processes on one PostgreSQL) each push is also a `git_pushes` row kept alive by a heartbeat,
 * so a move on any process sees pushes on every other, and a killed process's pushes stop counting after
 * `PUSH_STALE_MS`.
 *
 * Why the order matters: a push records itself first and then reads whether the container is read-only; a move
 * marks the container read-only first (when it is scheduled) and then waits for recorded pushes. Whichever comes
 * second sees the other, so a push either is refused or is waited for: never neither.
 */
export class PushTracker {
  private readonly owner = randomUUID();
  private readonly local = new Map<ContainerKey, number>();
  private readonly idle = new Map<ContainerKey, (() => void)[]>();
  private beat: NodeJS.Timeout | null = null;
  private lastSweep = 0;

  constructor(
    /** Null: memory only, no read-only recheck (unit tests). */
    private readonly repo: ClusterRepository | null,
    private readonly shared: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records a push to `container` and checks that the container is not read-only; returns the function that ends
   * the push, or null (nothing recorded) when a move has made the container read-only.
   */
  async begin(container: ContainerKey): Promise<(() => Promise<void>) | null> {
    this.local.set(container, (this.local.get(container) ?? 0) + 1);
    let row: number | null = null;
    const end = async () => {
      const left = (this.local.get(container) ?? 1) - 1;
      if (left > 0) this.local.set(container, left);
      else {
        this.local.delete(container);
        for (const wake of this.idle.get(container) ?? []) wake();
        this.idle.delete(container);
      }
      if (this.local.size === 0) this.stopBeating();
      if (row !== null) await this.repo!.endPush(row);
    };
    try {
      if (this.shared && this.repo) {
        const now = this.now();
        if (now - this.lastSweep > PUSH_STALE_MS) {
          this.lastSweep = now;
          await this.repo.sweepPushes(now - PUSH_STALE_MS);
        }
        row = await this.repo.beginPush(container, this.owner, now);
        this.startBeating();
      }
      if (this.repo && (await this.repo.readOnly(container))) {
        await end();
        return null;
      }
    } catch (err) {
      await end().catch(() => undefined);
      throw err;
    }
    let ended = false;
    return async () => {
      if (ended) return;
      ended = true;
      await end();
    };
  }

  /** Pushes to `container` in progress on this process. */
  running(container: ContainerKey): number {
    return this.local.get(container) ?? 0;
  }

  /**
   * Waits until no push to `container` runs on any process, at most `timeoutMs`: true when none is left, false when
   * one still runs then (a stalled client; the move then fails rather than wait forever).
   */
  async waitForNone(container: ContainerKey, timeoutMs: number): Promise<boolean> {
    const deadline = this.now() + timeoutMs;
    for (;;) {
      const left = deadline - this.now();
      if (this.local.has(container)) {
        if (left <= 0) return false;
        await this.localIdle(container, left);
        continue;
      }
      if (!this.shared || !this.repo) return true;
      if ((await this.repo.livePushes(container, this.now() - PUSH_STALE_MS)) === 0) return true;
      if (left <= 0) return false;
      await delay(Math.min(POLL_MS, left));
    }
  }

  /** Resolves when this process's pushes to `container` ended, or after `ms`. */
  private localIdle(container: ContainerKey, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.idle.set(container, [...(this.idle.get(container) ?? []), wake]);
    });
  }

  private startBeating(): void {
    if (this.beat) return;
    this.beat = setInterval(() => {
      void this.repo?.heartbeat(this.owner, this.now()).catch(() => undefined);
    }, PUSH_HEARTBEAT_MS);
    this.beat.unref();
  }

  private stopBeating(): void {
    if (this.beat) clearInterval(this.beat);
    this.beat = null;
  }
}
