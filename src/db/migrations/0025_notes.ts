import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Notes as GitLab keeps them: one table for the comments and system notes of every kind of noteable, told apart by
 * `noteable_type` ('MergeRequest' now; 'Issue' next) and `noteable_id` (the noteable's id, not its iid). No foreign
 * key can name two tables, so the noteable's service deletes its notes with it; the project's deletion cascades.
 * System notes are attributed to the user whose action they record (GitLab's rule); a deleted user leaves the note
 * without author.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('notes'), dialect)
    .addColumn('noteable_type', 'text', (c) => c.notNull())
    .addColumn('noteable_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('system', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .addColumn('internal', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  // Every read is one noteable's notes, in creation (id) order or by updated_at.
  await db.schema
    .createIndex('notes_noteable')
    .on('notes')
    .columns(['noteable_type', 'noteable_id', 'id'])
    .execute();
  await db.schema.createIndex('notes_project').on('notes').column('project_id').execute();
}
