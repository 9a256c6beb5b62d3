import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/dialect.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { kyselySqliteDatabase } from '../../src/db/node-sqlite.js';
import { createPostgresDatabase, databases } from '../helpers/databases.js';

function sqliteWithoutForeignKeys() {
  return kyselySqliteDatabase(new DatabaseSync(':memory:', { enableForeignKeyConstraints: false }));
}

/**
 * Migration 0009 on a database that already holds duplicate event_ids (an SDK's retries): duplicates are
 * folded into the first copy, counts follow, and the unique index (project_id, event_id) holds afterwards.
 * Foreign keys are off for the fixture rows (no projects are needed to test the events tables).
 */
describe.each(await databases())('migration 0009_event_dedupe (%s)', (database) => {
  it('folds existing duplicates and enforces one event per (project, event_id)', async () => {
    const pgdb = database === 'postgres' ? await createPostgresDatabase() : null;
    const pool = pgdb ? new pg.Pool({ connectionString: pgdb.url, max: 1 }) : null;
    // The pool's end does not wait for its connection's socket to close: the forced drop at the end may terminate
    // it first, and the error it then emits must not go unheard.
    pool?.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<any>({
      dialect: pool
        ? new PostgresDialect({ pool })
        : new SqliteDialect({ database: sqliteWithoutForeignKeys() }),
    });
    const dialect: DialectName = database;
    // Migration 0008 encrypts existing secrets; these rows have none, so any key will do.
    const env = { secretKey: () => Buffer.alloc(32, 1), warn: (m: string) => expect.fail(m) };
    try {
      const upTo = MIGRATIONS.findIndex(([name]) => name === '0009_event_dedupe');
      expect(upTo).toBeGreaterThan(0);
      for (const [, up] of MIGRATIONS.slice(0, upTo)) await up(db as never, dialect, env);
      if (pool) await sql`SET session_replication_role = replica`.execute(db);
      const now = new Date().toISOString();
      const error = (id: number, project: number, count: number) => ({
        id,
        project_id: project,
        fingerprint: `f${id}`,
        type: 'E',
        message: 'm',
        culprit: '',
        platform: 'node',
        status: 'unresolved',
        events_count: count,
        users_count: 0,
        first_seen_at: now,
        last_seen_at: now,
        tags: '{}',
        created_at: now,
        updated_at: now,
      });
      await db
        .insertInto('error_tracking_errors')
        .values([error(1, 1, 3), error(2, 2, 1), error(3, 1, 1)])
        .execute();
      const ev = (errorId: number, eventId: string) => ({
        error_id: errorId,
        event_id: eventId,
        level: 'error',
        message: 'm',
        occurred_at: now,
        payload: '{}',
        created_at: now,
      });
      // Project 1: "a" three times in error 1 and once in error 3 (which then has nothing left); project 2: "a" once.
      await db
        .insertInto('error_tracking_events')
        .values([ev(1, 'a'), ev(1, 'a'), ev(1, 'a'), ev(2, 'a'), ev(3, 'a')])
        .execute();
      const migration = MIGRATIONS[upTo]![1];
      await migration(db as never, dialect, env);

      const events = await db
        .selectFrom('error_tracking_events')
        .select(['error_id', 'project_id', 'event_id'])
        .orderBy('id')
        .execute();
      expect(events).toEqual([
        { error_id: 1, project_id: 1, event_id: 'a' },
        { error_id: 2, project_id: 2, event_id: 'a' },
      ]);
      const errors = await db
        .selectFrom('error_tracking_errors')
        .select(['id', 'events_count'])
        .orderBy('id')
        .execute();
      expect(errors).toEqual([
        { id: 1, events_count: 1 },
        { id: 2, events_count: 1 },
      ]);
      await expect(
        db
          .insertInto('error_tracking_events')
          .values({ ...ev(1, 'a'), project_id: 1 })
          .execute(),
      ).rejects.toThrow(/unique|duplicate/i);
    } finally {
      await db.destroy();
      await pgdb?.drop();
    }
  });
});
