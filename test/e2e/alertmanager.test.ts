import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration } from '../helpers/alerts.js';
import { http } from '../helpers/http.js';
import { freePort, startTestServer, type TestServer } from '../helpers/server.js';

const BINARY = '/usr/bin/prometheus-alertmanager';
const present = existsSync(BINARY);
if (!present && process.env.CI)
  throw new Error(`${BINARY} is required in CI (Debian package prometheus-alertmanager)`);

/** Polls `fn` until it returns a truthy value or the deadline passes (no fixed sleeps). */
async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!present)('real Prometheus Alertmanager 0.25 → metrics-alerting integration', () => {
  let s: TestServer;
  let am: ChildProcess;
  let amUrl: string;
  let projectId: number;
  let dir: string;
  let amLog = '';

  beforeAll(async () => {
    s = await startTestServer();
    const api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Monitored' } });
    projectId = p.body.id;
    const integration = await createIntegration(api, s.rootToken, projectId, {
      name: 'Alertmanager',
      type: 'prometheus',
      api_url: 'http://prometheus.invalid',
    });
    dir = mkdtempSync(join(tmpdir(), 'svc-am-'));
    const port = await freePort();
    amUrl = `http://127.0.0.1:${port}`;
    const config = join(dir, 'alertmanager.yml');
    writeFileSync(
      config,
      [
        'route:',
        '  receiver: svc',
        "  group_by: ['alertname']",
        '  group_wait: 1s',
        '  group_interval: 1s',
        '  repeat_interval: 1h',
        'receivers:',
        '  - name: svc',
        '    webhook_configs:',
        `      - url: '${integration.url}'`,
        '        send_resolved: true',
        '        http_config:',
        '          authorization:',
        '            type: Bearer',
        `            credentials: '${integration.authorization_key}'`,
        '',
      ].join('\n'),
    );
    am = spawn(
      BINARY,
      [
        `--config.file=${config}`,
        `--storage.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
        '--log.level=debug',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    am.stderr?.on('data', (d) => {
      amLog += String(d);
    });
    await until(
      async () => (await fetch(`${amUrl}/-/ready`).catch(() => null))?.ok,
      'Alertmanager to be ready',
      30_000,
    );
  });

  afterAll(async () => {
    if (am && am.exitCode === null) {
      const exited = new Promise((r) => am.once('exit', r));
      am.kill('SIGTERM');
      await exited;
    }
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const alertsOf = async () =>
    (
      await http(s.url).get(
        `/api/v4/projects/${projectId}/alert_management/alerts?order_by=created_at&sort=asc`,
        { token: s.rootToken },
      )
    ).body as {
      title: string;
      status: string;
      severity: string;
      description: string | null;
      event_count: number;
    }[];

  it('delivers fired alerts as svc alerts and resolves them when they end', async () => {
    const startsAt = new Date().toISOString();
    const alerts = [
      {
        labels: { alertname: 'HighErrorRate', service: 'checkout', severity: 'warning' },
        annotations: {
          summary: 'Error rate above 5%',
          description: 'checkout is failing',
          runbook: 'http://runbooks.invalid/x',
        },
        generatorURL: 'http://prometheus.invalid/graph?g0.expr=rate%28errors%5B5m%5D%29+%3E+0.05&g0.tab=1',
        startsAt,
      },
      {
        labels: { alertname: 'HighErrorRate', service: 'cart', severity: 'page' },
        annotations: { summary: 'Cart errors' },
        startsAt,
      },
    ];
    const post = await fetch(`${amUrl}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts),
    });
    expect(post.status).toBe(200);
    const fired = await until(
      async () => {
        const list = await alertsOf();
        return list.length === 2 ? list : null;
      },
      `two alerts to arrive (alertmanager log:\n${amLog.slice(-2000)})`,
    );
    expect(fired.map((a) => [a.title, a.severity, a.status]).sort()).toEqual([
      ['Cart errors', 'high', 'triggered'],
      ['Error rate above 5%', 'low', 'triggered'],
    ]);
    expect(fired.find((a) => a.title === 'Error rate above 5%')?.description).toBe('checkout is failing');

    // End one of them: Alertmanager sends it with status resolved (send_resolved: true).
    const endsAt = new Date().toISOString();
    const resolve = await fetch(`${amUrl}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ ...alerts[0], endsAt }]),
    });
    expect(resolve.status).toBe(200);
    const after = await until(async () => {
      const list = await alertsOf();
      return list.find((a) => a.title === 'Error rate above 5%')?.status === 'resolved' ? list : null;
    }, 'the resolved notification');
    expect(after.find((a) => a.title === 'Cart errors')?.status).toBe('triggered');
    // No duplicates: repeats within the episode were counted, not created.
    expect(after).toHaveLength(2);
  });
});
