import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../test/helpers/clock.js';
import { databases } from '../../test/helpers/databases.js';
import { openTestDb } from '../../test/helpers/test-db.js';
import type { Db } from '../db/db.js';
import { JobQueue } from '../jobs/queue.js';
import { Outbox, type OutboxEvents } from './outbox.js';

const LEASE_MS = 600_000;
const alert = (iid: number): OutboxEvents['alert.changed'] => ({
  projectId: 1,
  alertId: iid,
  iid,
  event: 'new',
  at: '2026-01-01T00:00:00.000Z',
});

describe.each(await databases())('outbox (%s)', (kind) => {
  let opened: Awaited<ReturnType<typeof openTestDb>> | null = null;
  afterEach(async () => {
    await opened?.drop();
    opened = null;
  });

  async function setup(): Promise<{ db: Db; clock: TestClock }> {
    opened = await openTestDb(kind);
    return { db: opened.db, clock: new TestClock(new Date('2026-01-01T00:00:00Z')) };
  }

  /** A dispatcher as the composition root builds one: a queue, an outbox and handlers recording what they saw. */
  function dispatcher(db: Db, clock: TestClock, failOnce: Set<number> = new Set()) {
    const jobs = new JobQueue(db.kysely, db.dialect, clock, LEASE_MS);
    const outbox = new Outbox(db.kysely, jobs);
    const seen: string[] = [];
    const signals: string[] = [];
    outbox.on('alert.changed', 'notify', {
      handle: async (_trx, e) => {
        seen.push(`notify ${e.iid}`);
      },
    });
    outbox.on('alert.changed', 'page', {
      wants: async (_trx, e) => e.iid !== 3,
      handle: async (_trx, e) => {
        if (failOnce.delete(e.iid)) throw new Error(`page ${e.iid} failed`);
        seen.push(`page ${e.iid}`);
      },
    });
    outbox.afterCommit('alert.changed', () => signals.push('poke'));
    return { jobs, outbox, seen, signals };
  }

  it('dispatches after commit only, skips uninterested handlers, and retries a throwing handler alone', async () => {
    const { db, clock } = await setup();
    const { jobs, outbox, seen, signals } = dispatcher(db, clock, new Set([2]));
    await outbox.transaction(
      (fn) => db.kysely.transaction().execute(fn),
      async (_trx, w) => {
        for (const iid of [1, 2, 3]) await w.add('alert.changed', alert(iid));
      },
    );
    // A rolled-back transaction writes nothing.
    await expect(
      outbox.transaction(
        (fn) => db.kysely.transaction().execute(fn),
        async (_trx, w) => {
          await w.add('alert.changed', alert(9));
          throw new Error('rolled back');
        },
      ),
    ).rejects.toThrow('rolled back');
    expect(signals).toEqual(['poke']);
    // Five rows: notify 1, 2, 3 and page 1, 2 (page does not want 3).
    expect((await jobs.pending()).filter((j) => j.kind === 'outbox')).toHaveLength(5);
    await jobs.drain();
    expect(seen.sort()).toEqual(['notify 1', 'notify 2', 'notify 3', 'page 1']);
    const left = await jobs.pending();
    expect(left).toHaveLength(1);
    expect(left[0]!.lastError).toBe('page 2 failed');
    clock.advance(60_000);
    await jobs.drain();
    // Only the failed handler ran again: no second notification of alert 2.
    expect(seen.sort()).toEqual(['notify 1', 'notify 2', 'notify 3', 'page 1', 'page 2']);
    expect(await jobs.pending()).toEqual([]);
  });

  it('delivers events committed before a crash (never dispatched) through the next dispatcher', async () => {
    const { db, clock } = await setup();
    const first = dispatcher(db, clock);
    await first.outbox.transaction(
      (fn) => db.kysely.transaction().execute(fn),
      async (_trx, w) => {
        await w.add('alert.changed', alert(7));
      },
    );
    // The process dies here: nothing was dispatched. A new process starts with its own dispatcher.
    const second = dispatcher(db, clock);
    await second.jobs.drain();
    expect(second.seen.sort()).toEqual(['notify 7', 'page 7']);
    expect(first.seen).toEqual([]);
  });
});
