import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes } from './helpers.js';

/**
 * Error rules' action interval (Sentry's): a rule notifies about one error at most once per
 * `action_interval_minutes` (30 by default, Sentry's default), and `error_rule_firings` records when each rule
 * last fired for each error. The firings belong to the running instance, like jobs: not backed up (a restored
 * rule may notify once more).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .alterTable('error_notification_rules')
    .addColumn('action_interval_minutes', 'integer', (c) => c.notNull().defaultTo(30))
    .execute();
  await db.schema
    .createTable('error_rule_firings')
    .addColumn('rule_id', 'integer', (c) =>
      c.notNull().references('error_notification_rules.id').onDelete('cascade'),
    )
    .addColumn('error_id', 'integer', (c) =>
      c.notNull().references('error_tracking_errors.id').onDelete('cascade'),
    )
    // The event that fired it: the same event's job, run again after a crash, still notifies.
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('fired_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('error_rule_firings_pk', ['rule_id', 'error_id'])
    .execute();
}
