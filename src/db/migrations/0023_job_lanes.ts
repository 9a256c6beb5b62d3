import { type Kysely, sql } from 'kysely';

/**
 * Lanes in the job queue: each lane has workers of its own, so that slow webhook deliveries (a receiver that never
 * answers holds a worker until the outbound timeout) cannot take the workers that send escalation pages and
 * e-mails. The jobs already queued are sorted into their lanes by kind (the kinds as they were named then).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('lane', 'text', (c) => c.notNull().defaultTo('background'))
    .execute();
  await sql`UPDATE jobs SET lane = 'urgent' WHERE kind IN
    ('escalation_page', 'notify_send_email', 'notify_alert_event', 'notify_error_event', 'outbox')`.execute(
    db,
  );
  await sql`UPDATE jobs SET lane = 'hooks' WHERE kind IN ('notify_hook_delivery', 'audit_event_stream')`.execute(
    db,
  );
  await db.schema.createIndex('jobs_lane_due').on('jobs').columns(['lane', 'state', 'run_at']).execute();
}
