import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Geo sites and pending resyncs; audit events and their streaming destinations. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('geo_sites'), dialect)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('internal_url', 'text')
    .addColumn('primary', t.bool, (c) => c.notNull())
    .addColumn('enabled', t.bool, (c) => c.notNull())
    .addColumn('files_max_capacity', 'integer', (c) => c.notNull())
    .addColumn('repos_max_capacity', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('geo_resyncs')
    .addColumn('site_id', 'integer', (c) => c.notNull().references('geo_sites.id').onDelete('cascade'))
    .addColumn('container_type', 'text', (c) => c.notNull())
    .addColumn('container_id', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('geo_resyncs_pk', ['site_id', 'container_type', 'container_id'])
    .execute();

  await withId(db.schema.createTable('audit_events'), dialect)
    .addColumn('author_id', 'integer')
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'integer', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_events_entity')
    .on('audit_events')
    .columns(['entity_type', 'entity_id', 'id'])
    .execute();

  await withId(db.schema.createTable('audit_event_destinations'), dialect)
    .addColumn('destination_url', 'text', (c) => c.notNull())
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
}
