// Error ingestion benchmark: gzip'd envelopes of realistic events (stack trace with context, breadcrumbs,
// contexts, user) against svc (SQLite by default; SVC_DATABASE_URL for PostgreSQL) and against a bare Node
// server that gunzips and parses the same bodies (the ceiling), in the same run. Loopback only, bounded.
//   npm run build && node bench/errors.js        (BENCH_SECONDS=10 BENCH_CONNECTIONS=10 by default)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  apiClient,
  CEILING_READY,
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
const token = 'svcpat-bench-root-token-000000002';

/** A realistic event: one of 20 error kinds, one of 200 users, ~3 KB of JSON. */
function event(i) {
  const kind = i % 20;
  const frames = Array.from({ length: 12 }, (_, f) => ({
    filename: `src/module${f}.js`,
    abs_path: `/srv/app/src/module${f}.js`,
    function: `handler${kind}_${f}`,
    module: `module${f}`,
    lineno: 10 + f,
    colno: 5,
    in_app: f > 3,
    pre_context: ['  const a = 1;', '  const b = 2;'],
    context_line: `  throw new Error('kind ${kind}');`,
    post_context: ['}', ''],
  }));
  return {
    event_id: randomUUID().replace(/-/g, ''),
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    release: 'shop@1.4.2',
    environment: 'production',
    server_name: 'web-3',
    user: { id: `user-${i % 200}`, ip_address: '203.0.113.7' },
    tags: { route: `/api/items/${kind}`, region: 'eu' },
    contexts: { runtime: { name: 'node', version: 'v20.20.2' }, os: { name: 'Linux' } },
    breadcrumbs: {
      values: Array.from({ length: 5 }, (_, b) => ({
        timestamp: Date.now() / 1000,
        category: 'http',
        message: `GET /api/items/${b}`,
        level: 'info',
      })),
    },
    exception: {
      values: [{ type: `Error${kind}`, value: `kind ${kind} failed for item ${i}`, stacktrace: { frames } }],
    },
    sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
  };
}

function envelope(e) {
  const payload = JSON.stringify(e);
  return gzipSync(
    [
      JSON.stringify({ event_id: e.event_id, sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) }),
      payload,
    ].join('\n'),
  );
}

// Every request svc gets carries a new event_id (a repeated one is only acknowledged, not stored): enough bodies
// for the run (BENCH_EVENTS; the bench says when svc got more requests than that).
const bodies = Array.from({ length: Number(process.env.BENCH_EVENTS ?? 40_000) }, (_, i) =>
  envelope(event(i)),
);
const averageBytes = bodies.reduce((n, b) => n + b.length, 0) / bodies.length;

const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const svc = await startChild(
  'node',
  ['bin/svc.js', 'server'],
  {
    SVC_PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ROOT_PASSWORD: 'bench-password-1',
    SVC_ROOT_TOKEN: token,
    SVC_OFFERING: 'hosted',
    SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'info',
  },
  SVC_READY,
);
const ceiling = await startChild('node', ['bench/ceiling-gunzip-server.js'], {}, CEILING_READY);

try {
  const base = svc.url;
  const api = apiClient(base, token);
  const project = await api('POST', '/api/v4/projects', { name: 'bench' });
  await api('PUT', `/api/v4/projects/${project.id}/error_tracking/settings`, {
    active: true,
    integrated: true,
  });
  const [key] = await api('GET', `/api/v4/projects/${project.id}/error_tracking/client_keys`);
  const headers = { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' };
  /** Bodies in order across all turns of one target. */
  const sequence = () => {
    let k = 0;
    return () => bodies[k++ % bodies.length];
  };
  console.log(
    `svc error ingestion benchmark: ${seconds}s, ${connections} connections, gzip'd envelopes of ${(averageBytes / 1024).toFixed(1)} KiB (one event each), database ${process.env.SVC_DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`,
  );
  resetPeakRss(ceiling.pid);
  resetPeakRss(svc.pid);
  const [top, r] = await loadInTurns(
    [
      { url: `${ceiling.url}/`, headers, body: sequence(), connections, pid: ceiling.pid },
      {
        url: `${base}/api/v4/error_tracking/collector/api/${project.id}/envelope/?sentry_key=${key.public_key}`,
        headers,
        body: sequence(),
        connections,
        pid: svc.pid,
      },
    ],
    { seconds },
  );
  row('ceiling: gunzip + parse', top, null, peakRssMiB(ceiling.pid));
  row('svc: envelope ingestion (events/s)', r, top, peakRssMiB(svc.pid));
  const errors = await fetch(`${base}/api/v4/projects/${project.id}/error_tracking/errors?per_page=100`, {
    headers: { 'PRIVATE-TOKEN': token },
  });
  const list = await errors.json();
  console.log(
    `errors: ${list.length}, events stored: ${list.reduce((n, e) => n + e.count, 0)} (autocannon counted ${r.total} svc requests)`,
  );
  if (r.total > bodies.length)
    console.log(`note: more requests than bodies; set BENCH_EVENTS above ${r.total}`);
} finally {
  await stopChild(svc);
  await stopChild(ceiling);
  rmSync(dataDir, { recursive: true, force: true });
}
