import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Repository storage moves; read-only flags and the group wiki's storage on containers. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  for (const table of ['projects', 'snippets', 'namespaces']) {
    await db.schema
      .alterTable(table)
      .addColumn('repository_read_only', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
      .execute();
  }
  // Group wikis live on a storage too (namespaces of kind group); user namespaces never use it.
  await db.schema.alterTable('namespaces').addColumn('repository_storage', 'text').execute();

  await withId(db.schema.createTable('repository_storage_moves'), dialect)
    .addColumn('container_type', 'text', (c) => c.notNull())
    .addColumn('container_id', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('source_storage_name', 'text', (c) => c.notNull())
    .addColumn('destination_storage_name', 'text', (c) => c.notNull())
    .addColumn('error_message', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('repository_storage_moves_container')
    .on('repository_storage_moves')
    .columns(['container_type', 'container_id'])
    .execute();
}
