import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/dialect.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { kyselySqliteDatabase } from '../../src/db/node-sqlite.js';
import { createPostgresDatabase, databases } from '../helpers/databases.js';

/**
 * Migration 0039 on a database that already holds a project's on-call schedule (rotation, participant, override)
 * and escalation policy (a rule targeting the schedule): SQLite rebuilds both tables with foreign keys on, as svc
 * runs it; every row and every reference survives, deleting still cascades, and a row needs exactly one owner.
 */
describe.each(await databases())('migration 0039_group_oncall (%s)', (database) => {
  it('keeps existing schedules and policies with their references, and takes group-owned ones', async () => {
    const pgdb = database === 'postgres' ? await createPostgresDatabase() : null;
    const pool = pgdb ? new pg.Pool({ connectionString: pgdb.url, max: 1 }) : null;
    pool?.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<any>({
      dialect: pool
        ? new PostgresDialect({ pool })
        : new SqliteDialect({
            database: kyselySqliteDatabase(
              new DatabaseSync(':memory:', { enableForeignKeyConstraints: true }),
            ),
          }),
    });
    const dialect: DialectName = database;
    const env = { secretKey: () => Buffer.alloc(32, 1), warn: (m: string) => expect.fail(m) };
    try {
      const upTo = MIGRATIONS.findIndex(([name]) => name === '0039_group_oncall');
      expect(upTo).toBeGreaterThan(0);
      // As svc's migrator runs them: in a transaction on PostgreSQL (some use savepoints), without on SQLite.
      const run = async (fns: typeof MIGRATIONS) => {
        if (!pool) for (const [, up] of fns) await up(db as never, dialect, env);
        else
          await db.transaction().execute(async (trx) => {
            for (const [, up] of fns) await up(trx as never, dialect, env);
          });
      };
      await run(MIGRATIONS.slice(0, upTo));
      const now = new Date().toISOString();
      const stamps = { created_at: now, updated_at: now };
      const user = await db
        .insertInto('users')
        .values({ username: 'u', name: 'u', email: 'u@example.com', ...stamps })
        .returning('id')
        .executeTakeFirstOrThrow();
      const ns = await db
        .insertInto('namespaces')
        .values({ kind: 'group', name: 'g', path: 'g', full_path: 'g', ...stamps })
        .returning('id')
        .executeTakeFirstOrThrow();
      const project = await db
        .insertInto('projects')
        .values({
          namespace_id: ns.id,
          name: 'p',
          path: 'p',
          repository_storage: 'default',
          creator_id: user.id,
          last_activity_at: now,
          ...stamps,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const schedule = await db
        .insertInto('oncall_schedules')
        .values({ project_id: project.id, iid: 1, name: 'S', description: 'd', timezone: 'UTC', ...stamps })
        .returning('id')
        .executeTakeFirstOrThrow();
      const rotation = await db
        .insertInto('oncall_rotations')
        .values({
          schedule_id: schedule.id,
          name: 'R',
          starts_at: now,
          length: 1,
          length_unit: 'days',
          ...stamps,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('oncall_participants')
        .values({ rotation_id: rotation.id, user_id: user.id, position: 0 })
        .execute();
      await db
        .insertInto('oncall_overrides')
        .values({ schedule_id: schedule.id, user_id: user.id, starts_at: now, ends_at: now, created_at: now })
        .execute();
      const policy = await db
        .insertInto('escalation_policies')
        .values({ project_id: project.id, name: 'P', description: null, repeat: 2, ...stamps })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('escalation_rules')
        .values({
          policy_id: policy.id,
          position: 0,
          elapsed_time_seconds: 0,
          status: 'acknowledged',
          oncall_schedule_id: schedule.id,
        })
        .execute();

      await run(MIGRATIONS.slice(upTo, upTo + 1));

      expect(await db.selectFrom('oncall_schedules').selectAll().execute()).toEqual([
        expect.objectContaining({
          id: schedule.id,
          project_id: project.id,
          group_id: null,
          iid: 1,
          name: 'S',
        }),
      ]);
      expect(await db.selectFrom('escalation_policies').selectAll().execute()).toEqual([
        expect.objectContaining({ id: policy.id, project_id: project.id, group_id: null, repeat: 2 }),
      ]);
      expect(await db.selectFrom('oncall_rotations').select('id').execute()).toHaveLength(1);
      expect(await db.selectFrom('escalation_rules').select('id').execute()).toHaveLength(1);

      // A group's schedule and policy; neither owner, or both, is refused.
      await db
        .insertInto('oncall_schedules')
        .values({ group_id: ns.id, iid: 1, name: 'S', description: null, timezone: 'UTC', ...stamps })
        .execute();
      await db
        .insertInto('escalation_policies')
        .values({ group_id: ns.id, name: 'G', ...stamps })
        .execute();
      await expect(
        db
          .insertInto('oncall_schedules')
          .values({ iid: 2, name: 'none', description: null, timezone: 'UTC', ...stamps })
          .execute(),
      ).rejects.toThrow();
      await expect(
        db
          .insertInto('escalation_policies')
          .values({ project_id: project.id, group_id: ns.id, name: 'both', ...stamps })
          .execute(),
      ).rejects.toThrow();
      // One policy per group.
      await expect(
        db
          .insertInto('escalation_policies')
          .values({ group_id: ns.id, name: 'G2', ...stamps })
          .execute(),
      ).rejects.toThrow();

      // Deleting the project's schedule still cascades to its rotations, overrides and rules; deleting the group
      // takes everything else.
      await db.deleteFrom('oncall_schedules').where('id', '=', schedule.id).execute();
      expect(await db.selectFrom('oncall_rotations').select('id').execute()).toEqual([]);
      expect(await db.selectFrom('oncall_participants').select('id').execute()).toEqual([]);
      expect(await db.selectFrom('oncall_overrides').select('id').execute()).toEqual([]);
      expect(await db.selectFrom('escalation_rules').select('id').execute()).toEqual([]);
      await db.deleteFrom('namespaces').where('id', '=', ns.id).execute();
      expect(await db.selectFrom('oncall_schedules').select('id').execute()).toEqual([]);
      expect(await db.selectFrom('escalation_policies').select('id').execute()).toEqual([]);
    } finally {
      await db.destroy();
      await pgdb?.drop();
    }
  });
});
