import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { withId } from './helpers.js';

/**
 * State that several svc processes on one database share: rate-limit windows counted in the database, so
 * every process gives the same answer, and the pushes in progress on any process, with a heartbeat, so a storage
 * move on one process waits for a push running on another. Times are epoch milliseconds (the arithmetic of a
 * window is the same on both databases). Neither table is backed up: like sessions and jobs, they belong to the
 * running processes.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('ends_at', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rate_limit_windows_ends_at')
    .on('rate_limit_windows')
    .column('ends_at')
    .execute();
  await withId(db.schema.createTable('git_pushes'), dialect)
    .addColumn('container', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('git_pushes_container').on('git_pushes').column('container').execute();
  await db.schema.createIndex('git_pushes_owner').on('git_pushes').column('owner').execute();
}
