import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKUP_TABLES, NOT_BACKED_UP } from '../../src/backup/backup.repository.js';
import { databases } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Every table of the migrated schema is either in a backup or left out with a reason: a feature that adds a table
 * and forgets the backup loses its data in every move of an instance, which nothing else would notice.
 */
describe.each(await databases())('the tables a backup holds (%s)', (database) => {
  let server: TestServer | undefined;
  afterAll(async () => server?.stop());

  it('covers every table of the schema, and names only tables that exist', async () => {
    server = await startTestServer({ database });
    const { kysely } = server.server.ctx.db;
    const rows =
      database === 'postgres'
        ? (
            await sql<{ name: string }>`
              SELECT table_name AS name FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(kysely)
          ).rows
        : (
            await sql<{ name: string }>`
              SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(
              kysely,
            )
          ).rows;
    const tables = rows.map((r) => r.name).sort();
    const backedUp = new Set<string>(BACKUP_TABLES);
    const forgotten = tables.filter((t) => !backedUp.has(t) && !(t in NOT_BACKED_UP));
    expect(forgotten, 'tables neither backed up nor in NOT_BACKED_UP').toEqual([]);
    expect(BACKUP_TABLES.filter((t) => !tables.includes(t))).toEqual([]);
    expect(BACKUP_TABLES.filter((t) => t in NOT_BACKED_UP)).toEqual([]);
    // The SQLite search index's tables exist on SQLite only; every other name left out is a table here.
    const absent = Object.keys(NOT_BACKED_UP).filter((t) => !tables.includes(t));
    expect(absent.every((t) => database === 'postgres' && t.startsWith('alerts_search'))).toBe(true);
  });
});
