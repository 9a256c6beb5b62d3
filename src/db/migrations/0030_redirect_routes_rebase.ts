import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * GitLab's `redirect_routes`: the old full paths of projects and namespaces (groups) after a transfer or a rename,
 * each pointing at what lived there (`source_type` 'Project' or 'Namespace', `source_id`). A path is redirected once
 * (unique, case-insensitively); a project or group that takes the path (or one below it) removes the redirect. The
 * source's deletion removes its redirects with it (no foreign key can name two tables: the services delete them).
 *
 * Merge requests get GitLab's `merge_error` (why the last rebase failed) and `rebase_jid` (the rebase job in
 * progress, none when null).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('redirect_routes'), dialect)
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'integer', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX redirect_routes_path ON redirect_routes (lower(path))`.execute(db);
  await db.schema
    .createIndex('redirect_routes_source')
    .on('redirect_routes')
    .columns(['source_type', 'source_id'])
    .execute();
  await db.schema.alterTable('merge_requests').addColumn('merge_error', 'text').execute();
  await db.schema.alterTable('merge_requests').addColumn('rebase_jid', 'text').execute();
}
