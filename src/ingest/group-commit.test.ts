import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

/** A fake transaction log: each transaction's writes, kept only when it commits. */
function fakeDb() {
  const committed: string[][] = [];
  let open = 0;
  const transaction = async <T>(fn: (trx: string[]) => Promise<T>): Promise<T> => {
    const writes: string[] = [];
    open++;
    try {
      const out = await fn(writes);
      committed.push(writes);
      return out;
    } finally {
      open--;
    }
  };
  return { committed, transaction, open: () => open };
}

describe('GroupCommit', () => {
  it('runs work submitted together in one transaction and answers each caller after the commit', async () => {
    const db = fakeDb();
    const gc = new GroupCommit(db.transaction);
    const results = await Promise.all(
      ['a', 'b', 'c'].map((w) =>
        gc.submit(async (trx) => {
          trx.push(w);
          return `${w}:${db.committed.length}`;
        }),
      ),
    );
    expect(db.committed).toEqual([['a', 'b', 'c']]);
    // Each result was computed inside the (not yet committed) transaction and delivered after it committed.
    expect(results).toEqual(['a:0', 'b:0', 'c:0']);
  });

  it('reruns a failed batch one unit per transaction: only the failing caller sees the error', async () => {
    const db = fakeDb();
    const gc = new GroupCommit(db.transaction);
    const outcomes = await Promise.allSettled(
      ['a', 'bad', 'c'].map((w) =>
        gc.submit(async (trx) => {
          trx.push(w);
          if (w === 'bad') throw new Error('refused');
          return w;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.committed).toEqual([['a'], ['c']]);
  });

  it('keeps at most maxBatch units in a transaction and one batch in flight', async () => {
    const db = fakeDb();
    const gc = new GroupCommit(db.transaction, 2);
    let maxOpen = 0;
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        gc.submit(async (trx) => {
          maxOpen = Math.max(maxOpen, db.open());
          trx.push(String(n));
        }),
      ),
    );
    expect(db.committed).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(maxOpen).toBe(1);
  });
});
