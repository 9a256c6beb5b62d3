import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Notifications: the alert setting `send_email`, e-mails with their delivery state, project webhooks
 * and their deliveries, and error notification rules with the firings that keep a threshold from repeating.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .alterTable('project_alert_settings')
    .addColumn('send_email', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .execute();
  // When a resolved error was last seen again (a regression); the collector's upsert sets it in the same statement.
  await db.schema.alterTable('error_tracking_errors').addColumn('regressed_at', t.timestamp).execute();

  await withId(db.schema.createTable('notification_emails'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addColumn('body_html', 'text', (c) => c.notNull())
    // One e-mail per event and recipient, however often the job that writes it runs.
    .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('sent_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('notification_emails_project')
    .on('notification_emails')
    .columns(['project_id', 'id'])
    .execute();

  await withId(db.schema.createTable('project_hooks'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('token_encrypted', 'text')
    .addColumn('enable_ssl_verification', t.bool, (c) => c.notNull())
    .addColumn('alert_events', t.bool, (c) => c.notNull())
    .addColumn('error_tracking_events', t.bool, (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('project_hooks_project').on('project_hooks').column('project_id').execute();

  await withId(db.schema.createTable('hook_deliveries'), dialect)
    .addColumn('hook_id', 'integer', (c) => c.notNull().references('project_hooks.id').onDelete('cascade'))
    .addColumn('object_kind', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('finished_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('hook_deliveries_hook')
    .on('hook_deliveries')
    .columns(['hook_id', 'id'])
    .execute();

  await withId(db.schema.createTable('error_notification_rules'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('threshold_count', 'integer')
    .addColumn('threshold_minutes', 'integer')
    .addColumn('recipient_ids', 'text', (c) => c.notNull())
    .addColumn('webhook', t.bool, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_notification_rules_project')
    .on('error_notification_rules')
    .column('project_id')
    .execute();
}
