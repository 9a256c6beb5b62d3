// Workers benchmark: alert intake and error ingestion against `svc server --workers N` on PostgreSQL,
// N = 1 then 2 (BENCH_WORKERS, e.g. "1,2,4"), each on a fresh database, warmed up for BENCH_WARMUP_SECONDS (4) per scenario, then loaded by autocannon on loopback for
// BENCH_SECONDS per scenario with BENCH_CONNECTIONS. Prints requests/s, latency, svc's CPU per request (primary and
// workers together, from /proc) and the speedup over one worker, with the machine's load average before and after
// (the development machine has 2 cores shared with other work: the load average says how comparable runs are).
//   npm run build && npm run bench:workers         (PostgreSQL at BENCH_DATABASE_URL, default postgres@127.0.0.1)
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { apiClient, load, SVC_READY, startChild, stopChild } from './lib.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** Unmeasured load first: each worker compiles its validators and warms its JIT on its own first requests. */
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 4);
const workerCounts = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const token = 'svcpat-bench-root-token-000000001';

/** CPU milliseconds used so far by `pid` and every process below it (the primary and its workers). */
function treeCpuMs(pid) {
  const parents = new Map();
  const cpu = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      parents.set(Number(entry), Number(fields[1]));
      cpu.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (p) => {
    for (let q = p; q > 1; q = parents.get(q) ?? 0) if (q === pid) return true;
    return false;
  };
  let total = 0;
  for (const [p, ms] of cpu) if (inTree(p)) total += ms;
  return total;
}

/** A Sentry envelope of one event with a 12-frame stack trace, gzip'd (about 0.8 KiB). */
function envelope(i) {
  const kind = i % 20;
  const frames = Array.from({ length: 12 }, (_, f) => ({
    filename: `src/module${f}.js`,
    function: `handler${kind}_${f}`,
    module: `module${f}`,
    lineno: 10 + f,
    in_app: f > 3,
    context_line: `  throw new Error('kind ${kind}');`,
  }));
  const e = {
    event_id: randomUUID().replace(/-/g, ''),
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    user: { id: `user-${i % 200}` },
    exception: {
      values: [{ type: `Error${kind}`, value: `kind ${kind} item ${i}`, stacktrace: { frames } }],
    },
  };
  const payload = JSON.stringify(e);
  return gzipSync(
    [JSON.stringify({ event_id: e.event_id }), JSON.stringify({ type: 'event' }), payload].join('\n'),
  );
}

// Enough distinct events for every run (a repeated event_id would be a cheap duplicate, not an ingestion).
const bodies = Array.from({ length: 60_000 }, (_, i) => envelope(i));

async function withDatabase(fn) {
  const name = `svc_bench_workers_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function run(workers) {
  return withDatabase(async (databaseUrl) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-workers-'));
    const svc = await startChild(
      'node',
      ['bin/svc.js', 'server'],
      {
        SVC_PORT: '0',
        SVC_DATA_DIR: dataDir,
        SVC_DATABASE_URL: databaseUrl,
        SVC_WORKERS: String(workers),
        SVC_ROOT_PASSWORD: 'bench-password-1',
        SVC_ROOT_TOKEN: token,
        SVC_OFFERING: 'hosted',
        SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'info',
      },
      SVC_READY,
    );
    try {
      const api = apiClient(svc.url, token);
      const project = await api('POST', '/api/v4/projects', { name: 'bench' });
      const integration = await api('POST', `/api/v4/projects/${project.id}/alert_management/integrations`, {
        name: 'Bench',
        type: 'http',
      });
      await api('PUT', `/api/v4/projects/${project.id}/error_tracking/settings`, {
        active: true,
        integrated: true,
      });
      const [key] = await api('GET', `/api/v4/projects/${project.id}/error_tracking/client_keys`);
      const out = {};
      const alerts = {
        url: integration.url,
        headers: { authorization: `Bearer ${integration.authorization_key}` },
        body: (n) =>
          JSON.stringify({ title: 'Bench', fingerprint: `f-${n}-${Math.random()}`, severity: 'high' }),
        connections,
      };
      let next = 0;
      const events = {
        url: `${svc.url}/api/v4/error_tracking/collector/api/${project.id}/envelope/?sentry_key=${key.public_key}`,
        headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
        body: () => bodies[next++ % bodies.length],
        connections,
      };
      if (warmup > 0) {
        await load({ ...alerts, seconds: warmup });
        await load({ ...events, seconds: warmup });
      }
      let cpu = treeCpuMs(svc.pid);
      out.alerts = await load({ ...alerts, seconds });
      out.alerts.cpuUs = ((treeCpuMs(svc.pid) - cpu) * 1000) / Math.max(out.alerts.total, 1);
      cpu = treeCpuMs(svc.pid);
      out.events = await load({ ...events, seconds });
      out.events.cpuUs = ((treeCpuMs(svc.pid) - cpu) * 1000) / Math.max(out.events.total, 1);
      return out;
    } finally {
      await stopChild(svc);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

const fmtLoad = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `svc workers benchmark: PostgreSQL, ${seconds}s per scenario, ${connections} connections, workers ${workerCounts.join(' and ')}; load average before ${fmtLoad()}`,
);
const results = [];
for (const w of workerCounts) {
  const r = await run(w);
  results.push([w, r]);
  for (const [name, x] of [
    ['new alerts', r.alerts],
    ['envelopes (1 event each)', r.events],
  ]) {
    const base = results[0][1][name === 'new alerts' ? 'alerts' : 'events'];
    console.log(
      `workers ${w}: ${name.padEnd(26)} ${x.rps.toFixed(0).padStart(6)} req/s  p50 ${String(x.p50).padStart(4)} ms  p99 ${String(x.p99).padStart(4)} ms  non-2xx ${x.errors}  CPU ${x.cpuUs.toFixed(0)} µs/req  speedup ${(x.rps / base.rps).toFixed(2)}x`,
    );
  }
}
console.log(`load average after ${fmtLoad()}`);
