import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * On-call schedule overrides (PagerDuty's and Grafana OnCall's): one user on call for [starts_at, ends_at) across the
 * whole schedule, whatever its rotations say; where overrides overlap, the one created last (the highest id) wins.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('oncall_overrides'), dialect)
    .addColumn('schedule_id', 'integer', (c) =>
      c.notNull().references('oncall_schedules.id').onDelete('cascade'),
    )
    // A deleted user's overrides go with them (nobody can be paged in their place).
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('starts_at', t.timestamp, (c) => c.notNull())
    .addColumn('ends_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  // Who is on call and the shifts read a schedule's overrides that end after an instant.
  await db.schema
    .createIndex('oncall_overrides_schedule_ends')
    .on('oncall_overrides')
    .columns(['schedule_id', 'ends_at'])
    .execute();
  await db.schema.createIndex('oncall_overrides_user').on('oncall_overrides').column('user_id').execute();
}
