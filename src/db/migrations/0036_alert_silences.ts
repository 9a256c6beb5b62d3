import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Alert silences (Alertmanager's): matchers over an alert's labels and fields, active in [starts_at, ends_at).
 * Expiring one early sets ends_at to the moment it was expired, so it stays listed as expired.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('alert_silences'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // JSON: [{name, value, isRegex, isEqual}], as Alertmanager's API takes them.
    .addColumn('matchers', 'text', (c) => c.notNull())
    .addColumn('starts_at', t.timestamp, (c) => c.notNull())
    .addColumn('ends_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  // Each send asks for the project's silences that have not ended.
  await db.schema
    .createIndex('alert_silences_project_ends')
    .on('alert_silences')
    .columns(['project_id', 'ends_at'])
    .execute();
}
