import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Triage of errors: an assignee, Sentry's resolution in a release (GroupResolution: `in_release` a named one,
 * `in_next_release` any newer than the latest when it was resolved; the release's first-seen time is kept so that
 * later retention cannot move it) and its conditional ignore (GroupSnooze: until a time, for N more events or N
 * more users, counted from the error's counts when it was ignored), and the activity of each error: status changes,
 * assignments, merges, regressions and comments, with who and when.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  let errors = db.schema
    .alterTable('error_tracking_errors')
    .addColumn('assignee_id', 'integer', (c) => c.references('users.id').onDelete('set null'));
  // SQLite adds one column a statement.
  await errors.execute();
  for (const [name, type] of [
    ['resolution_type', 'text'],
    ['resolved_in_release', 'text'],
    ['resolution_release_seen_at', t.timestamp],
    ['ignore_until', t.timestamp],
    ['ignore_count', 'integer'],
    ['ignore_events_base', 'integer'],
    ['ignore_user_count', 'integer'],
    ['ignore_users_base', 'integer'],
  ] as const) {
    errors = db.schema.alterTable('error_tracking_errors').addColumn(name, type);
    await errors.execute();
  }
  await db.schema
    .createIndex('error_tracking_errors_ignore_until')
    .on('error_tracking_errors')
    .columns(['project_id', 'ignore_until'])
    .execute();
  // A release's first sighting in a project (the release order), read without visiting the project's events.
  await db.schema
    .createIndex('error_tracking_events_release')
    .on('error_tracking_events')
    .columns(['project_id', 'release', 'created_at'])
    .execute();
  await withId(db.schema.createTable('error_tracking_activities'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('error_id', 'integer', (c) =>
      c.notNull().references('error_tracking_errors.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', 'text')
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('error_tracking_activities_error')
    .on('error_tracking_activities')
    .columns(['error_id', 'id'])
    .execute();
}
