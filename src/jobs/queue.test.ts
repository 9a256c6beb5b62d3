import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/helpers/clock.js';
import { databases } from '../../test/helpers/databases.js';
import { openTestDb } from '../../test/helpers/test-db.js';
import type { Db } from '../db/db.js';
import { backoffMs, type Job, JobQueue } from './queue.js';

/** A promise with its resolve function, to hold a handler until the test lets it go. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A lease no heartbeat timer renews while a test runs (the timer fires every third of it, in real time). */
const LEASE_MS = 600_000;

describe.each(await databases())('job queue (%s)', (kind) => {
  let opened: Awaited<ReturnType<typeof openTestDb>> | null = null;
  afterEach(async () => {
    await opened?.drop();
    opened = null;
  });

  /** A fresh database, a clock standing still, and a worker on them. */
  async function setup(): Promise<{ db: Db; clock: TestClock; worker: () => JobQueue }> {
    opened = await openTestDb(kind);
    const { db } = opened;
    const clock = new TestClock(new Date('2026-01-01T00:00:00Z'));
    return { db, clock, worker: () => new JobQueue(db.kysely, db.dialect, clock, LEASE_MS) };
  }

  it('several workers with nothing to do go to sleep, and a drain beside them waits for the job one of them claimed', async () => {
    const { worker } = await setup();
    const q = worker();
    const held = deferred();
    const ran: string[] = [];
    q.register('held', async () => {
      await held.promise;
      ran.push('held');
      await q.enqueue('next', {});
    });
    q.register('next', async () => {
      ran.push('next');
    });
    q.start(60_000, 10);
    // Ten idle workers must let the event loop run (on SQLite every query settles in microtasks: workers that
    // waited on each other's empty claims once spun for ever and starved it).
    await new Promise((r) => setTimeout(r, 20));
    await q.enqueue('held', {});
    // A drain started while no worker has claimed the job yet runs it itself or waits for the worker that did,
    // and for the job that one enqueues.
    const drained = q.drain();
    await new Promise((r) => setTimeout(r, 20));
    held.resolve();
    await drained;
    expect(ran).toEqual(['held', 'next']);
    await q.stop();
  });

  it('backs off 2^n seconds after the n-th failure (at most an hour) and keeps the error', async () => {
    expect([1, 2, 3, 11, 12, 20].map(backoffMs)).toEqual([
      2_000, 4_000, 8_000, 2_048_000, 3_600_000, 3_600_000,
    ]);
    const { clock, worker } = await setup();
    const q = worker();
    const runs: number[] = [];
    q.register('flaky', async (job) => {
      runs.push(job.attempts);
      throw new Error(`failure ${job.attempts}`);
    });
    await q.enqueue('flaky', { n: 1 });
    expect(await q.drain()).toBe(1);
    const t0 = clock.now().getTime();
    expect(await q.pending()).toEqual([
      {
        kind: 'flaky',
        lane: 'background',
        state: 'pending',
        runAt: new Date(t0 + backoffMs(1)).toISOString(),
        attempts: 1,
        lastError: 'failure 1',
      },
    ]);
    // Not due a millisecond before its backoff ends; due at its end.
    clock.advance(backoffMs(1) - 1);
    expect(await q.drain()).toBe(0);
    clock.advance(1);
    expect(await q.drain()).toBe(1);
    expect(await q.pending()).toMatchObject([
      {
        state: 'pending',
        attempts: 2,
        lastError: 'failure 2',
        runAt: new Date(t0 + 2_000 + 4_000).toISOString(),
      },
    ]);
    expect(runs).toEqual([1, 2]);
  });

  it('gives a job up as dead after ten tries, and never runs it again', async () => {
    const { clock, worker } = await setup();
    const q = worker();
    let runs = 0;
    q.register('doomed', async () => {
      runs++;
      throw new Error('still broken');
    });
    await q.enqueue('doomed', null);
    for (let attempt = 1; attempt <= 10; attempt++) {
      expect(await q.drain(), `attempt ${attempt}`).toBe(1);
      const [job] = await q.pending();
      expect(job).toMatchObject({ attempts: attempt, state: attempt < 10 ? 'pending' : 'dead' });
      clock.advance(backoffMs(attempt));
    }
    clock.advance(24 * 3_600_000);
    expect(await q.drain()).toBe(0);
    expect(runs).toBe(10);
    expect(await q.pending()).toEqual([
      expect.objectContaining({ kind: 'doomed', state: 'dead', attempts: 10, lastError: 'still broken' }),
    ]);
  });

  /**
   * Makes `q`'s handler of `copy` a worker that logs `<name>:<attempt>`, keeps its heartbeat, and holds the job until
   * the test releases it (a worker busy with a long copy, or one that crashed: it never beats on its own).
   */
  function holding(q: JobQueue, name: string, log: string[]) {
    const started = deferred();
    const held = deferred();
    let beat: (() => Promise<void>) | null = null;
    q.register('copy', async (job: Job, ctx) => {
      log.push(`${name}:${job.attempts}`);
      beat = ctx.heartbeat;
      started.resolve();
      await held.promise;
    });
    return { started: started.promise, release: held.resolve, beat: () => beat!() };
  }

  it('lets another worker take a job over once its lease ran out without a heartbeat (a crashed worker)', async () => {
    const { clock, worker } = await setup();
    const a = worker();
    const b = worker();
    const ranBy: string[] = [];
    const held = holding(a, 'a', ranBy);
    b.register('copy', async (job: Job) => {
      ranBy.push(`b:${job.attempts}`);
    });
    await a.enqueue('copy', { id: 7 });
    const aDrain = a.drain();
    await held.started;
    // A holds the lease: B finds nothing to do, even a moment before the lease ends.
    expect(await b.drain()).toBe(0);
    clock.advance(LEASE_MS - 1);
    expect(await b.drain()).toBe(0);
    // A went silent for longer than the lease: B takes the job over (its second attempt) and finishes it.
    clock.advance(2);
    expect(await b.drain()).toBe(1);
    expect(ranBy).toEqual(['a:1', 'b:2']);
    expect(await b.pending()).toEqual([]);
    held.release();
    await aDrain;
    expect(await a.pending()).toEqual([]);
  });

  it('keeps a job with its worker while the handler heartbeats past the first lease', async () => {
    const { clock, worker } = await setup();
    const a = worker();
    const b = worker();
    const ranBy: string[] = [];
    const held = holding(a, 'a', ranBy);
    b.register('copy', async () => {
      ranBy.push('b');
    });
    await a.enqueue('copy', null);
    const aDrain = a.drain();
    await held.started;
    // Most of the lease gone, A beats: its lease runs a whole lease from now.
    clock.advance(LEASE_MS - 1_000);
    await held.beat();
    clock.advance(2_000);
    expect(await b.drain()).toBe(0);
    clock.advance(LEASE_MS - 3_000);
    expect(await b.drain()).toBe(0);
    held.release();
    await aDrain;
    expect(ranBy).toEqual(['a:1']);
    expect(await a.pending()).toEqual([]);
  });

  it('ignores the heartbeat of a worker whose job was taken over', async () => {
    const { clock, worker } = await setup();
    const [a, b, c] = [worker(), worker(), worker()];
    const ranBy: string[] = [];
    const heldA = holding(a, 'a', ranBy);
    const heldB = holding(b, 'b', ranBy);
    c.register('copy', async (job) => {
      ranBy.push(`c:${job.attempts}`);
    });
    await a.enqueue('copy', null);
    const aDrain = a.drain();
    await heldA.started;
    clock.advance(LEASE_MS + 1);
    const bDrain = b.drain();
    await heldB.started;
    // A wakes up and beats: the job is B's now, so B's lease stands and runs out on time.
    clock.advance(LEASE_MS - 1_000);
    await heldA.beat();
    expect(await c.drain()).toBe(0);
    clock.advance(1_001);
    expect(await c.drain()).toBe(1);
    expect(ranBy).toEqual(['a:1', 'b:2', 'c:3']);
    heldA.release();
    heldB.release();
    await Promise.all([aDrain, bDrain]);
  });
});
