import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Versioned grouping (as Sentry's grouphashes): each grouping hash leads to one error and records the grouping
 * version that computed it. Errors record the version they were created with, events the hash that brought them
 * (unmerge moves events by it). Existing errors keep their group: their fingerprint (a hash of the grouping before,
 * `culprit:1`) becomes their first hash, and their events get it as their hash.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .alterTable('error_tracking_errors')
    .addColumn('grouping_version', 'text', (c) => c.notNull().defaultTo('culprit:1'))
    .execute();
  await withId(db.schema.createTable('error_tracking_error_hashes'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('error_id', 'integer', (c) =>
      c.notNull().references('error_tracking_errors.id').onDelete('cascade'),
    )
    .addColumn('grouping_version', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('error_tracking_error_hashes_hash', ['project_id', 'hash'])
    .execute();
  await db.schema
    .createIndex('error_tracking_error_hashes_error')
    .on('error_tracking_error_hashes')
    .column('error_id')
    .execute();
  await db.schema.alterTable('error_tracking_events').addColumn('grouping_hash', 'text').execute();
  await sql`INSERT INTO error_tracking_error_hashes (project_id, hash, error_id, grouping_version, created_at)
      SELECT project_id, fingerprint, id, 'culprit:1', created_at FROM error_tracking_errors`.execute(db);
  await sql`UPDATE error_tracking_events SET grouping_hash = (
      SELECT e.fingerprint FROM error_tracking_errors e WHERE e.id = error_tracking_events.error_id)`.execute(
    db,
  );
}
