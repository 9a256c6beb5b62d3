import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * What SDKs send besides events, kept so that nothing is silently lost: user feedback (linked to its event by the
 * event's id, whichever arrives first), attachments (their bytes as base64 text, so that backups, which are JSON
 * lines of rows, carry them), the per-project attachment size limit, and counts of the items svc does not keep.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .alterTable('error_tracking_settings')
    .addColumn('max_attachment_size', 'integer', (c) => c.notNull().defaultTo(1024 * 1024))
    .execute();
  await withId(db.schema.createTable('error_tracking_feedback'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('event_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('comments', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_feedback_event')
    .on('error_tracking_feedback')
    .columns(['project_id', 'event_id'])
    .execute();
  await withId(db.schema.createTable('error_tracking_attachments'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('attachment_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_attachments_event')
    .on('error_tracking_attachments')
    .columns(['project_id', 'event_id'])
    .execute();
  await db.schema
    .createTable('error_tracking_dropped_items')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('item_type', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_tracking_dropped_items_pk', ['project_id', 'item_type'])
    .execute();
}
