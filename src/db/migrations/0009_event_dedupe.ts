import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Sentry events are deduplicated per project by `event_id` (as Sentry and GlitchTip do: an SDK that retries
 * must not count twice). Events get their project, existing duplicates are folded into the first copy, and a
 * unique index (project_id, event_id) enforces it from now on, on both databases.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('error_tracking_events')
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .execute();
  await sql`UPDATE error_tracking_events SET project_id = (
      SELECT e.project_id FROM error_tracking_errors e WHERE e.id = error_tracking_events.error_id)`.execute(
    db,
  );
  const keep = sql`SELECT min(id) FROM error_tracking_events GROUP BY project_id, event_id`;
  const affected = await sql<{ error_id: number }>`SELECT DISTINCT error_id FROM error_tracking_events
      WHERE id NOT IN (${keep})`.execute(db);
  if (affected.rows.length > 0) {
    await sql`DELETE FROM error_tracking_events WHERE id NOT IN (${keep})`.execute(db);
    for (const { error_id } of affected.rows) {
      await sql`UPDATE error_tracking_errors SET events_count = (
          SELECT count(*) FROM error_tracking_events WHERE error_id = ${error_id}) WHERE id = ${error_id}`.execute(
        db,
      );
      await sql`DELETE FROM error_tracking_errors WHERE id = ${error_id}
          AND NOT EXISTS (SELECT 1 FROM error_tracking_events WHERE error_id = ${error_id})`.execute(db);
    }
  }
  await db.schema
    .createIndex('error_tracking_events_project_event')
    .on('error_tracking_events')
    .columns(['project_id', 'event_id'])
    .unique()
    .execute();
}
