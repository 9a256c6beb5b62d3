import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresAvailable } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

const TOKEN = 'svcpat-workers-test-token-0001';
const withPostgres = await postgresAvailable();

/** Whether a process with this PID runs (signal 0 checks without sending anything). */
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The worker PIDs a primary printed as listening, in order. */
const listeningWorkers = (out: string) =>
  [...out.matchAll(/svc: worker (\d+) listening/g)].map((m) => Number(m[1]));

/**
 * `svc server --workers N`: on PostgreSQL a primary runs N workers sharing one port and starts another
 * when one dies; SIGTERM stops them all. On SQLite svc stays one process and says so.
 */
describe('svc server --workers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-workers-'));
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!withPostgres)(
    'runs two workers on one port, replaces a SIGKILLed worker and stops on SIGTERM (postgres)',
    async () => {
      const db = await createPostgresDatabase();
      cleanups.push(db.drop);
      const server: SvcServer = await startSvc({
        SVC_DATABASE_URL: db.url,
        SVC_DATA_DIR: join(dir, 'pg'),
        SVC_ROOT_PASSWORD: 'workers-password',
        SVC_ROOT_TOKEN: TOKEN,
        SVC_WORKERS: '2',
        SVC_LOG_LEVEL: 'warn',
      });
      cleanups.push(() => server.stop());
      const api = http(server.url);
      expect(server.output()).toContain('2 workers');
      const workers = listeningWorkers(server.output());
      expect(workers).toHaveLength(2);
      expect(workers.every(running)).toBe(true);
      // Requests spread over both workers all succeed (the first admin was created once, by the primary).
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => api.get('/api/v4/user', { token: TOKEN }).then((r) => r.status)),
      );
      expect(answers.every((s) => s === 200)).toBe(true);

      process.kill(workers[0]!, 'SIGKILL');
      const replacement = await until(
        () => listeningWorkers(server.output()).find((pid) => !workers.includes(pid)),
        () => `a new worker:\n${server.output()}`,
        30_000,
      );
      expect(server.output()).toContain(`worker ${workers[0]} exited (SIGKILL)`);
      expect(running(replacement)).toBe(true);
      expect(server.alive()).toBe(true);
      const after = await Promise.all(
        Array.from({ length: 20 }, () => api.get('/api/v4/user', { token: TOKEN }).then((r) => r.status)),
      );
      expect(after.every((s) => s === 200)).toBe(true);

      expect(await server.stop()).toEqual({ code: 0, signal: null });
      await until(() => ![workers[1]!, replacement].some(running), 'the workers to exit', 10_000);
    },
    120_000,
  );

  it.skipIf(!withPostgres)(
    'warns that SVC_ROOT_PASSWORD and SVC_ROOT_TOKEN had no effect only when root already existed, once (postgres)',
    async () => {
      const db = await createPostgresDatabase();
      cleanups.push(db.drop);
      const env = {
        SVC_DATABASE_URL: db.url,
        SVC_DATA_DIR: join(dir, 'pg-warn'),
        SVC_ROOT_PASSWORD: 'workers-password',
        SVC_ROOT_TOKEN: TOKEN,
        SVC_WORKERS: '2',
        SVC_LOG_LEVEL: 'warn',
      };
      const noEffect = (out: string) => out.match(/no effect/g)?.length ?? 0;
      // The first start: the primary creates root with both; nobody may say they did nothing.
      const first = await startSvc(env);
      cleanups.push(() => first.stop());
      expect(listeningWorkers(first.output())).toHaveLength(2);
      expect(first.output()).toContain('created the administrator "root"');
      expect(noEffect(first.output())).toBe(0);
      expect(await first.stop()).toEqual({ code: 0, signal: null });
      // The next start really ignores them: said once (by the primary), not once per process.
      const second = await startSvc(env);
      cleanups.push(() => second.stop());
      expect(listeningWorkers(second.output())).toHaveLength(2);
      expect(noEffect(second.output())).toBe(1);
      expect(second.output()).toContain('SVC_ROOT_PASSWORD and SVC_ROOT_TOKEN have no effect');
    },
    120_000,
  );

  it('stays one process on SQLite and says why (sqlite)', async () => {
    const server = await startSvc({
      SVC_DATA_DIR: join(dir, 'sqlite'),
      SVC_ROOT_PASSWORD: 'workers-password',
      SVC_ROOT_TOKEN: TOKEN,
      SVC_WORKERS: '3',
      SVC_LOG_LEVEL: 'warn',
    });
    cleanups.push(() => server.stop());
    expect(server.output()).toContain('SQLite allows one writer at a time, so svc runs as one process');
    expect(listeningWorkers(server.output())).toEqual([]);
    expect((await http(server.url).get('/api/v4/user', { token: TOKEN })).status).toBe(200);
  }, 60_000);
});
