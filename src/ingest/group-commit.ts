import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Longest a batch runs on the event loop without giving it back: SQLite answers synchronously, so a batch's
 * queries would otherwise run as one chain of microtasks and hold every other request until the last one.
 */
const SLICE_MS = 4;

/** Lets a unit of work give the event loop back when the batch has held it for a while (see SLICE_MS). */
export type Pause = () => Promise<void>;

interface Pending<Trx> {
  readonly work: (trx: Trx, pause: Pause) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Group commit: units of work submitted together run one after the other in one transaction, and each caller's
 * promise settles only after that transaction committed (so an answer still means "committed"). Work arriving
 * while a batch runs waits for the next one, which then carries everything that queued meanwhile. When a batch
 * fails, its units run again one by one, each in its own transaction, so that one bad unit fails only its own
 * caller. A unit may therefore run more than once: it must only touch the database through `trx`.
 */
export class GroupCommit<Trx> {
  private readonly queue: Pending<Trx>[] = [];
  private running = 0;
  private scheduled = false;

  /**
   * @param transaction runs a function in one transaction (retrying it when the caller wants that).
   * @param maxBatch most units in one transaction.
   * @param concurrency batches in flight at once (1 on SQLite, whose one connection serialises them anyway).
   */
  constructor(
    private readonly transaction: <T>(fn: (trx: Trx) => Promise<T>) => Promise<T>,
    private readonly maxBatch = 64,
    private readonly concurrency = 1,
  ) {}

  /** Runs `work` in the next batch's transaction; resolves with its result once that transaction committed. */
  submit<T>(work: (trx: Trx, pause: Pause) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.concurrency || this.queue.length === 0) return;
    this.scheduled = true;
    // One turn of the event loop first: requests that arrived together join this batch.
    setImmediate(() => {
      this.scheduled = false;
      if (this.running >= this.concurrency) return;
      const batch = this.queue.splice(0, this.maxBatch);
      if (batch.length === 0) return;
      this.running++;
      void this.flush(batch).finally(() => {
        this.running--;
        this.schedule();
      });
      this.schedule();
    });
  }

  private async flush(batch: Pending<Trx>[]): Promise<void> {
    let sliceStart = performance.now();
    const pause: Pause = async () => {
      if (performance.now() - sliceStart < SLICE_MS) return;
      await nextTurn();
      sliceStart = performance.now();
    };
    try {
      const results = await this.transaction(async (trx) => {
        const out: unknown[] = [];
        for (const p of batch) {
          await pause();
          out.push(await p.work(trx, pause));
        }
        return out;
      });
      for (const [i, p] of batch.entries()) p.resolve(results[i]);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const p of batch) {
        await this.transaction((trx) => p.work(trx, pause)).then(p.resolve, p.reject);
      }
    }
  }
}
