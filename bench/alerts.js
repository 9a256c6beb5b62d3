// Alert intake benchmark: new alerts, repeats of one fingerprint, and 10-item Alertmanager payloads, each
// against svc (SQLite by default; SVC_DATABASE_URL for PostgreSQL) and against a bare Node server doing the
// same JSON parse (the ceiling), in the same run. Loopback only; bounded by BENCH_SECONDS per scenario.
//   npm run build && node bench/alerts.js        (BENCH_SECONDS=10 BENCH_CONNECTIONS=10 by default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiClient,
  CEILING_READY,
  cpuMs,
  load,
  peakRssMiB,
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
const scenarios = [
  {
    name: 'new alerts (unique fingerprints)',
    kind: 'http',
    body: (n) => JSON.stringify({ title: 'Bench', fingerprint: `f-${n}-${Math.random()}`, severity: 'high' }),
  },
  {
    name: 'repeats of one fingerprint',
    kind: 'http',
    body: JSON.stringify({ title: 'Bench repeat', fingerprint: 'same', severity: 'high' }),
  },
  { name: 'Alertmanager, 10 alerts a request', kind: 'prometheus', body: amPayload },
];

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
  for (const sc of scenarios) {
    const i = integrations[sc.kind];
    const top = await load({ url: `${ceiling.url}/`, body: sc.body, seconds, connections });
    const cpuBefore = cpuMs(svc.pid);
    const r = await load({
      url: i.url,
      headers: { authorization: `Bearer ${i.authorization_key}` },
      body: sc.body,
      seconds,
      connections,
    });
    row(`ceiling: ${sc.name}`, top, null, peakRssMiB(ceiling.pid));
    const cpuUs = ((cpuMs(svc.pid) - cpuBefore) * 1000) / Math.max(r.total, 1);
    row(`svc:     ${sc.name}`, r, top, peakRssMiB(svc.pid), cpuUs);
  }
  const counts = await api('GET', `/api/v4/projects/${project.id}/alert_management/alerts/counts`);
  console.log(`alerts stored: ${counts.all}`);
} finally {
  await stopChild(svc);
  await stopChild(ceiling);
  rmSync(dataDir, { recursive: true, force: true });
}
