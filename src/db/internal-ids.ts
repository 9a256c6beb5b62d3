import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What a per-project internal id (`iid`) numbers. */
export type IidUsage = 'alerts' | 'issues' | 'merge_requests' | 'oncall_schedules';

/** Allocates the next per-project internal id for `usage` (atomic upsert on both databases). */
export async function nextIid(
  db: Kysely<Database> | Transaction<Database>,
  projectId: number,
  usage: IidUsage,
): Promise<number> {
  const row = await db
    .insertInto('internal_ids')
    .values({ project_id: projectId, usage, last_value: 1 })
    .onConflict((oc) =>
      oc.columns(['project_id', 'usage']).doUpdateSet({ last_value: sql`internal_ids.last_value + 1` }),
    )
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return row.last_value;
}
