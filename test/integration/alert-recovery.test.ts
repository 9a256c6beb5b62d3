import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertmanagerPayload, createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A payload as the tool's documentation shows it (test/fixtures/monitoring-tools/README.md says where from). */
const fixture = (name: string): Record<string, any> =>
  JSON.parse(readFileSync(new URL(`../fixtures/monitoring-tools/${name}.json`, import.meta.url), 'utf8'));

/** Each tool's notification that opens an alert, and the one that says it recovered. */
const TOOLS = [
  ['Datadog', 'datadog-triggered', 'datadog-recovered', '[Triggered on {host:web-1}] Load is high'],
  [
    'New Relic (workflow)',
    'newrelic-workflow-activated',
    'newrelic-workflow-closed',
    "Memory Used % > 90 for at least 2 minutes on 'checkout'",
  ],
  ['New Relic (legacy webhook)', 'newrelic-legacy-open', 'newrelic-legacy-closed', 'High CPU'],
  ['Zabbix', 'zabbix-problem', 'zabbix-resolved', 'High CPU utilization (over 90% for 5m)'],
] as const;

describe.each(await databases())('alert recovery from monitoring tools (%s)', (database) => {
  describe.each(['premium', 'free'])('on %s', (tier) => {
    let s: TestServer;
    let api: ReturnType<typeof http>;
    let n = 0;

    beforeAll(async () => {
      s = await startTestServer({ database, env: { SVC_TIER: tier } });
      api = http(s.url);
    });
    afterAll(() => s?.stop());

    /** A fresh project with one HTTP integration, so each test sees only its own alerts. */
    async function fresh(body: Record<string, unknown> = {}) {
      n++;
      const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `recovery-${n}` } });
      const i = await createIntegration(api, s.rootToken, p.body.id, {
        name: 'Generic',
        type: 'http',
        ...body,
      });
      return { projectId: p.body.id as number, integration: i };
    }
    const alerts = async (pid: number) =>
      (
        await api.get(
          `/api/v4/projects/${pid}/alert_management/alerts?per_page=100&order_by=created_at&sort=asc`,
          {
            token: s.rootToken,
          },
        )
      ).body as any[];
    const integrationOf = async (pid: number, id: number) =>
      (await api.get(`/api/v4/projects/${pid}/alert_management/integrations/${id}`, { token: s.rootToken }))
        .body;

    it.each(
      TOOLS,
    )('%s: the documented firing payload opens an alert, its recovery resolves it', async (tool, firing, recovered, title) => {
      const { projectId, integration } = await fresh();
      const opened = await notify(integration.url, integration.authorization_key, fixture(firing));
      expect(opened).toMatchObject({ status: 200, body: [{ iid: 1, title }] });
      // A repeat of the same notification (Datadog's Re-Triggered, a renotification) is the same alert.
      await notify(integration.url, integration.authorization_key, fixture(firing));
      const open = await alerts(projectId);
      expect(open).toHaveLength(1);
      expect(open[0]).toMatchObject({ status: 'triggered', event_count: 2, ended_at: null });
      expect(open[0].monitoring_tool).toBe(tool.replace(/ \(.*\)$/, ''));

      const closed = await notify(integration.url, integration.authorization_key, fixture(recovered));
      expect(closed).toMatchObject({ status: 200, body: [{ iid: 1 }] });
      const after = await alerts(projectId);
      expect(after).toHaveLength(1);
      expect(after[0].status).toBe('resolved');
      expect(after[0].ended_at).not.toBeNull();
    });

    it("Grafana's webhook: one alert per entry, each resolved by its own recovery, with its end time", async () => {
      const { projectId, integration } = await fresh();
      const opened = await notify(integration.url, integration.authorization_key, fixture('grafana-firing'));
      expect(opened).toMatchObject({
        status: 200,
        body: [
          { iid: 1, title: 'High memory usage' },
          { iid: 2, title: 'High CPU usage' },
        ],
      });
      const open = await alerts(projectId);
      expect(open).toHaveLength(2);
      expect(open[0]).toMatchObject({
        status: 'triggered',
        monitoring_tool: 'Grafana',
        description: 'The system has high memory usage',
        runbook: 'https://myrunbook.com/runbook/1234',
        started_at: '2021-10-12T07:51:03.157Z',
        // Go's zero time in endsAt is no end.
        ended_at: null,
      });
      // Grafana's own fields are kept with the alert (the alert page shows them).
      expect(open[0].payload).toMatchObject({
        silenceURL: expect.stringContaining('https://play.grafana.org/alerting/silence/new'),
        values: { B: 44.23943737541908, C: 1 },
      });
      // An Alertmanager-shaped payload from Grafana is no mistake: no warning.
      expect((await integrationOf(projectId, integration.id)).warnings.map((w: any) => w.code)).not.toContain(
        'alertmanager_payload',
      );

      const closed = await notify(
        integration.url,
        integration.authorization_key,
        fixture('grafana-resolved'),
      );
      expect(closed.status).toBe(200);
      const after = await alerts(projectId);
      expect(after).toHaveLength(2);
      expect(after.map((a) => [a.status, a.ended_at])).toEqual([
        ['resolved', '2021-10-12T08:11:03.157Z'],
        ['resolved', '2021-10-12T08:16:03.157Z'],
      ]);
    });

    it('a top-level status of resolved resolves the alert with the same fingerprint', async () => {
      const { projectId, integration } = await fresh();
      const key = integration.authorization_key;
      await notify(integration.url, key, { title: 'Disk full', fingerprint: 'disk-1' });
      await notify(integration.url, key, { title: 'Other', fingerprint: 'disk-2' });
      const r = await notify(integration.url, key, {
        title: 'Disk full',
        fingerprint: 'disk-1',
        status: 'Resolved',
      });
      expect(r.body).toEqual([{ iid: 1, title: 'Disk full' }]);
      expect((await alerts(projectId)).map((a) => a.status)).toEqual(['resolved', 'triggered']);
      // Any other status is a firing notification.
      await notify(integration.url, key, { title: 'Other', fingerprint: 'disk-2', status: 'firing' });
      expect((await alerts(projectId)).map((a) => [a.status, a.event_count])).toEqual([
        ['resolved', 1],
        ['triggered', 2],
      ]);
    });

    it('accepts epoch seconds and milliseconds; Go zero time is no time', async () => {
      const { projectId, integration } = await fresh();
      const key = integration.authorization_key;
      await notify(integration.url, key, { title: 'seconds', start_time: 1700000000 });
      await notify(integration.url, key, { title: 'milliseconds', start_time: 1700000000123 });
      await notify(integration.url, key, { title: 'text', start_time: '1700000000' });
      await notify(integration.url, key, {
        title: 'zero',
        fingerprint: 'zero',
        start_time: '0001-01-01T00:00:00Z',
        end_time: '0001-01-01T00:00:00Z',
      });
      const list = await alerts(projectId);
      expect(list.map((a) => [a.title, a.started_at])).toEqual([
        ['seconds', '2023-11-14T22:13:20.000Z'],
        ['milliseconds', '2023-11-14T22:13:20.123Z'],
        ['text', '2023-11-14T22:13:20.000Z'],
        ['zero', expect.not.stringMatching(/^0001-/)],
      ]);
      // The zero end time neither resolved the alert nor was stored.
      expect(list[3]).toMatchObject({ status: 'triggered', ended_at: null });
      const resolved = await notify(integration.url, key, { fingerprint: 'zero', end_time: 1700000600 });
      expect(resolved.body).toEqual([{ iid: 4, title: 'zero' }]);
      expect((await alerts(projectId))[3]).toMatchObject({
        status: 'resolved',
        ended_at: '2023-11-14T22:23:20.000Z',
      });
    });

    it('takes runbook_url as the runbook', async () => {
      const { projectId, integration } = await fresh();
      await notify(integration.url, integration.authorization_key, {
        title: 'with runbook_url',
        runbook_url: 'https://runbooks.example.com/x',
      });
      expect((await alerts(projectId))[0].runbook).toBe('https://runbooks.example.com/x');
    });

    it('an Alertmanager payload on an HTTP endpoint: 200 as before, and a warning on the integration', async () => {
      const { projectId, integration } = await fresh();
      const payload = alertmanagerPayload([
        {
          status: 'firing',
          labels: { alertname: 'HighLatency' },
          annotations: {},
          startsAt: '2026-01-01T00:00:00Z',
          endsAt: '0001-01-01T00:00:00Z',
        },
      ]);
      const r = await notify(integration.url, integration.authorization_key, payload);
      expect(r).toMatchObject({ status: 200, body: [{ iid: 1, title: 'New: Alert' }] });
      const warned = await integrationOf(projectId, integration.id);
      expect(warned.warnings).toContainEqual({
        code: 'alertmanager_payload',
        message: expect.stringContaining('use a Prometheus integration'),
        recorded_at: expect.any(String),
      });
      // Listed the same way, and recorded once however often it comes.
      await notify(integration.url, integration.authorization_key, payload);
      const listed = (
        await api.get(`/api/v4/projects/${projectId}/alert_management/integrations`, { token: s.rootToken })
      ).body.find((i: any) => i.id === integration.id);
      expect(listed.warnings.filter((w: any) => w.code === 'alertmanager_payload')).toEqual([
        warned.warnings.find((w: any) => w.code === 'alertmanager_payload'),
      ]);
      // Saving the integration clears what intake noticed.
      await api.put(`/api/v4/projects/${projectId}/alert_management/integrations/${integration.id}`, {
        token: s.rootToken,
        body: { name: 'Generic (fixed)' },
      });
      expect((await integrationOf(projectId, integration.id)).warnings.map((w: any) => w.code)).not.toContain(
        'alertmanager_payload',
      );
    });

    if (tier === 'free') {
      it('on Free, an HTTP endpoint warns that without a fingerprint every repeat is a new alert', async () => {
        const { projectId, integration } = await fresh();
        expect(integration.warnings).toEqual([
          {
            code: 'no_fingerprint',
            message: expect.stringContaining('every notification opens a new alert'),
            recorded_at: null,
          },
        ]);
        await notify(integration.url, integration.authorization_key, { title: 'same' });
        await notify(integration.url, integration.authorization_key, { title: 'same' });
        expect(await alerts(projectId)).toHaveLength(2);
        const prom = await createIntegration(api, s.rootToken, projectId, {
          name: 'Prometheus',
          type: 'prometheus',
          api_url: 'http://placeholder.invalid',
        });
        expect(prom.warnings).toEqual([]);
      });
    } else {
      it('on Premium, no fingerprint warning (payloads are grouped automatically)', async () => {
        const { integration } = await fresh();
        expect(integration.warnings).toEqual([]);
      });

      it('a mapped status with resolved_values: validated, stored, applied', async () => {
        const example = { event: { id: 'a', state: 'alerting', name: 'Queue stuck' } };
        const bad = await api.post(
          `/api/v4/projects/${(await fresh()).projectId}/alert_management/integrations`,
          {
            token: s.rootToken,
            body: {
              name: 'Mapped',
              type: 'http',
              payload_example: JSON.stringify(example),
              payload_attribute_mapping: {
                status: { path: ['event', 'state'], type: 'string' },
                title: { path: ['event', 'name'], type: 'string', resolved_values: ['ok'] },
              },
            },
          },
        );
        expect(bad.status).toBe(400);
        expect(JSON.stringify(bad.body)).toContain('status.resolved_values must list 1 to 50 values');
        expect(JSON.stringify(bad.body)).toContain('title has unknown keys: resolved_values');

        const mapping = {
          title: { path: ['event', 'name'], type: 'string', label: 'event/name' },
          fingerprint: { path: ['event', 'id'], type: 'string', label: 'event/id' },
          status: {
            path: ['event', 'state'],
            type: 'string',
            label: 'event/state',
            resolved_values: ['ok', 'Recovered'],
          },
        };
        const { projectId, integration } = await fresh({
          payload_example: JSON.stringify(example),
          payload_attribute_mapping: mapping,
        });
        expect(integration.payload_attribute_mapping).toEqual(mapping);
        const key = integration.authorization_key;
        await notify(integration.url, key, example);
        await notify(integration.url, key, { event: { id: 'a', state: 'resolved?' } });
        expect((await alerts(projectId)).map((a) => [a.title, a.status, a.event_count])).toEqual([
          ['Queue stuck', 'triggered', 2],
        ]);
        const r = await notify(integration.url, key, { event: { id: 'a', state: ' OK ' } });
        expect(r.body).toEqual([{ iid: 1, title: 'Queue stuck' }]);
        expect((await alerts(projectId))[0].status).toBe('resolved');
      });

      it('mapped times in epoch milliseconds (New Relic createdAt)', async () => {
        const example = fixture('newrelic-workflow-activated');
        const { projectId, integration } = await fresh({
          payload_example: JSON.stringify(example),
          payload_attribute_mapping: { start_time: { path: ['createdAt'], type: 'datetime' } },
        });
        await notify(integration.url, integration.authorization_key, example);
        expect((await alerts(projectId))[0].started_at).toBe('2023-11-14T22:13:20.000Z');
      });
    }
  });
});
