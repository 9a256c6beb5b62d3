import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Maintenance windows (PagerDuty's): a planned period, active in [starts_at, ends_at), that silences a whole
 * project or, with `integration_id`, the alerts of one integration. Ending one early sets ends_at to that moment.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('maintenance_windows'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // A window over an integration goes with it.
    .addColumn('integration_id', 'integer', (c) => c.references('alert_integrations.id').onDelete('cascade'))
    .addColumn('starts_at', t.timestamp, (c) => c.notNull())
    .addColumn('ends_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  // Each send asks for the project's windows that have not ended.
  await db.schema
    .createIndex('maintenance_windows_project_ends')
    .on('maintenance_windows')
    .columns(['project_id', 'ends_at'])
    .execute();
}
