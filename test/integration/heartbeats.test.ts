import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertmanagerPayload, createIntegration, curl, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import type { http } from '../helpers/http.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROLES = { developer: 30, maintainer: 40 } as const;
const integrations = (id: number) => `/api/v4/projects/${id}/alert_management/integrations`;

describe.each(await databases())('heartbeat integrations (%s)', (database) => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const drain = () => s.server.ctx.jobs.drain();
  const alertsOf = async (api: ReturnType<typeof http>, id: number, token: string) =>
    (await api.get(`/api/v4/projects/${id}/alert_management/alerts`, { token })).body as {
      iid: number;
      title: string;
      status: string;
      monitoring_tool: string;
      event_count: number;
    }[];

  it('is created by Maintainers with an interval and a grace period; bad settings are 400s', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'hb-valid', ROLES, 'hv');
    const token = tokens.maintainer!;
    const bad: [string, unknown][] = [
      ['no heartbeat', undefined],
      ['null heartbeat', null],
      ['interval too short', { interval_seconds: 5 }],
      ['interval not a number', { interval_seconds: '60' }],
      ['negative grace', { interval_seconds: 60, grace_seconds: -1 }],
      ['alertname on a heartbeat', { interval_seconds: 60, alertname: 'Watchdog' }],
    ];
    for (const [why, heartbeat] of bad) {
      const r = await api.post(integrations(id), {
        token,
        body: { name: 'x', type: 'heartbeat', heartbeat },
      });
      expect(r.status, why).toBe(400);
      expect(JSON.stringify(r.body), why).toContain('heartbeat');
    }
    expect((await api.get(integrations(id), { token })).body).toEqual([]);
    const dev = await api.post(integrations(id), {
      token: tokens.developer,
      body: { name: 'x', type: 'heartbeat', heartbeat: { interval_seconds: 60 } },
    });
    expect(dev.status).toBe(403);
    // Only heartbeat and Prometheus integrations have one.
    const http_ = await api.post(integrations(id), {
      token,
      body: { name: 'x', type: 'http', heartbeat: { interval_seconds: 60 } },
    });
    expect(http_.status).toBe(400);

    const created = await createIntegration(api, token, id, {
      name: 'Nightly backup',
      type: 'heartbeat',
      heartbeat: { interval_seconds: 60, grace_seconds: 30 },
    });
    expect(created).toMatchObject({
      type: 'heartbeat',
      api_url: null,
      url: `${s.url}/-/alerts/heartbeat/${id}/${created.url.split('/').pop()}`,
      heartbeat: {
        interval_seconds: 60,
        grace_seconds: 30,
        alertname: null,
        status: 'waiting',
        last_seen_at: null,
        due_at: null,
      },
    });
    // Settings change; the type's requirement holds on update too.
    const put = await api.put(`${integrations(id)}/${created.id}`, {
      token,
      body: { heartbeat: { grace_seconds: 10 } },
    });
    expect(put.status).toBe(200);
    expect(put.body.heartbeat).toMatchObject({ interval_seconds: 60, grace_seconds: 10 });
    expect(
      (await api.put(`${integrations(id)}/${created.id}`, { token, body: { heartbeat: null } })).status,
    ).toBe(400);
  });

  it('missed → "Heartbeat missed" alert → calls resume → resolved; GET, POST and Basic all count', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'hb-flow', ROLES, 'hf');
    const token = tokens.maintainer!;
    const hb = await createIntegration(api, token, id, {
      name: 'Nightly backup',
      type: 'heartbeat',
      heartbeat: { interval_seconds: 60, grace_seconds: 30 },
    });
    // Refused calls count for nothing.
    expect((await fetch(hb.url)).status).toBe(401);
    expect((await fetch(hb.url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    // An HTTP integration's key at the heartbeat URL of an HTTP integration: not a heartbeat.
    const other = await createIntegration(api, token, id, { name: 'web', type: 'http' });
    const otherUrl = `${s.url}/-/alerts/heartbeat/${id}/${other.url.split('/').pop()!.replace('.json', '')}`;
    expect(
      (await fetch(otherUrl, { headers: { authorization: `Bearer ${other.authorization_key}` } })).status,
    ).toBe(404);

    // Waiting: no call yet, nothing is expected.
    s.clock.advance(600_000);
    await drain();
    expect(await alertsOf(api, id, token)).toEqual([]);

    const get = await fetch(hb.url, { headers: { authorization: `Bearer ${hb.authorization_key}` } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual([]);
    const view = (await api.get(`${integrations(id)}/${hb.id}`, { token })).body;
    expect(view.heartbeat.status).toBe('up');
    expect(Date.parse(view.heartbeat.due_at) - Date.parse(view.heartbeat.last_seen_at)).toBe(90_000);

    // Within interval plus grace, and a call (POST, no body) moves the deadline.
    s.clock.advance(80_000);
    await drain();
    expect(await alertsOf(api, id, token)).toEqual([]);
    expect((await notify(hb.url, hb.authorization_key, '')).status).toBe(200);
    s.clock.advance(80_000);
    await drain();
    expect(await alertsOf(api, id, token)).toEqual([]);

    // Silence past the deadline: one alert, however often the deadline job runs.
    s.clock.advance(11_000);
    await drain();
    s.clock.advance(600_000);
    await drain();
    const missed = await alertsOf(api, id, token);
    expect(missed).toMatchObject([
      {
        title: 'Heartbeat missed: Nightly backup',
        status: 'triggered',
        monitoring_tool: 'Heartbeat',
        event_count: 1,
      },
    ]);
    expect((await api.get(`${integrations(id)}/${hb.id}`, { token })).body.heartbeat.status).toBe('down');

    // The call comes back (curl with the key as Basic password, as other integrations take it): resolved.
    const back = await curl(['-u', `:${hb.authorization_key}`, hb.url]);
    expect(back).toEqual({
      status: 200,
      body: [{ iid: missed[0]!.iid, title: 'Heartbeat missed: Nightly backup' }],
    });
    expect(await alertsOf(api, id, token)).toMatchObject([{ iid: missed[0]!.iid, status: 'resolved' }]);
    const notes = (
      await api.get(`/api/v4/projects/${id}/alert_management/alerts/${missed[0]!.iid}/notes`, { token })
    ).body as { body: string }[];
    expect(notes.map((n) => n.body)).toContain('logged a recovery alert from **Heartbeat**');

    // And it can miss again: a new alert.
    s.clock.advance(91_000);
    await drain();
    const again = await alertsOf(api, id, token);
    expect(again.filter((a) => a.status === 'triggered')).toHaveLength(1);
    expect(again).toHaveLength(2);
  });

  it("a Prometheus integration's Watchdog alert is its heartbeat, never stored as an alert", async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'hb-watchdog', ROLES, 'hw');
    const token = tokens.maintainer!;
    const prom = await createIntegration(api, token, id, {
      name: 'Prometheus prod',
      type: 'prometheus',
      api_url: 'https://prometheus.example',
      heartbeat: { interval_seconds: 120, grace_seconds: 60 },
    });
    expect(prom.heartbeat).toMatchObject({ alertname: 'Watchdog', status: 'waiting' });
    const watchdog = {
      status: 'firing',
      labels: { alertname: 'Watchdog', severity: 'none', prometheus: 'monitoring/k8s' },
      annotations: {
        summary: 'An alert that should always be firing to certify that Alertmanager is working properly.',
      },
      startsAt: '2026-11-27T10:00:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example/graph?g0.expr=vector%281%29',
      fingerprint: 'e0fd3b3ae3e53d7a',
    };
    const disk = {
      status: 'firing',
      labels: { alertname: 'DiskFull', severity: 'critical' },
      annotations: { title: 'Disk full on db-1' },
      startsAt: '2026-11-27T10:00:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example/graph?g0.expr=disk',
      fingerprint: 'aa11',
    };
    const r = await notify(prom.url, prom.authorization_key, alertmanagerPayload([watchdog, disk]));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject([{ title: 'Disk full on db-1' }]);
    expect((await alertsOf(api, id, token)).map((a) => a.title)).toEqual(['Disk full on db-1']);
    expect((await api.get(`${integrations(id)}/${prom.id}`, { token })).body.heartbeat.status).toBe('up');

    // Alertmanager stops sending the Watchdog: its silence pages.
    s.clock.advance(181_000);
    await drain();
    const titles = (await alertsOf(api, id, token)).map((a) => `${a.title}:${a.status}`);
    expect(titles.sort()).toEqual([
      'Disk full on db-1:triggered',
      'Heartbeat missed: Prometheus prod:triggered',
    ]);
    // Its next Watchdog resolves that alert (and only that one).
    const back = await notify(prom.url, prom.authorization_key, alertmanagerPayload([watchdog]));
    expect(back.body).toMatchObject([{ title: 'Heartbeat missed: Prometheus prod' }]);
    const after = (await alertsOf(api, id, token)).map((a) => `${a.title}:${a.status}`);
    expect(after.sort()).toEqual([
      'Disk full on db-1:triggered',
      'Heartbeat missed: Prometheus prod:resolved',
    ]);

    // A custom alertname; removing the heartbeat makes the Watchdog an ordinary alert again.
    const renamed = await api.put(`${integrations(id)}/${prom.id}`, {
      token,
      body: { heartbeat: { alertname: 'DeadMansSwitch' } },
    });
    expect(renamed.body.heartbeat).toMatchObject({ alertname: 'DeadMansSwitch', interval_seconds: 120 });
    const removed = await api.put(`${integrations(id)}/${prom.id}`, { token, body: { heartbeat: null } });
    expect(removed.status).toBe(200);
    expect(removed.body.heartbeat).toBeUndefined();
    const plain = await notify(prom.url, prom.authorization_key, alertmanagerPayload([watchdog]));
    expect(plain.body).toHaveLength(1);
  });
});
