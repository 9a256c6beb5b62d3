import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration } from '../helpers/alerts.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const BINARY = '/usr/bin/prometheus-alertmanager';
const present = existsSync(BINARY);
if (!present && process.env.CI)
  throw new Error(`${BINARY} is required in CI (Debian package prometheus-alertmanager)`);

/**
 * The TCP ports a process listens on, from /proc (its socket inodes among the LISTEN rows of its network
 * namespace's tables): Alertmanager binds `127.0.0.1:0` and the test reads the port it got.
 */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link = '';
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m) inodes.add(m[1]!);
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st ... inode: `0100007F:8AE3 00000000:0000 0A ... 123456`
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && f[9] !== undefined && inodes.has(f[9]))
        ports.push(Number.parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

describe.skipIf(!present)(
  "real Prometheus Alertmanager: the Watchdog is a Prometheus integration's heartbeat",
  () => {
    let s: TestServer;
    let am: ChildProcess;
    let amUrl: string;
    let projectId: number;
    let integrationId: number;
    let dir: string;
    let amLog = '';

    beforeAll(async () => {
      s = await startTestServer();
      const api = http(s.url);
      const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Watched' } });
      projectId = p.body.id;
      const integration = await createIntegration(api, s.rootToken, projectId, {
        name: 'Alertmanager',
        type: 'prometheus',
        api_url: 'http://prometheus.invalid',
        heartbeat: { interval_seconds: 60, grace_seconds: 0 },
      });
      integrationId = integration.id;
      dir = mkdtempSync(join(tmpdir(), 'svc-am-watchdog-'));
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
          '--web.listen-address=127.0.0.1:0',
          '--cluster.listen-address=',
          '--log.level=debug',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      am.stderr?.on('data', (d) => {
        amLog += String(d);
      });
      const port = await until(
        async () => {
          if (am.exitCode !== null) throw new Error(`Alertmanager exited:\n${amLog}`);
          const ports = listeningPorts(am.pid!);
          return ports.length === 1 ? ports[0] : null;
        },
        () => `Alertmanager to listen:\n${amLog}`,
        30_000,
      );
      amUrl = `http://127.0.0.1:${port}`;
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
      (await http(s.url).get(`/api/v4/projects/${projectId}/alert_management/alerts`, { token: s.rootToken }))
        .body as { title: string; status: string }[];
    const heartbeat = async () =>
      (
        await http(s.url).get(
          `/api/v4/projects/${projectId}/alert_management/integrations/${integrationId}`,
          {
            token: s.rootToken,
          },
        )
      ).body.heartbeat as { status: string; last_seen_at: string | null };
    const fire = async (labels: Record<string, string>) => {
      const r = await fetch(`${amUrl}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([
          {
            labels: { alertname: 'Watchdog', severity: 'none', ...labels },
            annotations: {
              summary: 'An alert that should always be firing to certify that Alertmanager is working.',
            },
            startsAt: new Date().toISOString(),
          },
        ]),
      });
      expect(r.status).toBe(200);
    };

    it('counts the delivered Watchdog as a call, pages when it stops, and resolves when it comes back', async () => {
      await fire({ prometheus: 'monitoring/k8s' });
      await until(
        async () => (await heartbeat()).status === 'up',
        () => `the Watchdog to arrive:\n${amLog.slice(-2000)}`,
        60_000,
        200,
      );
      // Not stored as an alert.
      expect(await alertsOf()).toEqual([]);

      // Alertmanager (or what feeds it) goes quiet past interval plus grace.
      s.clock.advance(61_000);
      await s.server.ctx.jobs.drain();
      expect(await alertsOf()).toMatchObject([
        { title: 'Heartbeat missed: Alertmanager', status: 'triggered' },
      ]);

      // It delivers again (a changed group is sent at once): the alert resolves, and no Watchdog alert is stored.
      const before = (await heartbeat()).last_seen_at;
      await fire({ prometheus: 'monitoring/k8s-2' });
      await until(
        async () => (await alertsOf())[0]?.status === 'resolved',
        () => `the Watchdog's next delivery:\n${amLog.slice(-2000)}`,
        60_000,
        200,
      );
      const after = await heartbeat();
      expect(after.status).toBe('up');
      expect(after.last_seen_at).not.toBe(before);
      expect(await alertsOf()).toHaveLength(1);
    });
  },
);
