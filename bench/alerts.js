// Alert intake benchmark: new alerts, repeats of one fingerprint, and 10-item Alertmanager payloads, each
// against svc (SQLite by default; SVC_DATABASE_URL for PostgreSQL) and against a bare Node server doing the
// same JSON parse (the ceiling), in the same run. Loopback only; bounded by BENCH_SECONDS per scenario.
// The peer: Prometheus Alertmanager's own `POST /api/v2/alerts` (Debian's prometheus-alertmanager, when
// installed; PEER_ALERTMANAGER=path overrides /usr/bin/prometheus-alertmanager) gets the same alerts.
//   npm run build && node bench/alerts.js        (BENCH_SECONDS=10 BENCH_CONNECTIONS=10 by default)
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiClient,
  CEILING_READY,
  load,
  loadInTurns,
  peakRssMiB,
  resetPeakRss,
  row,
  SVC_READY,
  startChild,
  stopChild,
} from './lib.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const token = 'svcpat-bench-root-token-000000001';

const amItem = (i) => ({
  status: 'firing',
  labels: { alertname: `Bench${i}`, severity: 'warning', instance: `node-${i}` },
  annotations: { summary: `Bench alert ${i}`, description: 'load test' },
  startsAt: '2026-11-21T10:00:00Z',
  endsAt: '0001-01-01T00:00:00Z',
  generatorURL: `http://prometheus.invalid/graph?g0.expr=up%7Binstance%3D%22node-${i}%22%7D`,
});
const amPayload = JSON.stringify({
  version: '4',
  groupKey: '{}:{}',
  status: 'firing',
  receiver: 'svc',
  groupLabels: {},
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://alertmanager.invalid',
  alerts: Array.from({ length: 10 }, (_, i) => amItem(i)),
});
/** The same alerts in Alertmanager's API shape (postable alerts: labels, annotations, startsAt, generatorURL). */
const postable = ({ status: _status, endsAt: _endsAt, ...item }) => item;
const scenarios = [
  {
    name: 'new alerts (unique fingerprints)',
    kind: 'http',
    body: (n) => JSON.stringify({ title: 'Bench', fingerprint: `f-${n}-${Math.random()}`, severity: 'high' }),
    peer: (n) =>
      JSON.stringify([
        { labels: { alertname: 'Bench', fingerprint: `f-${n}-${Math.random()}`, severity: 'high' } },
      ]),
  },
  {
    name: 'repeats of one fingerprint',
    kind: 'http',
    body: JSON.stringify({ title: 'Bench repeat', fingerprint: 'same', severity: 'high' }),
    peer: JSON.stringify([{ labels: { alertname: 'Bench repeat', fingerprint: 'same', severity: 'high' } }]),
  },
  {
    name: 'Alertmanager, 10 alerts a request',
    kind: 'prometheus',
    body: amPayload,
    peer: JSON.stringify(Array.from({ length: 10 }, (_, i) => postable(amItem(i)))),
  },
];

/** A free loopback port (Alertmanager prints the address it was given, not the one it got). */
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Starts Alertmanager on loopback with a temporary storage path and a receiver that sends nowhere. */
async function startAlertmanager(dir) {
  const binary = process.env.PEER_ALERTMANAGER ?? '/usr/bin/prometheus-alertmanager';
  if (!existsSync(binary)) return null;
  const port = await freePort();
  writeFileSync(
    join(dir, 'alertmanager.yml'),
    'route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n',
  );
  const child = await startChild(
    binary,
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'alertmanager-data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    {},
    null,
  );
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return Object.assign(child, { url });
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new Error('Alertmanager did not become ready');
}

const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const svc = await startChild(
  'node',
  ['bin/svc.js', 'server'],
  {
    SVC_PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ROOT_PASSWORD: 'bench-password-1',
    SVC_ROOT_TOKEN: token,
    SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'info',
  },
  SVC_READY,
);
const ceiling = await startChild('node', ['bench/ceiling-server.js'], {}, CEILING_READY);
const alertmanager = await startAlertmanager(dataDir);

try {
  const base = svc.url;
  const api = apiClient(base, token);
  const project = await api('POST', '/api/v4/projects', { name: 'bench' });
  const integrations = {
    http: await api('POST', `/api/v4/projects/${project.id}/alert_management/integrations`, {
      name: 'Bench',
      type: 'http',
    }),
    prometheus: await api('POST', `/api/v4/projects/${project.id}/alert_management/integrations`, {
      name: 'Bench AM',
      type: 'prometheus',
      api_url: 'http://prometheus.invalid',
    }),
  };
  console.log(
    `svc alert intake benchmark: ${seconds}s per scenario, ${connections} connections, database ${process.env.SVC_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, log level ${process.env.SVC_LOG_LEVEL ?? 'info'}`,
  );
  // BENCH_ONLY=<regex>: only the scenarios whose name matches (e.g. to profile one of them).
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
  for (const sc of scenarios.filter((s) => !only || only.test(s.name))) {
    const i = integrations[sc.kind];
    const targets = [
      { url: `${ceiling.url}/`, body: sc.body, connections, pid: ceiling.pid },
      {
        url: i.url,
        headers: { authorization: `Bearer ${i.authorization_key}` },
        body: sc.body,
        connections,
        pid: svc.pid,
      },
      ...(alertmanager
        ? [{ url: `${alertmanager.url}/api/v2/alerts`, body: sc.peer, connections, pid: alertmanager.pid }]
        : []),
    ];
    for (const t of targets) resetPeakRss(t.pid);
    const [top, r, peer] = await loadInTurns(targets, { seconds });
    row(`ceiling: ${sc.name}`, top, null, peakRssMiB(ceiling.pid));
    row(`svc:     ${sc.name}`, r, top, peakRssMiB(svc.pid));
    // Latency at half the rate svc just reached (the p99 target: at most 20 ms there).
    const half = await load({
      ...targets[1],
      seconds: Math.max(2, Math.round(seconds / 2)),
      rate: r.rps / 2,
    });
    console.log(
      `svc at half that rate (${(r.rps / 2).toFixed(0)} req/s offered, ${half.rps.toFixed(0)} served): p50 ${half.p50} ms  p99 ${half.p99} ms  non-2xx ${half.errors}  (p99 target 20 ms: ${((half.p99 / 20) * 100).toFixed(0)}% of it)`,
    );
    if (peer) {
      row('peer:    Alertmanager /api/v2/alerts', peer, top, peakRssMiB(alertmanager.pid));
      console.log(
        `         svc / Alertmanager: ${((r.rps / peer.rps) * 100).toFixed(0)}% of its req/s, ${((peer.cpuUs / r.cpuUs) * 100).toFixed(0)}% of its rate by CPU per request`,
      );
    }
  }
  const counts = await api('GET', `/api/v4/projects/${project.id}/alert_management/alerts/counts`);
  console.log(`alerts stored: ${counts.all}`);
} finally {
  await stopChild(svc);
  await stopChild(ceiling);
  if (alertmanager) await stopChild(alertmanager);
  rmSync(dataDir, { recursive: true, force: true });
}
