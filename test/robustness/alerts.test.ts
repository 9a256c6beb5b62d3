import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertmanagerPayload, createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Hostile and broken senders against alert intake and alert status changes, on both databases. */
describe.each(await databases())('alert intake under hostile input (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let n = 0;

  async function freshProject(type: 'http' | 'prometheus' = 'http') {
    n++;
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `hostile-${n}` } });
    const i = await createIntegration(api, s.rootToken, p.body.id, {
      name: type === 'http' ? 'Generic' : 'Prometheus',
      type,
      ...(type === 'prometheus' && { api_url: 'http://placeholder.invalid' }),
    });
    return { project: p.body as { id: number; path_with_namespace: string }, integration: i };
  }
  const alerts = async (pid: number) =>
    (
      await api.get(
        `/api/v4/projects/${pid}/alert_management/alerts?per_page=100&order_by=created_at&sort=asc`,
        { token: s.rootToken },
      )
    ).body as { iid: number; status: string; started_at: string; ended_at: string | null }[];
  const setStatus = (pid: number, iid: number, status: string) =>
    api.put(`/api/v4/projects/${pid}/alert_management/alerts/${iid}`, {
      token: s.rootToken,
      body: { status },
    });
  const notes = async (pid: number, iid: number) =>
    (await api.get(`/api/v4/projects/${pid}/alert_management/alerts/${iid}/notes`, { token: s.rootToken }))
      .body as unknown[];
  const settings = (body: Record<string, unknown>) =>
    api.put('/api/v4/application/settings', { token: s.rootToken, body });
  async function healthy() {
    const h = await api.get('/-/health');
    expect(h).toMatchObject({ status: 200, body: { status: 'ok' } });
  }
  const firing = (i: number) => ({
    labels: { alertname: `A${i}` },
    annotations: {},
    startsAt: '2026-11-21T10:00:00Z',
  });

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it('refuses an Alertmanager payload with more alerts than allowed (413, GitLab-like default 100) and stores nothing', async () => {
    const { project, integration } = await freshProject('prometheus');
    const key = integration.authorization_key;

    const flood = await notify(
      integration.url,
      key,
      alertmanagerPayload(Array.from({ length: 5000 }, (_, i) => firing(i))),
    );
    expect(flood.status).toBe(413);
    expect(flood.body.message).toMatch(
      /^413 Request Entity Too Large - The payload has 5000 alerts; at most 100 are accepted per request/,
    );
    const over = await notify(
      integration.url,
      key,
      alertmanagerPayload(Array.from({ length: 101 }, (_, i) => firing(i))),
    );
    expect(over).toMatchObject({
      status: 413,
      body: { message: expect.stringMatching(/101 alerts; at most 100/) },
    });
    expect(await alerts(project.id)).toEqual([]);
    await healthy();

    const full = await notify(
      integration.url,
      key,
      alertmanagerPayload(Array.from({ length: 100 }, (_, i) => firing(i))),
    );
    expect(full.status).toBe(200);
    expect(full.body).toHaveLength(100);
  });

  it('takes the per-payload alert limit from an admin setting, validated', async () => {
    const { project, integration } = await freshProject('prometheus');
    const key = integration.authorization_key;
    const read = await api.get('/api/v4/application/settings', { token: s.rootToken });
    expect(read.body.incident_management_notification_max_alerts).toBe(100);
    for (const bad of [0, -1, 1001]) {
      const r = await settings({ incident_management_notification_max_alerts: bad });
      expect(r).toMatchObject({
        status: 400,
        body: {
          message: { incident_management_notification_max_alerts: ['must be an integer from 1 to 1000'] },
        },
      });
    }
    expect((await settings({ incident_management_notification_max_alerts: 2 })).status).toBe(200);
    try {
      const three = await notify(
        integration.url,
        key,
        alertmanagerPayload([firing(1), firing(2), firing(3)]),
      );
      expect(three).toMatchObject({
        status: 413,
        body: { message: expect.stringMatching(/3 alerts; at most 2/) },
      });
      expect(await alerts(project.id)).toEqual([]);
      expect((await notify(integration.url, key, alertmanagerPayload([firing(1), firing(2)]))).status).toBe(
        200,
      );
      expect(await alerts(project.id)).toHaveLength(2);
    } finally {
      await settings({ incident_management_notification_max_alerts: 100 });
    }
    await healthy();
  });

  it('answers absurd dates with 422 naming the field and stores nothing', async () => {
    const generic = await freshProject('http');
    const prom = await freshProject('prometheus');
    const g = (body: unknown) => notify(generic.integration.url, generic.integration.authorization_key, body);
    const p = (body: unknown) => notify(prom.integration.url, prom.integration.authorization_key, body);

    const cases: [Promise<Awaited<ReturnType<typeof notify>>>, string][] = [
      [g({ title: 't', fingerprint: 'f', end_time: 1e20 }), 'end_time'],
      [g({ title: 't', end_time: -1e20 }), 'end_time'],
      [g({ title: 't', end_time: 8.64e15 + 1 }), 'end_time'],
      [g({ title: 't', end_time: 1.7976931348623157e308 }), 'end_time'],
      [g({ title: 't', end_time: '+275760-09-13T00:00:00Z' }), 'end_time'],
      [g({ title: 't', start_time: '+010000-01-01T00:00:00Z' }), 'start_time'],
      [g({ title: 't', start_time: '-000001-01-01T00:00:00Z' }), 'start_time'],
      [
        p(alertmanagerPayload([{ ...firing(1), startsAt: '+275760-09-13T00:00:00Z' }])),
        'alerts\\[0\\].startsAt',
      ],
      // Alone: an item beside valid ones is skipped instead (see alert-intake.test.ts).
      [
        p(alertmanagerPayload([{ ...firing(2), status: 'resolved', endsAt: '+100000-01-01T00:00:00Z' }])),
        'alerts\\[0\\].endsAt',
      ],
    ];
    for (const [sent, field] of cases) {
      const r = await sent;
      expect(r.status).toBe(422);
      expect(r.body.message).toMatch(
        new RegExp(
          `^422 Unprocessable Entity - ${field} is out of range: times must lie in the years 0001 to 9999$`,
        ),
      );
    }
    expect(await alerts(generic.project.id)).toEqual([]);
    expect(await alerts(prom.project.id)).toEqual([]);
    await healthy();

    // The edges of the range are stored and read back as sent, on both databases. The very first instant is Go's
    // zero time, which Alertmanager sends for "no time": it is no time (the receive time), never a stored date.
    expect((await g({ title: 'first', start_time: '0001-01-01T00:00:00.001Z' })).status).toBe(200);
    expect((await g({ title: 'last', start_time: '9999-12-31T23:59:59.999Z' })).status).toBe(200);
    expect((await g({ title: 'zero', start_time: '0001-01-01T00:00:00Z' })).status).toBe(200);
    const stored = (await alerts(generic.project.id)).map((a) => a.started_at);
    expect(stored.slice(0, 2)).toEqual(['0001-01-01T00:00:00.001Z', '9999-12-31T23:59:59.999Z']);
    expect(stored[2]!.startsWith('0001')).toBe(false);
  });

  it('refuses to reopen a resolved alert while another with its fingerprint is open (409) and changes nothing', async () => {
    const { project, integration } = await freshProject('http');
    const send = (body: unknown) => notify(integration.url, integration.authorization_key, body);
    expect((await send({ title: 'disk', fingerprint: 'disk' })).body).toEqual([{ iid: 1, title: 'disk' }]);
    expect((await send({ fingerprint: 'disk', end_time: '2026-11-21T12:00:00Z' })).status).toBe(200);
    expect((await send({ title: 'disk again', fingerprint: 'disk' })).body).toEqual([
      { iid: 2, title: 'disk again' },
    ]);
    const notesBefore = await notes(project.id, 1);

    for (const status of ['triggered', 'acknowledged', 'ignored']) {
      const r = await setStatus(project.id, 1, status);
      expect(r).toMatchObject({
        status: 409,
        body: {
          message:
            'An alert (^alert#2) with the same fingerprint is already open. To change the status of this alert, resolve the linked alert.',
        },
      });
    }
    const [first, second] = await alerts(project.id);
    expect(first).toMatchObject({ iid: 1, status: 'resolved', ended_at: '2026-11-21T12:00:00.000Z' });
    expect(second).toMatchObject({ iid: 2, status: 'triggered' });
    expect(await notes(project.id, 1)).toEqual(notesBefore);

    // Once the other is resolved, the first reopens; an alert without a fingerprint always can.
    expect((await setStatus(project.id, 2, 'resolved')).status).toBe(200);
    expect(await setStatus(project.id, 1, 'triggered')).toMatchObject({
      status: 200,
      body: { status: 'triggered' },
    });
    await send({ title: 'no fingerprint' });
    expect((await setStatus(project.id, 3, 'resolved')).status).toBe(200);
    expect((await setStatus(project.id, 3, 'triggered')).status).toBe(200);
    await healthy();
  });

  it('lets only one of two concurrent reopens of alerts sharing a fingerprint through (the other 409)', async () => {
    const { project, integration } = await freshProject('http');
    const send = (body: unknown) => notify(integration.url, integration.authorization_key, body);
    for (let round = 0; round < 5; round++) {
      const fp = `race-${round}`;
      const a = (await send({ title: 'a', fingerprint: fp })).body[0].iid as number;
      await send({ fingerprint: fp, end_time: '2026-11-21T12:00:00Z' });
      const b = (await send({ title: 'b', fingerprint: fp })).body[0].iid as number;
      await send({ fingerprint: fp, end_time: '2026-11-21T12:00:00Z' });

      const answers = await Promise.all([
        setStatus(project.id, a, 'triggered'),
        setStatus(project.id, b, 'triggered'),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const lost = answers.find((r) => r.status === 409)!;
      expect(lost.body.message).toMatch(
        /^An alert (\(\^alert#\d+\) )?with the same fingerprint is already open\./,
      );
      const open = (await alerts(project.id)).filter(
        (x) => [a, b].includes(x.iid) && x.status !== 'resolved',
      );
      expect(open).toHaveLength(1);
    }
    await healthy();
  });

  describe('the notification throttle', () => {
    beforeAll(async () => {
      const r = await settings({
        throttle_incident_management_notification_enabled: true,
        throttle_incident_management_notification_per_period: 3,
        throttle_incident_management_notification_period_in_seconds: 3600,
      });
      expect(r.status).toBe(200);
    });
    afterAll(async () => {
      await settings({ throttle_incident_management_notification_enabled: false });
    });

    it('is not tripped by unauthenticated requests: strangers cannot lock out the sender', async () => {
      const { project, integration } = await freshProject('http');
      for (const key of [null, 'wrong', 'x'.repeat(32), null, 'wrong', null, 'wrong']) {
        const r = await notify(integration.url, key, { title: 'spoof' });
        expect(r).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      }
      const key = integration.authorization_key;
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push(await notify(integration.url, key, { title: `real ${i}` }));
      expect(codes.map((c) => c.status)).toEqual([200, 200, 200, 429]);
      expect(codes[3]!.body).toEqual({ message: 'Retry later' });
      expect(Number(codes[3]!.headers.get('retry-after'))).toBeGreaterThan(3500);
      expect((await alerts(project.id)).map((a) => a.iid)).toEqual([1, 2, 3]);
      await healthy();
    });

    it('counts every spelling of a notify URL against the one integration', async () => {
      const { project, integration } = await freshProject('http');
      const key = integration.authorization_key;
      const url = new URL(integration.url);
      const path = url.pathname; // /root/hostile-N/alerts/notify/generic/<id>.json
      const id = path
        .split('/')
        .pop()!
        .replace(/\.json$/, '');
      const aliases = [
        path.replace(/\.json$/, ''),
        path.replace('/generic/', '/another-name/'),
        path.replace(project.path_with_namespace, project.path_with_namespace.toUpperCase()),
        `/${project.id}/alerts/notify/x/${id}.json`,
        path,
      ];
      const codes = [];
      for (const a of aliases) codes.push((await notify(`${s.url}${a}`, key, { title: a })).status);
      expect(codes).toEqual([200, 200, 200, 429, 429]);
      expect(await alerts(project.id)).toHaveLength(3);

      // Another integration has its own counter.
      const other = await freshProject('http');
      expect(
        (await notify(other.integration.url, other.integration.authorization_key, { title: 'o' })).status,
      ).toBe(200);
      await healthy();
    });
  });

  it('answers malformed percent-encoding in a notify path with 400 (the router refuses it before intake)', async () => {
    const { integration } = await freshProject('http');
    for (const bad of ['/root/%E0%A4%A/alerts/notify/x/abc.json', '/root/p/alerts/notify/x/abc%ZZ.json']) {
      const r = await notify(`${s.url}${bad}`, integration.authorization_key, {});
      expect(r).toMatchObject({
        status: 400,
        body: { error: '400 Bad request - the URL is not valid' },
      });
    }
    await healthy();
  });
});
