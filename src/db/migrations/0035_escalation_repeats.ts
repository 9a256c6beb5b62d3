import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * Escalation policies that do not give up (svc's additive fields; PagerDuty's `num_loops`, Grafana OnCall's
 * "repeat escalation"): `repeat` runs the rules again while the alert stays triggered, `ack_timeout_minutes` turns
 * an acknowledged alert nobody resolved in time back to triggered (null: never).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('escalation_policies')
    .addColumn('repeat', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('escalation_policies').addColumn('ack_timeout_minutes', 'integer').execute();
}
