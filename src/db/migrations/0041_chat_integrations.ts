import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Chat integrations (GitLab's Slack, Mattermost, Microsoft Teams, Discord, Telegram, Google Chat and Webex Teams
 * integrations): at most one of each per project, its secret (the webhook URL, or Telegram's bot token) encrypted,
 * the other settings as JSON; their deliveries as hooks have theirs. An escalation rule may page one.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('chat_integrations'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('active', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(true)))
    .addColumn('secret_encrypted', 'text', (c) => c.notNull())
    // JSON: the service's non-secret fields (username, channel, room, thread, branches_to_be_notified ...).
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('alert_events', t.bool, (c) => c.notNull())
    .addColumn('incident_events', t.bool, (c) => c.notNull())
    .addColumn('error_tracking_events', t.bool, (c) => c.notNull())
    .addColumn('page_events', t.bool, (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_until', t.timestamp)
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('chat_integrations_project_slug', ['project_id', 'slug'])
    .execute();
  await withId(db.schema.createTable('chat_deliveries'), dialect)
    .addColumn('integration_id', 'integer', (c) =>
      c.notNull().references('chat_integrations.id').onDelete('cascade'),
    )
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    // JSON: the message as the service receives it (never the secret: the URL is not part of it).
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
    .createIndex('chat_deliveries_integration')
    .on('chat_deliveries')
    .columns(['integration_id', 'id'])
    .execute();
  // A rule pages a chat integration (its channel) instead of a schedule or a user.
  await db.schema
    .alterTable('escalation_rules')
    .addColumn('chat_integration_id', 'integer', (c) =>
      c.references('chat_integrations.id').onDelete('cascade'),
    )
    .execute();
}
