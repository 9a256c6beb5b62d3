import { type DialectAdapter, sql } from 'kysely';
import { Prepared } from './prepared.js';
import type { Queryable } from './schema.js';

/** What a per-project internal id (`iid`) numbers. */
export type IidUsage = 'alerts' | 'issues' | 'merge_requests' | 'oncall_schedules';

type Upsert = Prepared<{ projectId: number; usage: IidUsage }, { last_value: number }>;

/**
 * The upsert, compiled once per database: alert intake allocates an iid for every new alert (and incident), where
 * building and compiling the Kysely query each time costs more than SQLite takes to run it. Keyed by the dialect
 * adapter, which a database's transactions share.
 */
const upserts = new WeakMap<DialectAdapter, Upsert>();

function upsert(db: Queryable): Upsert {
  const adapter = db.getExecutor().adapter;
  let q = upserts.get(adapter);
  if (!q) {
    q = new Prepared((p) =>
      db
        .insertInto('internal_ids')
        .values({ project_id: p('projectId'), usage: p('usage'), last_value: 1 })
        .onConflict((oc) =>
          oc.columns(['project_id', 'usage']).doUpdateSet({ last_value: sql`internal_ids.last_value + 1` }),
        )
        .returning('last_value'),
    );
    upserts.set(adapter, q);
  }
  return q;
}

/** Allocates the next per-project internal id for `usage` (atomic upsert on both databases). */
export async function nextIid(db: Queryable, projectId: number, usage: IidUsage): Promise<number> {
  const row = await upsert(db).first(db, { projectId, usage });
  if (!row) throw new Error('internal_ids upsert returned no row');
  return Number(row.last_value);
}
