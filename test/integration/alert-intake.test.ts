import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertmanagerPayload, createIntegration, curl, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('alert intake (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let projectId: number;
  let http1: Awaited<ReturnType<typeof createIntegration>>;
  let prom: Awaited<ReturnType<typeof createIntegration>>;
  let n = 0;

  /** A fresh project with an HTTP integration, so tests do not see each other's alerts. */
  async function freshProject(extra: Record<string, unknown> = {}) {
    n++;
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: `intake-${n}`, ...extra },
    });
    const i = await createIntegration(api, s.rootToken, p.body.id, { name: 'Generic', type: 'http' });
    return { project: p.body as { id: number; path_with_namespace: string }, integration: i };
  }
  const alerts = async (pid: number, query = '') =>
    (
      await api.get(
        `/api/v4/projects/${pid}/alert_management/alerts?per_page=100&order_by=created_at&sort=asc${query}`,
        { token: s.rootToken },
      )
    ).body as any[];

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium', SVC_ALERT_PAYLOAD_LIMIT: '65536' } });
    api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Intake' } });
    projectId = p.body.id;
    http1 = await createIntegration(api, s.rootToken, projectId, { name: 'My Endpoint', type: 'http' });
    prom = await createIntegration(api, s.rootToken, projectId, {
      name: 'Prometheus',
      type: 'prometheus',
      api_url: 'http://placeholder.invalid',
    });
  });
  afterAll(() => s?.stop());

  it('generates GitLab-shaped notify URLs on SVC_EXTERNAL_URL', () => {
    expect(http1.url).toMatch(
      new RegExp(`^${s.url}/root/intake/alerts/notify/my-endpoint/[0-9a-f]{16}\\.json$`),
    );
    expect(prom.url).toBe(`${s.url}/root/intake/prometheus/alerts/notify.json`);
    expect(http1.authorization_key).toMatch(/^[0-9a-f]{32}$/);
  });

  it('accepts Bearer, Basic with a blank username, and credentials in the URL (real curl)', async () => {
    const { project, integration } = await freshProject();
    const bearer = await notify(integration.url, integration.authorization_key, { title: 'via bearer' });
    expect(bearer).toMatchObject({ status: 200, body: [{ iid: 1, title: 'via bearer' }] });
    const basic = await notify(
      integration.url,
      null,
      { title: 'via basic' },
      {
        authorization: `Basic ${Buffer.from(`:${integration.authorization_key}`).toString('base64')}`,
      },
    );
    expect(basic).toMatchObject({ status: 200, body: [{ iid: 2, title: 'via basic' }] });
    const u = new URL(integration.url);
    const inUrl = await curl([
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
      '--data',
      '{"title":"via url credentials"}',
      `${u.protocol}//:${integration.authorization_key}@${u.host}${u.pathname}`,
    ]);
    expect(inUrl).toEqual({ status: 200, body: [{ iid: 3, title: 'via url credentials' }] });
    const curlBasic = await curl([
      '-X',
      'POST',
      '-u',
      `:${integration.authorization_key}`,
      '-H',
      'Content-Type: application/json',
      '--data',
      '{"title":"curl -u"}',
      integration.url,
    ]);
    expect(curlBasic.status).toBe(200);
    expect((await alerts(project.id)).map((a) => a.title)).toEqual([
      'via bearer',
      'via basic',
      'via url credentials',
      'curl -u',
    ]);
  });

  it('refuses unknown projects (404), unknown or inactive integrations (403), missing or wrong keys (401)', async () => {
    const { project, integration } = await freshProject();
    const path = new URL(integration.url).pathname;
    const other = (p: string) => `${s.url}${p}`;
    expect(
      (
        await notify(
          other(path.replace(project.path_with_namespace, 'root/nope')),
          integration.authorization_key,
          {},
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await notify(
          other(path.replace(/[0-9a-f]{16}\.json$/, 'abcdef0123456789.json')),
          integration.authorization_key,
          {},
        )
      ).status,
    ).toBe(403);
    expect(await notify(integration.url, null, { title: 'x' })).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect((await notify(integration.url, 'f'.repeat(32), { title: 'x' })).status).toBe(401);
    const basicUserOnly = await notify(
      integration.url,
      null,
      { title: 'x' },
      {
        authorization: `Basic ${Buffer.from(`${integration.authorization_key}:`).toString('base64')}`,
      },
    );
    expect(basicUserOnly.status).toBe(401);
    await api.put(`/api/v4/projects/${project.id}/alert_management/integrations/${integration.id}`, {
      token: s.rootToken,
      body: { active: false },
    });
    expect((await notify(integration.url, integration.authorization_key, { title: 'x' })).status).toBe(403);
    // The Monitor feature off: the project takes no alerts.
    await api.put(`/api/v4/projects/${project.id}/alert_management/integrations/${integration.id}`, {
      token: s.rootToken,
      body: { active: true },
    });
    await api.put(`/api/v4/projects/${project.id}`, {
      token: s.rootToken,
      body: { monitor_access_level: 'disabled' },
    });
    expect((await notify(integration.url, integration.authorization_key, { title: 'x' })).status).toBe(404);
    expect(await alerts(project.id)).toEqual([]);
  });

  it('refuses oversized (413), invalid (400), too deep (400) and wrongly shaped (422) payloads and stores nothing', async () => {
    const { project, integration } = await freshProject();
    const big = { title: 'big', blob: 'x'.repeat(70_000) };
    expect((await notify(integration.url, integration.authorization_key, big)).status).toBe(413);
    const bad = await notify(integration.url, integration.authorization_key, '{"title": ');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/not valid JSON/);
    const deep = `${'{"a":'.repeat(101)}1${'}'.repeat(101)}`;
    expect((await notify(integration.url, integration.authorization_key, deep)).body.message).toMatch(
      /nested deeper than 100/,
    );
    const ok = `${'{"a":'.repeat(99)}1${'}'.repeat(99)}`;
    expect((await notify(integration.url, integration.authorization_key, ok)).status).toBe(200);
    expect((await notify(integration.url, integration.authorization_key, [1, 2])).status).toBe(422);
    expect((await notify(integration.url, integration.authorization_key, '')).status).toBe(400);
    const wrong = await notify(prom.url, prom.authorization_key, { title: 'generic body' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toMatch(/missing alerts, commonAnnotations/);
    expect((await alerts(project.id)).map((a) => a.title)).toEqual(['New: Alert']);
  });

  it('skips the invalid items of an Alertmanager payload and creates the others, as GitLab', async () => {
    const { project } = await freshProject();
    const am = await createIntegration(api, s.rootToken, project.id, {
      name: 'AM',
      type: 'prometheus',
      api_url: 'http://placeholder.invalid',
    });
    const startsAt = '2026-11-20T10:00:00Z';
    const res = await notify(
      am.url,
      am.authorization_key,
      alertmanagerPayload([
        { labels: { alertname: 'No start' } },
        { labels: { alertname: 'Good one' }, startsAt },
        { labels: {}, annotations: {}, startsAt },
        'not an object' as unknown as Record<string, unknown>,
        { labels: { alertname: 'No start either' }, startsAt: '' },
        { labels: { alertname: 'Good two' }, startsAt },
      ]),
    );
    expect(res).toMatchObject({ status: 200, body: [{ title: 'Good one' }, { title: 'Good two' }] });
    expect((await alerts(project.id)).map((a) => a.title)).toEqual(['Good one', 'Good two']);
    // Nothing valid: nothing created, and the sender is told why.
    const none = await notify(
      am.url,
      am.authorization_key,
      alertmanagerPayload([{ labels: { alertname: 'A' } }]),
    );
    expect(none).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/alerts\[0\] needs startsAt/) },
    });
    expect(await alerts(project.id)).toHaveLength(2);
    // The payload as a whole still has to be Alertmanager's.
    expect((await notify(am.url, am.authorization_key, { alerts: [] })).status).toBe(422);
  });

  it('applies the generic payload defaults and keeps every property', async () => {
    const { project, integration } = await freshProject();
    const before = Date.now();
    await notify(integration.url, integration.authorization_key, {
      description: 'd',
      hosts: 'db-1',
      severity: 'HIGH',
      service: 'api',
      monitoring_tool: 'Zabbix',
      svc_environment_name: 'production',
      runbook: 'https://runbooks/x',
      custom: { nested: [1, { deep: true }] },
    });
    await notify(integration.url, integration.authorization_key, {
      title: 'u',
      severity: 'unknown',
      hosts: ['a', 'b'],
    });
    await notify(integration.url, integration.authorization_key, {
      title: '   ',
      severity: 'catastrophic',
      start_time: '2026-01-02T03:04:05Z',
    });
    const [a, b, c] = await alerts(project.id);
    expect(a).toMatchObject({
      title: 'New: Alert',
      description: 'd',
      hosts: ['db-1'],
      severity: 'high',
      service: 'api',
      monitoring_tool: 'Zabbix',
      environment: 'production',
      runbook: 'https://runbooks/x',
      status: 'triggered',
      event_count: 1,
      ended_at: null,
      payload: { custom: { nested: [1, { deep: true }] } },
    });
    expect(Date.parse(a.started_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(b).toMatchObject({ severity: 'unknown', hosts: ['a', 'b'] });
    expect(c).toMatchObject({
      title: 'New: Alert',
      severity: 'critical',
      started_at: '2026-01-02T03:04:05.000Z',
    });
  });

  it('groups by fingerprint, resolves by end_time, and opens a new alert for a repeat after resolution', async () => {
    const { project, integration } = await freshProject();
    const send = (body: unknown) => notify(integration.url, integration.authorization_key, body);
    expect((await send({ title: 'Disk', fingerprint: ['disk', 1] })).body).toEqual([
      { iid: 1, title: 'Disk' },
    ]);
    // ["disk", 1] and "disk1" are the same fingerprint (GitLab joins array elements).
    expect((await send({ title: 'Disk again', fingerprint: 'disk1' })).body).toEqual([
      { iid: 1, title: 'Disk' },
    ]);
    let [a] = await alerts(project.id);
    expect(a).toMatchObject({ iid: 1, event_count: 2, title: 'Disk', status: 'triggered' });
    expect((await send({ fingerprint: 'disk1', end_time: '2026-11-21T12:00:00Z' })).body).toEqual([
      { iid: 1, title: 'Disk' },
    ]);
    [a] = await alerts(project.id);
    expect(a).toMatchObject({ status: 'resolved', ended_at: '2026-11-21T12:00:00.000Z', event_count: 2 });
    // A recovery with nothing open to resolve changes nothing.
    expect(await send({ fingerprint: 'disk1', end_time: '2026-11-21T12:00:00Z' })).toMatchObject({
      status: 200,
      body: [],
    });
    // Identical to the resolved alert: the resolved one stays, a new one opens.
    expect((await send({ title: 'Disk', fingerprint: ['disk', 1] })).body).toEqual([
      { iid: 2, title: 'Disk' },
    ]);
    const all = await alerts(project.id);
    expect(all.map((x) => [x.iid, x.status])).toEqual([
      [1, 'resolved'],
      [2, 'triggered'],
    ]);
    const notes = await api.get(`/api/v4/projects/${project.id}/alert_management/alerts/1/notes`, {
      token: s.rootToken,
    });
    expect(notes.body.map((x: { body: string }) => x.body)).toEqual([
      'logged an alert from **Generic**',
      'logged a recovery alert from **Generic**',
      'changed the status to **Resolved**',
    ]);
  });

  it('groups payloads without a fingerprint automatically (Premium, flag on by default) ignoring times and hosts', async () => {
    const { project, integration } = await freshProject();
    const send = (body: unknown) => notify(integration.url, integration.authorization_key, body);
    await send({ title: 'Auto', service: 'x', start_time: '2026-01-01T00:00:00Z', hosts: ['a'] });
    await send({ service: 'x', title: 'Auto', start_time: '2026-01-01T00:05:00Z', hosts: ['b'] });
    await send({ title: 'Auto', service: 'x', end_time: '2026-01-01T00:10:00Z' });
    const list = await alerts(project.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ event_count: 2, status: 'resolved' });
    // Turned off for this project's instance: every payload is a new alert.
    await api.post('/api/v4/features/generic_alert_fingerprinting', {
      token: s.rootToken,
      body: { value: false },
    });
    await send({ title: 'Manual', service: 'y' });
    await send({ title: 'Manual', service: 'y' });
    expect((await alerts(project.id)).filter((a) => a.title === 'Manual')).toHaveLength(2);
    await api.delete('/api/v4/features/generic_alert_fingerprinting', { token: s.rootToken });
  });

  it('honours generic_alert_fingerprinting turned off for one project while the instance has it on', async () => {
    const off = await freshProject();
    const on = await freshProject();
    const gate = await api.post('/api/v4/features/generic_alert_fingerprinting', {
      token: s.rootToken,
      body: { value: false, project: off.project.path_with_namespace },
    });
    expect(gate.status).toBe(201);
    const twice = async (p: typeof off) => {
      for (let i = 0; i < 2; i++)
        await notify(p.integration.url, p.integration.authorization_key, { title: 'Same', service: 'z' });
      return (await alerts(p.project.id)).length;
    };
    expect(await twice(off)).toBe(2);
    expect(await twice(on)).toBe(1);
    await api.delete('/api/v4/features/generic_alert_fingerprinting', { token: s.rootToken });
  });

  it('never opens two alerts for one fingerprint under concurrent identical requests', async () => {
    const { project, integration } = await freshProject();
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        notify(integration.url, integration.authorization_key, { title: 'Race', fingerprint: 'race' }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const list = await alerts(project.id);
    expect(list).toHaveLength(1);
    expect(list[0].event_count).toBe(25);
  });

  it('uses a custom mapping and falls back to the default fields when a mapped value is missing or blank', async () => {
    const { project, integration } = await freshProject();
    const example = {
      alert: { name: 'CPU', level: 'low', ts: '2026-05-01T00:00:00Z', ids: ['a', 'b'] },
      host: 'web-1',
    };
    const put = await api.put(
      `/api/v4/projects/${project.id}/alert_management/integrations/${integration.id}`,
      {
        token: s.rootToken,
        body: {
          payload_example: JSON.stringify(example),
          payload_attribute_mapping: {
            title: { path: ['alert', 'name'], type: 'string', label: 'alert/name' },
            severity: { path: ['alert', 'level'], type: 'string' },
            start_time: { path: ['alert', 'ts'], type: 'datetime' },
            fingerprint: { path: ['alert', 'ids'], type: 'array' },
            hosts: { path: ['host'], type: 'string' },
          },
        },
      },
    );
    expect(put.status).toBe(200);
    const fields = await api.get(
      `/api/v4/projects/${project.id}/alert_management/integrations/${integration.id}/payload_fields`,
      {
        token: s.rootToken,
      },
    );
    expect(fields.body.map((f: { label: string }) => f.label)).toEqual([
      'alert/name',
      'alert/level',
      'alert/ts',
      'alert/ids',
      'host',
    ]);
    await notify(integration.url, integration.authorization_key, example);
    await notify(integration.url, integration.authorization_key, {
      alert: { name: '  ', level: 'high' },
      title: 'Fallback title',
    });
    const [a, b] = await alerts(project.id);
    expect(a).toMatchObject({
      title: 'CPU',
      severity: 'low',
      started_at: '2026-05-01T00:00:00.000Z',
      hosts: ['web-1'],
    });
    expect(b).toMatchObject({ title: 'Fallback title', severity: 'high' });
    // Changing the sample payload clears the mapping.
    const changed = await api.put(
      `/api/v4/projects/${project.id}/alert_management/integrations/${integration.id}`,
      {
        token: s.rootToken,
        body: { payload_example: '{"other": 1}' },
      },
    );
    expect(changed.body.payload_attribute_mapping).toEqual({});
  });

  it('parses Alertmanager payloads: one alert per item, title sources, severity table, query, resolution', async () => {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'prom-only' } });
    const pi = await createIntegration(api, s.rootToken, p.body.id, {
      name: 'AM',
      type: 'prometheus',
      api_url: 'http://x.invalid',
    });
    await api.put(`/api/v4/projects/${p.body.id}/alert_management/settings`, {
      token: s.rootToken,
      body: { create_incident: true },
    });
    const severities: [string, string][] = [
      ['S1', 'critical'],
      ['fatal', 'critical'],
      ['page', 'high'],
      ['p2', 'high'],
      ['error', 'medium'],
      ['alert', 'medium'],
      ['warning', 'low'],
      ['s4', 'low'],
      ['notice', 'info'],
      ['debug', 'info'],
      ['minor', 'critical'],
      ['', 'critical'],
    ];
    const items = severities.map(([sev], i) => ({
      status: 'firing',
      labels: { alertname: `Alert${i}`, severity: sev, svc_environment_name: 'prod' },
      annotations:
        i === 0
          ? {
              title: 'Titled',
              summary: 'sum',
              description: 'desc',
              runbook: 'rb',
              svc_incident_markdown: '**Runbook**: page the DBA',
              extra: 'shown',
            }
          : i === 1
            ? { summary: 'Summarised' }
            : {},
      startsAt: '2026-11-21T10:00:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus:9090/graph?g0.expr=rate%28x%5B5m%5D%29+%3E+1&g0.tab=1',
    }));
    const r = await notify(pi.url, pi.authorization_key, alertmanagerPayload(items));
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(12);
    expect(r.body.slice(0, 3).map((x: { title: string }) => x.title)).toEqual([
      'Titled',
      'Summarised',
      'Alert2',
    ]);
    const list = await alerts(p.body.id);
    expect(list.map((a) => a.severity)).toEqual(severities.map(([, v]) => v));
    expect(list[0]).toMatchObject({
      description: 'desc',
      runbook: 'rb',
      environment: 'prod',
      monitoring_tool: 'Prometheus',
      incident: 1,
    });
    expect(list[0].payload.annotations.extra).toBe('shown');
    const incidents = await api.get(`/api/v4/projects/${p.body.id}/issues?issue_type=incident&per_page=100`, {
      token: s.rootToken,
    });
    expect(incidents.body).toHaveLength(12);
    const first = incidents.body.find((i: { iid: number }) => i.iid === 1);
    expect(first).toMatchObject({ title: 'Titled', state: 'opened', issue_type: 'incident' });
    expect(first.description).toContain('**Runbook**: page the DBA');
    // The metric query from generatorURL, with the y-axis label (svc_y_label, else the title sources).
    expect(first.description).toContain('**Metric:** `rate(x[5m]) > 1` (y-axis: Titled)');
    // Same alert again: occurrence counted; then resolved by status, which closes its incident.
    await notify(pi.url, pi.authorization_key, alertmanagerPayload([items[0]!]));
    const resolved = await notify(
      pi.url,
      pi.authorization_key,
      alertmanagerPayload([{ ...items[0]!, status: 'resolved', endsAt: '2026-11-21T11:00:00Z' }], 'resolved'),
    );
    expect(resolved.body).toEqual([{ iid: 1, title: 'Titled' }]);
    const a1 = (
      await api.get(`/api/v4/projects/${p.body.id}/alert_management/alerts/1`, { token: s.rootToken })
    ).body;
    expect(a1).toMatchObject({ status: 'resolved', event_count: 2, ended_at: '2026-11-21T11:00:00.000Z' });
    const inc1 = await api.get(`/api/v4/projects/${p.body.id}/issues/1`, { token: s.rootToken });
    expect(inc1.body.state).toBe('closed');
    // A different generator query is a different alert (fingerprint = startsAt/title/query).
    const other = await notify(
      pi.url,
      pi.authorization_key,
      alertmanagerPayload([{ ...items[2]!, generatorURL: 'http://p/graph?g0.expr=up' }]),
    );
    expect(other.body[0].iid).toBe(13);
  });

  it('throttles a notify URL when the admin turns the throttle on (429 with Retry-After)', async () => {
    const { integration } = await freshProject();
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: {
        throttle_incident_management_notification_enabled: true,
        throttle_incident_management_notification_per_period: 2,
        throttle_incident_management_notification_period_in_seconds: 3600,
      },
    });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++)
        codes.push(await notify(integration.url, integration.authorization_key, { title: 't' }));
      expect(codes.map((c) => c.status)).toEqual([200, 200, 429]);
      expect(Number(codes[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await api.put('/api/v4/application/settings', {
        token: s.rootToken,
        body: { throttle_incident_management_notification_enabled: false },
      });
    }
  });
});
