import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/dialect.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { kyselySqliteDatabase } from '../../src/db/node-sqlite.js';
import type { Database } from '../../src/db/schema.js';
import { ErrorTrackingRepository } from '../../src/error-tracking/error-tracking.repository.js';
import { normalizeEvent } from '../../src/error-tracking/events.js';
import { GROUPING_VERSION, LEGACY_GROUPING_VERSION } from '../../src/error-tracking/grouping.js';
import { createPostgresDatabase, databases } from '../helpers/databases.js';

/** A Python KeyError raised in app.views.show (then `fn`), sent from `route`. */
const bug = (fn: string, route: string, n: number) => ({
  event_id: n.toString(16).padStart(32, '0'),
  platform: 'python',
  transaction: route,
  exception: {
    values: [
      {
        type: 'KeyError',
        value: "'id'",
        stacktrace: {
          frames: [
            { module: 'app.views', function: 'show', lineno: 3, in_app: true },
            { module: 'app.models', function: fn, lineno: 9, in_app: true },
          ],
        },
      },
    ],
  },
});

/**
 * Migration 0043 on a database holding errors grouped the old way (type + culprit): each error's fingerprint becomes
 * its first hash (version culprit:1) and its events' hash; then events of the new grouping still land in them, and
 * no error is ever split. Foreign keys are off for the fixture rows (no projects are needed).
 */
describe.each(await databases())('migration 0043_error_grouping (%s)', (database) => {
  it('keeps every existing error its group: old and new events of one bug land together', async () => {
    const pgdb = database === 'postgres' ? await createPostgresDatabase() : null;
    const pool = pgdb ? new pg.Pool({ connectionString: pgdb.url, max: 1 }) : null;
    pool?.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<any>({
      dialect: pool
        ? new PostgresDialect({ pool })
        : new SqliteDialect({
            database: kyselySqliteDatabase(
              new DatabaseSync(':memory:', { enableForeignKeyConstraints: false }),
            ),
          }),
    });
    const dialect: DialectName = database;
    const env = { secretKey: () => Buffer.alloc(32, 1), warn: (m: string) => expect.fail(m) };
    try {
      const upTo = MIGRATIONS.findIndex(([name]) => name === '0043_error_grouping');
      expect(upTo).toBeGreaterThan(0);
      // Each in a transaction, as the migrator runs them (some use savepoints).
      for (const [, up] of MIGRATIONS.slice(0, upTo))
        await db.transaction().execute((trx) => up(trx as never, dialect, env));
      if (pool) await sql`SET session_replication_role = replica`.execute(db);

      const at = '2026-11-01T10:00:00.000Z';
      const legacyHash = (e: object) =>
        normalizeEvent(e, { now: new Date(at), clientIp: null }).hashes.legacy;
      // As the old grouping stored them: the bug from /users (error 1, two events, which also took a second bug
      // raised on the same route: same type and culprit), and the same bug from /admin (error 2).
      // Ids 1, 2 and 3 in order (fresh tables).
      const error = (project: number, fingerprint: string, count: number) => ({
        project_id: project,
        fingerprint,
        type: 'KeyError',
        message: "'id'",
        culprit: '/users',
        platform: 'python',
        status: 'unresolved',
        events_count: count,
        users_count: 0,
        first_seen_at: at,
        last_seen_at: at,
        tags: '{}',
        created_at: at,
        updated_at: at,
      });
      const fpUsers = legacyHash(bug('load', '/users', 0));
      const fpAdmin = legacyHash(bug('load', '/admin', 0));
      expect(legacyHash(bug('check', '/users', 0))).toBe(fpUsers);
      await db
        .insertInto('error_tracking_errors')
        .values([error(1, fpUsers, 2), error(1, fpAdmin, 1), error(2, fpUsers, 1)])
        .execute();
      const ev = (errorId: number, project: number, n: number) => ({
        error_id: errorId,
        project_id: project,
        event_id: n.toString(16).padStart(32, '0'),
        level: 'error',
        message: "'id'",
        occurred_at: at,
        payload: '{}',
        created_at: at,
      });
      await db
        .insertInto('error_tracking_events')
        .values([ev(1, 1, 1), ev(1, 1, 2), ev(2, 1, 3), ev(3, 2, 4)])
        .execute();

      await db.transaction().execute((trx) => MIGRATIONS[upTo]![1](trx as never, dialect, env));

      expect(
        await db
          .selectFrom('error_tracking_error_hashes')
          .select(['project_id', 'hash', 'error_id', 'grouping_version'])
          .orderBy('error_id')
          .execute(),
      ).toEqual([
        { project_id: 1, hash: fpUsers, error_id: 1, grouping_version: LEGACY_GROUPING_VERSION },
        { project_id: 1, hash: fpAdmin, error_id: 2, grouping_version: LEGACY_GROUPING_VERSION },
        { project_id: 2, hash: fpUsers, error_id: 3, grouping_version: LEGACY_GROUPING_VERSION },
      ]);
      expect(
        await db
          .selectFrom('error_tracking_events')
          .select(['error_id', 'grouping_hash'])
          .orderBy('id')
          .execute(),
      ).toEqual([
        { error_id: 1, grouping_hash: fpUsers },
        { error_id: 1, grouping_hash: fpUsers },
        { error_id: 2, grouping_hash: fpAdmin },
        { error_id: 3, grouping_hash: fpUsers },
      ]);
      expect(
        (await db.selectFrom('error_tracking_errors').select('grouping_version').execute()).map(
          (r) => r.grouping_version,
        ),
      ).toEqual([LEGACY_GROUPING_VERSION, LEGACY_GROUPING_VERSION, LEGACY_GROUPING_VERSION]);

      // New events, grouped by the new version, by today's repository (which needs the later migrations too).
      for (const [, up] of MIGRATIONS.slice(upTo + 1))
        await db.transaction().execute((trx) => up(trx as never, dialect, env));
      const repo = new ErrorTrackingRepository(db as Kysely<Database>, dialect);
      const record = async (project: number, e: object) => {
        const normalized = normalizeEvent(e, { now: new Date(), clientIp: null });
        const [r] = await (db as Kysely<Database>)
          .transaction()
          .execute((trx) => repo.recordEvents(trx, project, [normalized], new Date().toISOString()));
        return r!.errorId;
      };
      // Both bugs of /users still land in the error that held them (a new grouping never splits an error), and
      // the bug from /admin too now: the new hash of the bug already leads to error 1.
      expect(await record(1, bug('load', '/users', 10))).toBe(1);
      expect(await record(1, bug('check', '/users', 11))).toBe(1);
      expect(await record(1, bug('load', '/admin', 12))).toBe(1);
      // Another project's error of the same fingerprint stays its own.
      expect(await record(2, bug('load', '/users', 13))).toBe(3);
      // A new bug makes a new error of the new version.
      const fresh = await record(1, bug('save', '/orders', 14));
      expect(fresh).toBeGreaterThan(3);

      const hashes = await db
        .selectFrom('error_tracking_error_hashes')
        .select(['error_id', 'grouping_version'])
        .where('project_id', '=', 1)
        .orderBy('id')
        .execute();
      expect(hashes).toEqual([
        { error_id: 1, grouping_version: LEGACY_GROUPING_VERSION },
        { error_id: 2, grouping_version: LEGACY_GROUPING_VERSION },
        { error_id: 1, grouping_version: GROUPING_VERSION },
        { error_id: 1, grouping_version: GROUPING_VERSION },
        { error_id: fresh, grouping_version: GROUPING_VERSION },
      ]);
      const counts = await db
        .selectFrom('error_tracking_errors')
        .select(['id', 'events_count', 'grouping_version'])
        .orderBy('id')
        .execute();
      expect(counts).toEqual([
        { id: 1, events_count: 5, grouping_version: LEGACY_GROUPING_VERSION },
        { id: 2, events_count: 1, grouping_version: LEGACY_GROUPING_VERSION },
        { id: 3, events_count: 2, grouping_version: LEGACY_GROUPING_VERSION },
        { id: fresh, events_count: 1, grouping_version: GROUPING_VERSION },
      ]);
    } finally {
      await db.destroy();
      await pgdb?.drop();
    }
  });
});
