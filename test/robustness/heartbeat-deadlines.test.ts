import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createIntegration } from '../helpers/alerts.js';
import { databases, postgresAvailable } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { type RestartableSetup, restartableSetup, type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

// Real server processes on the real clock: a heartbeat of 10 seconds with no grace, so the deadline passes while
// the test polls (never a fixed sleep).

type AlertJson = { iid: number; title: string; status: string; event_count: number };

async function heartbeatProject(api: ReturnType<typeof http>, token: string, name: string) {
  const p = await api.post('/api/v4/projects', { token, body: { name } });
  expect(p.status).toBe(201);
  const hb = await createIntegration(api, token, p.body.id, {
    name: 'cron job',
    type: 'heartbeat',
    heartbeat: { interval_seconds: 10, grace_seconds: 0 },
  });
  return { projectId: p.body.id as number, hb };
}

const call = (url: string, key: string) => fetch(url, { headers: { authorization: `Bearer ${key}` } });

/**
 * kill -9 of the only server process after a heartbeat's call: the deadline is a row of the job queue, so the
 * restarted process opens the missed alert (once), and the next call resolves it.
 */
describe.each(await databases())('a heartbeat deadline across kill -9 (%s)', (database) => {
  let setup: RestartableSetup | null = null;
  let child: SvcServer | null = null;
  afterAll(async () => {
    await child?.stop();
    await setup?.dispose();
  });

  it('fires once after the restart and resolves on the next call', async () => {
    setup = await restartableSetup(database, 'kill-heartbeat');
    const env = { ...setup.env, SVC_JOB_LEASE_SECONDS: '1' };
    child = await startSvc(env);
    let api = http(child.url);
    const { token } = setup;
    const { projectId, hb } = await heartbeatProject(api, token, 'kill-heartbeat');
    expect((await call(hb.url.replace(/^http:\/\/[^/]+/, child.url), hb.authorization_key)).status).toBe(200);

    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    child = await startSvc(env);
    api = http(child.url);
    const alertsUrl = `/api/v4/projects/${projectId}/alert_management/alerts`;
    const missed = await until(
      async () => {
        const list = (await api.get(alertsUrl, { token })).body as AlertJson[];
        return list.length > 0 ? list : null;
      },
      'the missed heartbeat to open an alert after the restart',
      40_000,
      200,
    );
    expect(missed).toMatchObject([
      { title: 'Heartbeat missed: cron job', status: 'triggered', event_count: 1 },
    ]);
    const back = await call(hb.url.replace(/^http:\/\/[^/]+/, child.url), hb.authorization_key);
    expect(await back.json()).toEqual([{ iid: missed[0]!.iid, title: 'Heartbeat missed: cron job' }]);
    expect((await api.get(alertsUrl, { token })).body).toMatchObject([
      { status: 'resolved', event_count: 1 },
    ]);
  });
});

/**
 * Two processes on one PostgreSQL, calls arriving at either: the deadline fires in exactly one of them, once.
 * Every deadline job is waited for (the queue is read directly) before the alert is counted.
 */
describe.skipIf(!(await postgresAvailable()))('a heartbeat deadline with two processes', () => {
  let setup: RestartableSetup | null = null;
  const servers: SvcServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await setup?.dispose();
  });

  it('opens one alert, whichever process runs the job', async () => {
    setup = await restartableSetup('postgres', 'two-heartbeat');
    const env = { ...setup.env, SVC_JOB_LEASE_SECONDS: '1' };
    servers.push(await startSvc(env));
    servers.push(await startSvc(env));
    const [A, B] = servers as [SvcServer, SvcServer];
    const { token } = setup;
    const { projectId, hb } = await heartbeatProject(http(A.url), token, 'two-heartbeat');
    const path = new URL(hb.url).pathname;
    // Calls at both: the first arms the deadline in A, the second moves it in B.
    expect((await call(`${A.url}${path}`, hb.authorization_key)).status).toBe(200);
    expect((await call(`${B.url}${path}`, hb.authorization_key)).status).toBe(200);
    // Both processes configure the same deadline again (a settings change in each): still one job per deadline.
    for (const s of [A, B])
      expect(
        (
          await http(s.url).put(`/api/v4/projects/${projectId}/alert_management/integrations/${hb.id}`, {
            token,
            body: { heartbeat: { interval_seconds: 10 } },
          })
        ).status,
      ).toBe(200);

    const db = new pg.Client({ connectionString: setup.env.SVC_DATABASE_URL });
    await db.connect();
    try {
      const alertsUrl = `/api/v4/projects/${projectId}/alert_management/alerts`;
      await until(
        async () => ((await http(B.url).get(alertsUrl, { token })).body as AlertJson[]).length > 0,
        'the missed heartbeat to open an alert',
        40_000,
        200,
      );
      // Every deadline job has run (none pending, none in progress) before counting.
      await until(
        async () =>
          (await db.query("SELECT count(*)::int AS n FROM jobs WHERE kind = 'alert_heartbeat_deadline'"))
            .rows[0].n === 0,
        'the deadline jobs to finish',
        20_000,
        100,
      );
      for (const s of [A, B])
        expect((await http(s.url).get(alertsUrl, { token })).body).toMatchObject([
          { title: 'Heartbeat missed: cron job', status: 'triggered', event_count: 1 },
        ]);
      const notes = await http(A.url).get(`${alertsUrl}/1/notes`, { token });
      expect(
        (notes.body as { body: string }[]).filter((n) => n.body.startsWith('logged an alert')),
      ).toHaveLength(1);
    } finally {
      await db.end();
    }
  });
});
