import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { UnitOfWork } from '../unit-of-work.js';
import { GroupCommit, type Pause } from './group-commit.js';
import type { Outbox, OutboxWriter } from './outbox.js';
import { isRetryable } from './retry.js';

export type { Pause } from './group-commit.js';

/** What a unit of intake work gets: the batch's transaction and the writer of its outbox events. */
export interface IngestUnit {
  readonly trx: UnitOfWork;
  readonly outbox: OutboxWriter;
}

/**
 * The one intake core (alerts and errors): group commit (see GroupCommit: requests that arrive together share a
 * transaction, each answered once it committed, a failed batch run again unit by unit), the transaction, its
 * retry on a lost unique-index race, and the outbox events the units write, dispatched after commit.
 */
export class Ingest {
  private readonly writes: GroupCommit<IngestUnit>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly outbox: Outbox,
    opts: { maxBatch: number; attempts: number; concurrency?: number },
  ) {
    this.writes = new GroupCommit<IngestUnit>(
      (fn) => this.transaction(fn, opts.attempts),
      opts.maxBatch,
      opts.concurrency ?? 1,
    );
  }

  /** Runs `work` in the next batch's transaction; resolves with its result once that transaction committed. */
  submit<T>(work: (unit: IngestUnit, pause: Pause) => Promise<T>): Promise<T> {
    return this.writes.submit(work);
  }

  private async transaction<T>(fn: (unit: IngestUnit) => Promise<T>, attempts: number): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.outbox.transaction(
          (f) => this.db.transaction().execute(f),
          (trx, outbox) => fn({ trx, outbox }),
        );
      } catch (err) {
        if (!isRetryable(err) || attempt >= attempts) throw err;
      }
    }
  }
}
