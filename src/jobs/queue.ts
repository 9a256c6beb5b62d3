import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { DialectName } from '../db/dialect.js';
import { readTimestamp } from '../db/dialect.js';
import type { Database, Queryable } from '../db/schema.js';

/** A job as the worker hands it to its handler. */
export interface Job {
  readonly id: number;
  readonly kind: string;
  readonly payload: unknown;
  readonly attempts: number;
}

/** Runs one kind of job. Handlers are idempotent: a job may run again after a crash. */
export type JobHandler = (
  job: Job,
  ctx: {
    heartbeat(): Promise<void>;
    /** Whether the queue is stopping (the server shuts down): a long job may end early, or throw to be retried. */
    stopping(): boolean;
  },
) => Promise<void>;

/**
 * Which workers run a job. Each lane has workers of its own, so a lane full of slow jobs (webhook deliveries to a
 * receiver that never answers hold a worker until the outbound timeout) never delays another lane's:
 * - `urgent`: escalation pages, e-mails, the fan-out of alert and error events, the ingest outbox;
 * - `hooks`: deliveries to receivers outside (webhooks, audit event streams);
 * - `background`: the rest (retention, storage moves, deletions).
 */
export const JOB_LANES = ['urgent', 'hooks', 'background'] as const;
export type JobLane = (typeof JOB_LANES)[number];

const MAX_ATTEMPTS = 10;
/** Backoff after the n-th failure: 2^n seconds, at most an hour. */
export const backoffMs = (attempts: number) => Math.min(3_600_000, 1000 * 2 ** attempts);

/** Rows per multi-row insert (10 parameters a row: far below SQLite's 32766 and PostgreSQL's 65535). */
const ENQUEUE_CHUNK = 500;

/**
 * The durable job queue over the `jobs` table: enqueue inside the caller's transaction, claim with a lease
 * (`FOR UPDATE SKIP LOCKED` on PostgreSQL), heartbeat, retry with backoff, survive restarts.
 */
export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly lanes = new Map<string, JobLane>();
  private readonly workerId = randomUUID();
  /**
   * Claims and the jobs they claimed, in progress in this process, with the lane they claimed from (null: any);
   * each resolves to whether it ran a job.
   */
  private readonly inFlight = new Map<Promise<boolean>, JobLane | null>();
  private readonly sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
    private readonly clock: Clock,
    /** How long a claimed job stays with its worker without a heartbeat (a crashed worker's jobs return then). */
    private readonly leaseMs = 60_000,
    private readonly log: (msg: string, extra?: object) => void = () => undefined,
  ) {}

  /** Registers the handler of a kind and the lane its jobs run in (before any job of the kind is enqueued). */
  register(kind: string, handler: JobHandler, lane: JobLane = 'background'): void {
    this.handlers.set(kind, handler);
    this.lanes.set(kind, lane);
  }

  private laneOf(kind: string): JobLane {
    return this.lanes.get(kind) ?? 'background';
  }

  /** Enqueues a job (in `trx` when given); with `uniqueKey`, at most one pending job has that key. */
  async enqueue(
    kind: string,
    payload: unknown,
    opts: { runAt?: Date; uniqueKey?: string; trx?: Queryable } = {},
  ): Promise<void> {
    await this.enqueueMany(opts.trx ?? this.db, [
      { kind, payload, uniqueKey: opts.uniqueKey, runAt: opts.runAt },
    ]);
  }

  /**
   * Enqueues several jobs in one statement (in `trx`): a batch's outbox rows cost one round trip, not one each.
   * Chunked so that no statement exceeds the databases' bound-parameter limits.
   */
  async enqueueMany(
    trx: Queryable,
    jobs: readonly { kind: string; payload: unknown; uniqueKey?: string; runAt?: Date }[],
  ): Promise<void> {
    const now = this.clock.now();
    for (let i = 0; i < jobs.length; i += ENQUEUE_CHUNK) {
      await trx
        .insertInto('jobs')
        .values(
          jobs.slice(i, i + ENQUEUE_CHUNK).map((j) => ({
            kind: j.kind,
            lane: this.laneOf(j.kind),
            payload: JSON.stringify(j.payload ?? null),
            unique_key: j.uniqueKey ?? null,
            state: 'pending',
            run_at: (j.runAt ?? now).toISOString(),
            attempts: 0,
            locked_until: null,
            locked_by: null,
            last_error: null,
            created_at: now.toISOString(),
          })),
        )
        .onConflict((oc) => oc.column('unique_key').doNothing())
        .execute();
    }
  }

  /** Wakes sleeping workers now (work was just committed) instead of at their next poll. */
  wake(): void {
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.sleepers.clear();
  }

  /** Claims the next due job (of `lane`, or of any lane) for this worker, or null. */
  private async claim(lane: JobLane | null): Promise<Job | null> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const nowIso = now.toISOString();
    let due = this.db
      .selectFrom('jobs')
      .select('id')
      .where('state', '=', 'pending')
      .where('run_at', '<=', nowIso)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', nowIso)]))
      .orderBy('run_at')
      .limit(1);
    if (lane !== null) due = due.where('lane', '=', lane);
    const row = await this.db
      .updateTable('jobs')
      .set({ locked_until: until, locked_by: this.workerId, attempts: sql`attempts + 1` })
      .where('id', '=', (this.dialect === 'postgres' ? due.forUpdate().skipLocked() : due) as never)
      .returning(['id', 'kind', 'payload', 'attempts'])
      .executeTakeFirst();
    return row
      ? { id: row.id, kind: row.kind, payload: JSON.parse(row.payload) as unknown, attempts: row.attempts }
      : null;
  }

  private async runOne(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const heartbeat = async () => {
      const until = new Date(this.clock.now().getTime() + this.leaseMs).toISOString();
      await this.db
        .updateTable('jobs')
        .set({ locked_until: until })
        .where('id', '=', job.id)
        .where('locked_by', '=', this.workerId)
        .execute();
    };
    // Long jobs (a repository copy) keep their lease with a heartbeat a third of the lease apart.
    const beat = setInterval(() => void heartbeat().catch(() => undefined), Math.max(100, this.leaseMs / 3));
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job, { heartbeat, stopping: () => this.stopped });
      clearInterval(beat);
      await this.db.deleteFrom('jobs').where('id', '=', job.id).execute();
    } catch (err) {
      clearInterval(beat);
      const message = err instanceof Error ? err.message : String(err);
      const dead = job.attempts >= MAX_ATTEMPTS;
      this.log(dead ? 'job failed for good' : 'job failed, will retry', {
        id: job.id,
        kind: job.kind,
        attempts: job.attempts,
        error: message,
      });
      await this.db
        .updateTable('jobs')
        .set({
          state: dead ? 'dead' : 'pending',
          run_at: new Date(this.clock.now().getTime() + backoffMs(job.attempts)).toISOString(),
          locked_until: null,
          locked_by: null,
          last_error: message.slice(0, 2000),
        })
        .where('id', '=', job.id)
        .execute();
    }
  }

  /**
   * Runs due jobs (of `lane`, or of every lane) until none is left and no job of this process that could enqueue
   * one for it is still running (another worker's included); returns how many it ran itself. Tests call this
   * instead of sleeping.
   */
  async drain(lane: JobLane | null = null): Promise<number> {
    let n = 0;
    for (;;) {
      // A claim is in flight from before it reaches the database: another drain that finds nothing due then
      // waits for it (and for what its job enqueues) instead of returning while a claimed job is not yet running.
      const step = this.claim(lane).then(async (job) => {
        if (job) await this.runOne(job);
        return job !== null;
      });
      this.inFlight.set(step, lane);
      const ran = await step.finally(() => this.inFlight.delete(step));
      if (ran) {
        n++;
        continue;
      }
      // Nothing due now: wait for the other workers' claims and jobs in progress. Only a job that ran can have
      // enqueued another; when they all found nothing, neither will this (and returning then is what ends a round
      // of several workers, which would otherwise wait on each other's empty claims for ever). A lane's worker
      // waits only for its own lane (and lane-less drains): waiting for a hung webhook delivery would hold an
      // escalation page's worker as surely as running it.
      const others = [...this.inFlight]
        .filter(([, l]) => lane === null || l === null || l === lane)
        .map(([p]) => p);
      if (others.length === 0) return n;
      const settled = await Promise.allSettled(others);
      if (!settled.some((r) => r.status === 'fulfilled' && r.value === true)) return n;
    }
  }

  /**
   * Starts the workers: `concurrency` for each lane (a number: the same for all), each polling its lane for due
   * jobs every `intervalMs`.
   */
  start(intervalMs = 1000, concurrency: number | Readonly<Record<JobLane, number>> = 1): void {
    this.stopped = false;
    const loops: Promise<void>[] = [];
    for (const lane of JOB_LANES) {
      const workers = typeof concurrency === 'number' ? concurrency : concurrency[lane];
      for (let i = 0; i < workers; i++) {
        loops.push(
          (async () => {
            while (!this.stopped) {
              await this.drain(lane).catch((err: unknown) =>
                this.log('job worker error', { lane, error: String(err) }),
              );
              if (this.stopped) return;
              await this.sleep(intervalMs);
            }
          })(),
        );
      }
    }
    this.running = Promise.all(loops).then(() => undefined);
  }

  /** Waits `ms`, or until `stop()` wakes the workers. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve();
        }, ms),
        resolve,
      };
      this.sleepers.add(sleeper);
    });
  }

  /** Stops the workers and waits for the jobs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.sleepers.clear();
    await this.running;
  }

  /** Pending and dead jobs, for status and tests. */
  async pending(): Promise<
    { kind: string; lane: string; state: string; runAt: string; attempts: number; lastError: string | null }[]
  > {
    const rows = await this.db.selectFrom('jobs').selectAll().orderBy('run_at').execute();
    return rows.map((r) => ({
      kind: r.kind,
      lane: r.lane,
      state: r.state,
      runAt: readTimestamp(r.run_at),
      attempts: r.attempts,
      lastError: r.last_error,
    }));
  }
}
