import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Error tracking: settings, client keys, errors, events, session aggregates. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);

  await db.schema
    .createTable('error_tracking_settings')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('enabled', t.bool, (c) => c.notNull())
    .addColumn('integrated', t.bool, (c) => c.notNull())
    .addColumn('api_url', 'text')
    .addColumn('token_encrypted', 'text')
    .addColumn('project_name', 'text')
    .addColumn('organization_name', 'text')
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('error_tracking_client_keys'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('active', t.bool, (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_client_keys_project')
    .on('error_tracking_client_keys')
    .column('project_id')
    .execute();

  await withId(db.schema.createTable('error_tracking_errors'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('culprit', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('events_count', 'integer', (c) => c.notNull())
    .addColumn('users_count', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_seen_at', t.timestamp, (c) => c.notNull())
    .addColumn('first_release', 'text')
    .addColumn('last_release', 'text')
    .addColumn('environment', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('error_tracking_errors_fingerprint', ['project_id', 'fingerprint'])
    .execute();

  await withId(db.schema.createTable('error_tracking_events'), dialect)
    .addColumn('error_id', 'integer', (c) =>
      c.notNull().references('error_tracking_errors.id').onDelete('cascade'),
    )
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('release', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('user_key', 'text')
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_events_error')
    .on('error_tracking_events')
    .columns(['error_id', 'occurred_at'])
    .execute();
  await db.schema
    .createIndex('error_tracking_events_user')
    .on('error_tracking_events')
    .columns(['error_id', 'user_key'])
    .execute();
  await db.schema
    .createIndex('error_tracking_events_created')
    .on('error_tracking_events')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('error_tracking_sessions')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('release', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('started', 'integer', (c) => c.notNull())
    .addColumn('errored', 'integer', (c) => c.notNull())
    .addColumn('crashed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_tracking_sessions_pk', ['project_id', 'release', 'environment'])
    .execute();
}
