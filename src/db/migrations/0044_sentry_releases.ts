import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Sentry releases and artifact bundles, as `sentry-cli` makes them: a project's releases (version, when created
 * and finalized) and their commits; the artifact bundles uploaded for a project (minified files and source maps,
 * found by debug ID or by URL within a release) with each file's text; and the chunks an upload sends before the
 * bundle is assembled (per uploading user, base64 text, short-lived: not backed up).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('sentry_releases'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('date_released', t.timestamp)
    .execute();
  await db.schema
    .createIndex('sentry_releases_project_version')
    .on('sentry_releases')
    .columns(['project_id', 'version'])
    .unique()
    .execute();

  await withId(db.schema.createTable('sentry_release_commits'), dialect)
    .addColumn('release_id', 'integer', (c) =>
      c.notNull().references('sentry_releases.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('author_name', 'text')
    .addColumn('author_email', 'text')
    .addColumn('timestamp', t.timestamp)
    .execute();
  await db.schema
    .createIndex('sentry_release_commits_release')
    .on('sentry_release_commits')
    .columns(['release_id', 'position'])
    .execute();

  await withId(db.schema.createTable('sentry_artifact_bundles'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('bundle_id', 'text')
    .addColumn('release', 'text')
    .addColumn('dist', 'text')
    .addColumn('file_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sentry_artifact_bundles_project_checksum')
    .on('sentry_artifact_bundles')
    .columns(['project_id', 'checksum'])
    .unique()
    .execute();

  await withId(db.schema.createTable('sentry_artifact_files'), dialect)
    .addColumn('bundle_id', 'integer', (c) =>
      c.notNull().references('sentry_artifact_bundles.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('debug_id', 'text')
    .addColumn('sourcemap', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sentry_artifact_files_debug_id')
    .on('sentry_artifact_files')
    .columns(['project_id', 'debug_id'])
    .execute();
  await db.schema
    .createIndex('sentry_artifact_files_url')
    .on('sentry_artifact_files')
    .columns(['project_id', 'url'])
    .execute();

  await db.schema
    .createTable('sentry_upload_chunks')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('sentry_upload_chunks_pk', ['user_id', 'checksum'])
    .execute();
}
