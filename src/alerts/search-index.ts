import type { AlertsRepository } from './alerts.repository.js';

/** Alerts indexed per transaction: about 5 ms of work, so intake never waits long behind it. */
const BATCH = 500;
/** How long after new alerts commit they are indexed, at the latest (a search indexes them at once). */
const DELAY_MS = 1000;

/**
 * Keeps SQLite's alert search index (migration 0021) up to date off the intake's path: new alerts are indexed in
 * batches a moment after they commit (`poke`), and a search first indexes whatever is still pending
 * (`catchUp`), so its results are exact. One run at a time; callers share it. On PostgreSQL the index is
 * PostgreSQL's own and this does nothing.
 */
export class AlertSearchIndex {
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Where a failed background run is reported (the server sets its logger); the next poke tries again. */
  log: (msg: string, extra?: object) => void = () => undefined;

  constructor(private readonly repo: AlertsRepository) {}

  /** New alerts were committed: index them within DELAY_MS. */
  poke(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.catchUp().catch((err: unknown) =>
        this.log('alert search indexing failed', { error: String(err) }),
      );
    }, DELAY_MS);
    this.timer.unref();
  }

  /** Indexes every alert not indexed yet, in batches. */
  catchUp(): Promise<void> {
    this.running ??= (async () => {
      try {
        while (!this.stopped && (await this.repo.indexForSearch(BATCH)) > 0) {
          // Let waiting requests in between batches.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops indexing (the server stops): a batch in progress finishes; what is left waits for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
