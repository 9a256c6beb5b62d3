import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Heartbeats and cron monitors: the silence that should page.
 * - `alert_heartbeats`: the heartbeat settings of an alert integration (a heartbeat integration, or a Prometheus
 *   integration whose Watchdog alert is the heartbeat) and its state; `deadline_at` is when the next call is due
 *   at the latest (interval plus grace after the last one).
 * - `cron_monitors` and `cron_checkins`: Sentry cron monitors of a project, upserted by the SDKs' check-ins, and
 *   their check-ins; `deadline_at` is when the next check-in is due at the latest (schedule plus margin).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .createTable('alert_heartbeats')
    .addColumn('integration_id', 'integer', (c) =>
      c.primaryKey().references('alert_integrations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('interval_seconds', 'integer', (c) => c.notNull())
    .addColumn('grace_seconds', 'integer', (c) => c.notNull())
    // Prometheus integrations: the alertname whose arrival counts as the call (Alertmanager's Watchdog).
    .addColumn('alertname', 'text')
    // waiting (no call yet), up, down (missed: its alert is open).
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp)
    .addColumn('deadline_at', t.timestamp)
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('cron_monitors'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    // crontab (schedule: the expression) or interval (schedule: the number, schedule_unit: minute .. year).
    .addColumn('schedule_type', 'text')
    .addColumn('schedule', 'text')
    .addColumn('schedule_unit', 'text')
    .addColumn('checkin_margin', 'integer')
    .addColumn('max_runtime', 'integer')
    .addColumn('timezone', 'text')
    // new, ok, error, missed, timeout: the outcome of the last check-in (or missed one).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('last_checkin_at', t.timestamp)
    .addColumn('deadline_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('cron_monitors_project_slug', ['project_id', 'slug'])
    .execute();

  await withId(db.schema.createTable('cron_checkins'), dialect)
    .addColumn('monitor_id', 'integer', (c) => c.notNull().references('cron_monitors.id').onDelete('cascade'))
    // The SDK's check_in_id (svc makes one for a missed check-in).
    .addColumn('check_in_id', 'text', (c) => c.notNull())
    // in_progress, ok, error, missed, timeout.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('duration', 'double precision')
    // An in_progress check-in past max_runtime times out then.
    .addColumn('timeout_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('cron_checkins_monitor_check_in', ['monitor_id', 'check_in_id'])
    .execute();
  await db.schema
    .createIndex('cron_checkins_monitor_created')
    .on('cron_checkins')
    .columns(['monitor_id', 'created_at'])
    .execute();
}
