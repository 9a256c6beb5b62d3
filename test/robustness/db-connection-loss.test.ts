import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// PostgreSQL ends a session on a restart, a failover or pg_terminate_backend. A connection the pool has lent out
// (a query or a transaction in progress) then emits 'error'; without a listener that ended the whole process.
const postgres = (await databases()).filter((d) => d === 'postgres');

describe.skipIf(postgres.length === 0).each(postgres)(
  'a PostgreSQL session ended in the middle of a query (%s)',
  (database) => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer({ database });
    });
    afterAll(async () => {
      await s?.stop();
    });

    it('fails that query alone: the process lives and the next requests work', async () => {
      const url = s.server.ctx.config.databaseUrl!;
      const name = new URL(url).pathname.slice(1);
      const marker = `svc_connection_loss_${Date.now()}`;
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => 'completed',
          (err: Error) => err.message,
        );
      const running = outcome(sql`SELECT pg_sleep(30), ${sql.lit(marker)}`.execute(s.server.ctx.db.kysely));
      const inTransaction = outcome(
        s.server.ctx.db.kysely.transaction().execute(async (trx) => {
          await sql`SELECT pg_sleep(30), ${sql.lit(`${marker}_trx`)}`.execute(trx);
        }),
      );
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        // Both sessions are seen running their query, then ended together. The deadline is generous for a loaded
        // machine, and short of the 30 s the queries sleep.
        const deadline = Date.now() + 20_000;
        let pids: number[] = [];
        while (pids.length < 2 && Date.now() < deadline) {
          const r = await admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2`,
            [name, `SELECT pg_sleep(30), '${marker}%`],
          );
          pids = r.rows.map((row) => row.pid);
          if (pids.length < 2) await new Promise((r) => setTimeout(r, 50));
        }
        expect(pids).toHaveLength(2);
        await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      } finally {
        await admin.end();
      }
      expect(await running).toMatch(/terminat/i);
      expect(await inTransaction).toMatch(/terminat/i);

      const res = await fetch(`${s.url}/api/v4/version`, { headers: { 'private-token': s.rootToken } });
      expect(res.status).toBe(200);
      const n = await sql<{ n: number }>`SELECT 1 AS n`.execute(s.server.ctx.db.kysely);
      expect(n.rows).toEqual([{ n: 1 }]);
    });

    it('never lends out again a connection whose query learnt that its session ended', async () => {
      // The server answers the query with a FATAL error before it closes the socket; the connection is released
      // in between, and the next query must not get it.
      const kysely = s.server.ctx.db.kysely;
      for (let i = 0; i < 5; i++) {
        await expect(sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(kysely)).rejects.toThrow(
          /terminat/i,
        );
        const n = await sql<{ n: number }>`SELECT 1 AS n`.execute(kysely);
        expect(n.rows).toEqual([{ n: 1 }]);
      }
    });
  },
);
