import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Alert occurrences (one row per received firing, for the occurrences-over-time chart) and alert assignees
 * (GitLab's `alert_management_alert_assignees`). Alerts stored before this migration get one occurrence at their
 * start time: their repeats were only counted, never timed. Alert notes get `system` (comments are not).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('alert_events'), dialect)
    .addColumn('alert_id', 'integer', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('alert_events_alert')
    .on('alert_events')
    .columns(['alert_id', 'occurred_at'])
    .execute();
  await sql`INSERT INTO alert_events (alert_id, occurred_at) SELECT id, started_at FROM alerts`.execute(db);

  await db.schema
    .createTable('alert_assignees')
    .addColumn('alert_id', 'integer', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_assignees_pk', ['alert_id', 'user_id'])
    .execute();
  await db.schema.createIndex('alert_assignees_user').on('alert_assignees').column('user_id').execute();

  // Comments people write sit among the system notes (status changes, assignments): every note before this
  // migration was a system note.
  await db.schema
    .alterTable('alert_notes')
    .addColumn('system', t.bool, (c) => c.notNull().defaultTo(sql`true`))
    .execute();
}
