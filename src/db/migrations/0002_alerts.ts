import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Alert integrations, alerts, alert notes, per-project alert settings, issues (incidents), internal ids. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);

  // Per-project counters for iids (alerts, issues): one atomic upsert per allocation on both databases.
  await db.schema
    .createTable('internal_ids')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('last_value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('internal_ids_pk', ['project_id', 'usage'])
    .execute();

  await withId(db.schema.createTable('alert_integrations'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('active', t.bool, (c) => c.notNull())
    .addColumn('endpoint_identifier', 'text', (c) => c.notNull())
    .addColumn('token_encrypted', 'text', (c) => c.notNull())
    .addColumn('api_url', 'text')
    .addColumn('payload_example', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('payload_attribute_mapping', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('alert_integrations_endpoint', ['project_id', 'endpoint_identifier'])
    .execute();

  await withId(db.schema.createTable('alerts'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('integration_id', 'integer', (c) => c.references('alert_integrations.id').onDelete('set null'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', t.timestamp, (c) => c.notNull())
    .addColumn('ended_at', t.timestamp)
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('fingerprint', 'text')
    .addColumn('hosts', 'text', (c) => c.notNull())
    .addColumn('service', 'text')
    .addColumn('monitoring_tool', 'text')
    .addColumn('environment', 'text')
    .addColumn('runbook', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('incident_iid', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('alerts_project_iid', ['project_id', 'iid'])
    .execute();
  // At most one unresolved alert per fingerprint and project: concurrent identical requests cannot both insert.
  await sql`CREATE UNIQUE INDEX alerts_open_fingerprint ON alerts (project_id, fingerprint) WHERE status <> 'resolved' AND fingerprint IS NOT NULL`.execute(
    db,
  );
  await db.schema
    .createIndex('alerts_project_status')
    .on('alerts')
    .columns(['project_id', 'status'])
    .execute();

  await withId(db.schema.createTable('alert_notes'), dialect)
    .addColumn('alert_id', 'integer', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_notes_alert').on('alert_notes').column('alert_id').execute();

  await db.schema
    .createTable('project_alert_settings')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('create_incident', t.bool, (c) => c.notNull())
    .addColumn('auto_close_incident', t.bool, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('issues'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('issue_type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('closed_at', t.timestamp)
    .addUniqueConstraint('issues_project_iid', ['project_id', 'iid'])
    .execute();
}
