import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Probe {
  status: number;
  body: { status: string; message?: string; checks: Record<string, string> };
}

describe.each(await databases())('readiness checks that writes work (%s)', (database) => {
  let s: TestServer;
  const storages = mkdtempSync(join(tmpdir(), 'svc-ready-'));

  const probe = async (): Promise<Probe> => {
    const res = await fetch(`${s.url}/-/readiness`);
    return { status: res.status, body: (await res.json()) as Probe['body'] };
  };
  /** Polls readiness (results are cached for a second) until `want` holds `times` probes in a row. */
  const until = async (want: (p: Probe) => boolean, times = 1): Promise<Probe> => {
    const deadline = Date.now() + 20_000;
    let streak = 0;
    let last = await probe();
    while (Date.now() < deadline) {
      streak = want(last) ? streak + 1 : 0;
      if (streak >= times) return last;
      await new Promise((r) => setTimeout(r, 100));
      last = await probe();
    }
    return last;
  };
  const healthy = async () => {
    const h = await fetch(`${s.url}/-/health`);
    expect({ status: h.status, body: await h.json() }).toEqual({ status: 200, body: { status: 'ok' } });
  };

  beforeAll(async () => {
    s = await startTestServer({
      database,
      env: { SVC_STORAGES: `default=${storages}/a,extra=${storages}/b` },
    });
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(storages, { recursive: true, force: true });
  });

  it('is ok with every check named when the database, the data directory and the storages accept writes', async () => {
    expect(await probe()).toEqual({
      status: 200,
      body: {
        status: 'ok',
        checks: { database: 'ok', data_dir: 'ok', 'storage:default': 'ok', 'storage:extra': 'ok' },
      },
    });
  });

  it('answers 503 naming the storage whose path no longer takes a file (a file in place of the folder)', async () => {
    rmSync(join(storages, 'b'), { recursive: true, force: true });
    writeFileSync(join(storages, 'b'), 'not a directory');
    try {
      const failed = await until((p) => p.status === 503);
      expect(failed).toEqual({
        status: 503,
        body: {
          status: 'failed',
          message: '503 Service Unavailable: storage:extra not writable',
          checks: { database: 'ok', data_dir: 'ok', 'storage:default': 'ok', 'storage:extra': 'failed' },
        },
      });
      await healthy();
    } finally {
      rmSync(join(storages, 'b'), { force: true });
      mkdirSync(join(storages, 'b'));
    }
    expect((await until((p) => p.status === 200)).status).toBe(200);
  });

  it('answers 503 naming the database while it refuses writes (it still answers SELECT 1)', async () => {
    const readOnly = async (on: boolean) => {
      if (database === 'sqlite') {
        await sql.raw(`PRAGMA query_only = ${on ? 'ON' : 'OFF'}`).execute(s.server.ctx.db.kysely);
        return;
      }
      // A read-only PostgreSQL database (as a standby or a full disk's emergency setting): new sessions start
      // read-only, and the server's existing sessions are ended so its pool reconnects.
      const url = s.server.ctx.config.databaseUrl!;
      const name = new URL(url).pathname.slice(1);
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query('SET default_transaction_read_only = off');
        await c.query(
          `ALTER DATABASE ${name} ${on ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`,
        );
        await c.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
      } finally {
        await c.end();
      }
    };
    await readOnly(true);
    try {
      // Several probes in a row: a dropped connection alone would fail one, not a streak.
      const failed = await until((p) => p.status === 503 && p.body.checks.database === 'failed', 3);
      expect(failed).toEqual({
        status: 503,
        body: {
          status: 'failed',
          message: '503 Service Unavailable: database not writable',
          checks: { database: 'failed', data_dir: 'ok', 'storage:default': 'ok', 'storage:extra': 'ok' },
        },
      });
      await healthy();
    } finally {
      await readOnly(false);
    }
    expect((await until((p) => p.status === 200, 3)).body.checks.database).toBe('ok');
  });

  it('answers a burst of probes (one shared check, no error)', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, () => probe()));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    await healthy();
  });
});
