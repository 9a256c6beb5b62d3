// Read paths at scale: seeds 1,000,000 error events in 10,000 errors and 200,000 alerts directly in the
// database (bulk INSERT ... SELECT over a generated series, after svc has migrated it), then loads each list and
// detail endpoint the web UI calls with autocannon at 10 connections and prints p50/p99 against the 50 ms target.
// Then retention: ~500,000 events older than the 90-day retention are added, svc is started again (its daily
// retention job runs at start) and error intake is loaded while the job deletes them: intake p99 during and after.
//   npm run build && npm run bench:read-paths          (SQLite in a temporary data directory)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:read-paths
//                                                      (PostgreSQL: a fresh database, dropped at the end)
// Settings: BENCH_EVENTS (1,000,000), BENCH_ERRORS (10,000), BENCH_ALERTS (200,000), BENCH_RETENTION_EVENTS
// (500,000; 0 skips retention), BENCH_SECONDS (5 per endpoint), BENCH_CONNECTIONS (10), BENCH_ONLY=<regex>
// (endpoints whose name matches), SVC_DATABASE_URL (an existing empty PostgreSQL database instead), BENCH_KEEP=1
// (keep the data directory and database afterwards, to EXPLAIN queries on them).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import pg from 'pg';
import { apiClient, cpuMs, peakRssMiB, SVC_READY, startChild, stopChild } from './lib.js';

const N_EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const N_ERRORS = Number(process.env.BENCH_ERRORS ?? 10_000);
const N_ALERTS = Number(process.env.BENCH_ALERTS ?? 200_000);
const N_OLD = Number(process.env.BENCH_RETENTION_EVENTS ?? 500_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const TARGET_MS = 50;
const token = 'svcpat-bench-root-token-000000003';
const DAY = 86_400_000;
const NOW = Date.now();
const CHUNK = 100_000;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

// ---------------------------------------------------------------------------------------------------------------
// The database: SQLite (node:sqlite on svc's file) or PostgreSQL (pg), behind one small interface.

async function openDatabase() {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (adminUrl) {
    const name = `svc_bench_reads_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      kind: 'postgres',
      url: url.toString(),
      drop: async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
      end: () => admin.end(),
    };
  }
  if (process.env.SVC_DATABASE_URL)
    return { kind: 'postgres', url: process.env.SVC_DATABASE_URL, drop: null };
  return { kind: 'sqlite', url: null, drop: null };
}

/** A connection for seeding: `exec(sql)` and `all(sql)`; SQL is written once with the dialect's helpers. */
async function connect(database, dataDir) {
  if (database.kind === 'postgres') {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return {
      pg: true,
      exec: async (q) => {
        await client.query(q);
      },
      all: async (q) => (await client.query(q)).rows,
      close: () => client.end(),
    };
  }
  const file = new DatabaseSync(join(dataDir, 'svc.sqlite3'), { timeout: 60_000 });
  file.exec('PRAGMA synchronous = NORMAL');
  return {
    pg: false,
    exec: async (q) => file.exec(q),
    all: async (q) => file.prepare(q).all(),
    close: () => file.close(),
  };
}

/** SQL pieces per dialect. */
function dialectSql(isPg) {
  return {
    /** Rows i = from..to. */
    series: (from, to) =>
      isPg
        ? `s(i) AS (SELECT generate_series(${from}::bigint, ${to}::bigint))`
        : `s(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM s WHERE i < ${to})`,
    with: isPg ? 'WITH' : 'WITH RECURSIVE',
    /** A uniform number in [0, 1) from an integer expression (a multiplicative hash: deterministic). */
    u: (expr, mult) =>
      isPg
        ? `((((${expr})::bigint * ${mult}) % 4294967296)::float8 / 4294967296.0)`
        : `((((${expr}) * ${mult}) % 4294967296) / 4294967296.0)`,
    int: (expr) => (isPg ? `floor(${expr})::bigint` : `CAST(${expr} AS INTEGER)`),
    /** A timestamp `agoMs` milliseconds before the bench started. */
    ts: (agoMs) =>
      isPg
        ? `to_timestamp((${NOW} - (${agoMs})) / 1000.0)`
        : `strftime('%Y-%m-%dT%H:%M:%fZ', (${NOW} - (${agoMs})) / 1000.0, 'unixepoch')`,
    text: (expr) => (isPg ? `(${expr})::text` : `(${expr})`),
    true: isPg ? 'true' : '1',
    hex32: (expr) => (isPg ? `lpad(to_hex(${expr}), 32, '0')` : `printf('%032x', ${expr})`),
  };
}

const A = 2654435761;
const B = 2246822519;
const C = 3266489917;
const D = 668265263;
const E = 374761393;

const KINDS = [
  ['TypeError', "Cannot read properties of undefined (reading 'id')"],
  ['ReferenceError', 'session is not defined'],
  ['RangeError', 'Invalid array length'],
  ['Error', 'connect ECONNREFUSED 10.0.3.7:5432'],
  ['SyntaxError', 'Unexpected token < in JSON at position 0'],
  ['TimeoutError', 'Request to payments timed out after 30000ms'],
  ['ValidationError', 'quantity must be a positive integer'],
  ['Error', 'ENOENT: no such file or directory'],
];

/**
 * A Sentry event as the collector stores it (about 1.3 KB): 10 frames with context, a user, tags, a release.
 * __K__, __I__ and __U__ are replaced by the error number, the event number and the user in SQL.
 */
const PAYLOAD = JSON.stringify({
  event_id: '__I__',
  platform: 'node',
  level: 'error',
  release: 'shop@1.4.2',
  environment: 'production',
  server_name: 'web-3',
  user: { id: '__U__', ip_address: '203.0.113.7' },
  tags: { route: '/api/items/__K__', region: 'eu' },
  contexts: { runtime: { name: 'node', version: 'v24.21.0' } },
  exception: {
    values: [
      {
        type: 'Error',
        value: 'failure __K__ in request __I__',
        stacktrace: {
          frames: Array.from({ length: 10 }, (_, f) => ({
            filename: `src/module${f}.js`,
            abs_path: `/srv/app/src/module${f}.js`,
            function: `handler__K___${f}`,
            lineno: 10 + f,
            colno: 5,
            in_app: f > 3,
            context_line: `  throw new Error('failure __K__');`,
          })),
        },
      },
    ],
  },
}).replaceAll("'", "''");

/** Errors 1..N_ERRORS of the project: several statuses; counts and first/last seen come from their events. */
async function seedErrors(db, q, projectId) {
  const kind = `(i % ${KINDS.length})`;
  const caseOf = (list) =>
    `CASE ${kind} ${list.map((v, n) => `WHEN ${n} THEN '${v.replaceAll("'", "''")}'`).join(' ')} END`;
  await db.exec(`${q.with} ${q.series(0, N_ERRORS - 1)}
    INSERT INTO error_tracking_errors (id, project_id, fingerprint, type, message, culprit, platform, status,
      events_count, users_count, first_seen_at, last_seen_at, first_release, last_release, environment, tags,
      created_at, updated_at)
    SELECT i + 1, ${projectId}, 'fp-' || ${q.text('i')}, ${caseOf(KINDS.map((k) => k[0]))},
      ${caseOf(KINDS.map((k) => k[1]))} || ' #' || ${q.text('i')},
      'src/module' || ${q.text('i % 40')} || '.js in handler' || ${q.text('i')}, 'node',
      CASE WHEN ${q.u('i', D)} < 0.7 THEN 'unresolved' WHEN ${q.u('i', D)} < 0.9 THEN 'resolved' ELSE 'ignored' END,
      0, 0, ${q.ts(0)}, ${q.ts(0)}, 'shop@1.0.0', 'shop@1.4.2', 'production', '{"level":"error"}', ${q.ts(0)}, ${q.ts(0)}
    FROM s`);
}

/**
 * Events numbered `from`..`to` in chunks: error k (0-based) is drawn as N_ERRORS * r^3 (a few errors have most of
 * the events), its life a window within `minDays`..`maxDays` ago that depends on k, 5,000 users.
 */
async function seedEvents(db, q, projectId, from, to, minDays, maxDays) {
  for (let start = from; start <= to; start += CHUNK) {
    const end = Math.min(to, start + CHUNK - 1);
    const k = q.int(`${N_ERRORS} * ${q.u('i', A)} * ${q.u('i', A)} * ${q.u('i', A)}`);
    // The error's window: it started `startAgo` and stopped `endAgo` before now (most errors are still seen).
    const startAgo = `(${minDays * DAY} + ${(maxDays - minDays) * DAY} * (0.2 + 0.8 * ${q.u('k', C)}))`;
    const endAgo = `(${minDays * DAY} + (${startAgo} - ${minDays * DAY}) * ${q.u('k', E)} * ${q.u('k', E)})`;
    await db.exec(`BEGIN`);
    await db.exec(`${q.with} ${q.series(start, end)}, e AS (SELECT i, ${k} AS k FROM s)
      INSERT INTO error_tracking_events (error_id, project_id, event_id, level, environment, release, message,
        user_key, occurred_at, payload, created_at)
      SELECT k + 1, ${projectId}, ${q.hex32('i')},
        CASE WHEN ${q.u('i', B)} < 0.9 THEN 'error' WHEN ${q.u('i', B)} < 0.97 THEN 'warning' ELSE 'fatal' END,
        CASE WHEN ${q.u('i', D)} < 0.8 THEN 'production' ELSE 'staging' END,
        'shop@1.' || ${q.text(`i % 5`)} || '.0',
        'failure ' || ${q.text('k')} || ' in request ' || ${q.text('i')},
        CASE WHEN ${q.u('i', E)} < 0.1 THEN NULL ELSE 'user-' || ${q.text(q.int(`5000 * ${q.u('i', C)}`))} END,
        ${q.ts(`${endAgo} + (${startAgo} - ${endAgo}) * ${q.u('i', B)}`)},
        replace(replace(replace('${PAYLOAD}', '__K__', ${q.text('k')}), '__I__', ${q.hex32('i')}),
          '__U__', 'user-' || ${q.text(q.int(`5000 * ${q.u('i', C)}`))}),
        ${q.ts(`${endAgo} + (${startAgo} - ${endAgo}) * ${q.u('i', B)}`)}
      FROM e`);
    await db.exec(`COMMIT`);
    process.stdout.write(`\r  events ${end.toLocaleString('en')} / ${to.toLocaleString('en')}   `);
  }
  process.stdout.write('\n');
}

/** Errors' counts, users and first/last seen from their events (as intake keeps them); errors left empty go. */
async function recountErrors(db) {
  if (db.pg) {
    await db.exec(`UPDATE error_tracking_errors SET events_count = a.n, users_count = a.u, first_seen_at = a.f,
        last_seen_at = a.l
      FROM (SELECT error_id, count(*) AS n, count(DISTINCT user_key) AS u, min(occurred_at) AS f,
        max(occurred_at) AS l FROM error_tracking_events GROUP BY error_id) a
      WHERE a.error_id = error_tracking_errors.id`);
  } else {
    // Per error through the (error_id, occurred_at) and (error_id, user_key) indexes: a GROUP BY over the table
    // would read every payload.
    const ev = (what) =>
      `(SELECT ${what} FROM error_tracking_events WHERE error_id = error_tracking_errors.id)`;
    await db.exec(`UPDATE error_tracking_errors SET events_count = ${ev('count(*)')},
      users_count = ${ev('count(DISTINCT user_key)')}, first_seen_at = coalesce(${ev('min(occurred_at)')}, first_seen_at),
      last_seen_at = coalesce(${ev('max(occurred_at)')}, last_seen_at)`);
  }
  await db.exec(`DELETE FROM error_tracking_errors WHERE events_count = 0`);
}

const ALERT_NAMES = [
  'High CPU usage',
  'Disk space low',
  'HTTP 5xx error rate high',
  'Pod crash looping',
  'Memory pressure',
  'Certificate expires soon',
  'Replication lag',
  'Queue backlog growing',
  'Latency p99 above SLO',
  'Node not ready',
];
const SERVICES = [
  'checkout',
  'payments',
  'search',
  'auth',
  'inventory',
  'shipping',
  'notifications',
  'billing',
];

/** Alerts 1..N_ALERTS over 90 days (iid in time order), mostly resolved, six severities, one occurrence each. */
async function seedAlerts(db, q, projectId) {
  const pick = (list, expr) => `CASE ${expr} ${list.map((v, n) => `WHEN ${n} THEN '${v}'`).join(' ')} END`;
  const name = pick(ALERT_NAMES, q.int(`${ALERT_NAMES.length} * ${q.u('i', A)}`));
  const service = pick(SERVICES, q.int(`${SERVICES.length} * ${q.u('i', B)}`));
  const ago = `(${90 * DAY} * (1.0 - (i + 0.5) / ${N_ALERTS}))`;
  const r = q.u('i', C);
  const sev = q.u('i', D);
  for (let start = 0; start < N_ALERTS; start += CHUNK) {
    const end = Math.min(N_ALERTS - 1, start + CHUNK - 1);
    await db.exec('BEGIN');
    await db.exec(`${q.with} ${q.series(start, end)}, a AS (SELECT i, ${name} AS name, ${service} AS service,
        CASE WHEN ${r} < 0.75 THEN 'resolved' WHEN ${r} < 0.80 THEN 'ignored' WHEN ${r} < 0.85 THEN 'acknowledged'
          ELSE 'triggered' END AS status FROM s)
      INSERT INTO alerts (id, project_id, iid, integration_id, title, description, severity, status, started_at,
        ended_at, events, fingerprint, hosts, service, monitoring_tool, environment, runbook, payload,
        incident_iid, created_at, updated_at)
      SELECT i + 1, ${projectId}, i + 1, NULL, name || ' on ' || service,
        'Instance node-' || ${q.text('i % 9973')} || ' of ' || service || ' crossed its threshold',
        CASE WHEN ${sev} < 0.05 THEN 'critical' WHEN ${sev} < 0.25 THEN 'high' WHEN ${sev} < 0.6 THEN 'medium'
          WHEN ${sev} < 0.85 THEN 'low' WHEN ${sev} < 0.95 THEN 'info' ELSE 'unknown' END,
        status, ${q.ts(ago)},
        CASE WHEN status = 'resolved' THEN ${q.ts(`${ago} - 600000 - 3600000 * ${q.u('i', E)}`)} ELSE NULL END,
        1 + ${q.int(`50 * ${q.u('i', E)} * ${q.u('i', E)} * ${q.u('i', E)} * ${q.u('i', E)}`)},
        'fp-' || ${q.text('i')}, '["node-' || ${q.text('i % 9973')} || '"]', service, 'Prometheus', 'production',
        NULL, '{}', NULL, ${q.ts(ago)}, ${q.ts(ago)}
      FROM a`);
    await db.exec(`${q.with} ${q.series(start + 1, end + 1)}
      INSERT INTO alert_events (alert_id, occurred_at) SELECT i, started_at FROM alerts JOIN s ON alerts.id = s.i`);
    await db.exec('COMMIT');
  }
  // Every 100th alert has a status change note.
  await db.exec(`INSERT INTO alert_notes (alert_id, author_id, body, created_at, system)
    SELECT id, NULL, 'changed the status to **Resolved**', started_at, ${q.true} FROM alerts
    WHERE id % 100 = 0`);
  await db.exec(`DELETE FROM internal_ids WHERE project_id = ${projectId} AND usage = 'alerts'`);
  await db.exec(
    `INSERT INTO internal_ids (project_id, usage, last_value) VALUES (${projectId}, 'alerts', ${N_ALERTS})`,
  );
}

async function fixSequences(db) {
  if (!db.pg) return;
  for (const t of [
    'error_tracking_errors',
    'error_tracking_events',
    'alerts',
    'alert_events',
    'alert_notes',
  ]) {
    await db.exec(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT max(id) FROM ${t}))`);
  }
  // What autovacuum does after a bulk load (PostgreSQL 13+ vacuums after inserts too): statistics, and the
  // visibility map that lets counts and the stats buckets read the indexes alone.
  await db.exec('VACUUM ANALYZE');
}

// ---------------------------------------------------------------------------------------------------------------
// Load

/** autocannon GETs at `paths` (a function of the request number, so ids rotate) for `seconds`. */
async function loadGet(base, path, secs, pid) {
  let n = 0;
  const cpu = cpuMs(pid);
  const result = await autocannon({
    url: base,
    connections,
    duration: secs,
    headers: { 'PRIVATE-TOKEN': token },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path(n++) }) }],
  });
  return {
    rps: result['2xx'] / secs,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    // svc's CPU per request: what the machine's other load changes least.
    cpuUs: ((cpuMs(pid) - cpu) * 1000) / Math.max(result.requests.total, 1),
  };
}

function printRow(name, r) {
  const ratio = r.p99 / TARGET_MS;
  console.log(
    `${name.padEnd(46)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(5)} ms  p99/50ms ${ratio.toFixed(2).padStart(5)}${ratio <= 1 ? '  ok  ' : '  MISS'}  CPU ${r.cpuUs.toFixed(0).padStart(6)} µs/req${r.errors ? `  non-2xx ${r.errors}` : ''}`,
  );
}

/** A gzip'd Sentry envelope of one new event (intake during retention). */
function envelope(i) {
  const event = {
    event_id: randomUUID().replace(/-/g, ''),
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    user: { id: `user-${i % 200}` },
    exception: {
      values: [
        {
          type: `Error${i % 20}`,
          value: `kind ${i % 20} item ${i}`,
          stacktrace: {
            frames: Array.from({ length: 10 }, (_, f) => ({
              filename: `src/module${f}.js`,
              function: `handler${i % 20}_${f}`,
              lineno: 10 + f,
              in_app: f > 3,
            })),
          },
        },
      ],
    },
  };
  const payload = JSON.stringify(event);
  return gzipSync(
    [JSON.stringify({ event_id: event.event_id }), JSON.stringify({ type: 'event' }), payload].join('\n'),
  );
}

async function loadIntake(url, secs, next) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration: secs,
    headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
    requests: [{ setupRequest: (req) => ({ ...req, body: next() }) }],
  });
  return {
    rps: result['2xx'] / secs,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

// ---------------------------------------------------------------------------------------------------------------

const database = await openDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-reads-'));
const svcEnv = {
  SVC_PORT: '0',
  SVC_DATA_DIR: dataDir,
  SVC_ROOT_PASSWORD: 'bench-password-1',
  SVC_ROOT_TOKEN: token,
  SVC_OFFERING: 'hosted',
  SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'warn',
  ...(database.url && { SVC_DATABASE_URL: database.url }),
};
const dbName = database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite';
let svc = null;
try {
  // 1. svc migrates the database; a project with integrated error tracking.
  svc = await startChild('node', ['bin/svc.js', 'server'], svcEnv, SVC_READY);
  let api = apiClient(svc.url, token);
  const project = await api('POST', '/api/v4/projects', { name: 'bench' });
  await api('PUT', `/api/v4/projects/${project.id}/error_tracking/settings`, {
    active: true,
    integrated: true,
  });
  const [key] = await api('GET', `/api/v4/projects/${project.id}/error_tracking/client_keys`);
  await stopChild(svc);

  // 2. Seed.
  console.log(
    `svc read paths benchmark: ${dbName}, ${N_EVENTS.toLocaleString('en')} events in ${N_ERRORS.toLocaleString('en')} errors, ${N_ALERTS.toLocaleString('en')} alerts; ${seconds}s per endpoint, ${connections} connections; load average ${load()}`,
  );
  const db = await connect(database, dataDir);
  const q = dialectSql(db.pg);
  let t0 = Date.now();
  await seedErrors(db, q, project.id);
  await seedEvents(db, q, project.id, 1, N_EVENTS, 0, 89);
  await recountErrors(db);
  await seedAlerts(db, q, project.id);
  await fixSequences(db);
  if (!db.pg) await db.exec('ANALYZE');
  const [stat] = await db.all(
    `SELECT (SELECT count(*) FROM error_tracking_events) AS events, (SELECT count(*) FROM error_tracking_errors) AS errors,
      (SELECT max(events_count) FROM error_tracking_errors) AS top, (SELECT count(*) FROM alerts) AS alerts`,
  );
  console.log(
    `seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${Number(stat.events).toLocaleString('en')} events, ${Number(stat.errors).toLocaleString('en')} errors (the largest has ${Number(stat.top).toLocaleString('en')} events), ${Number(stat.alerts).toLocaleString('en')} alerts`,
  );
  // Errors to open: the largest ones and a spread over the rest; alerts: a spread of iids.
  const errorIds = (
    await db.all(`SELECT id FROM error_tracking_errors ORDER BY events_count DESC, id LIMIT 5`)
  ).map((r) => Number(r.id));
  for (let i = 0; i < 45; i++) errorIds.push(1 + Math.floor((i * N_ERRORS) / 45));
  const existing = new Set(
    (await db.all(`SELECT id FROM error_tracking_errors WHERE id IN (${errorIds.join(',')})`)).map((r) =>
      Number(r.id),
    ),
  );
  const ids = errorIds.filter((id) => existing.has(id));
  const iids = Array.from({ length: 50 }, (_, i) => 1 + Math.floor((i * N_ALERTS) / 50));

  // 3. The endpoints the UI calls (src/web/src/pages/errors.tsx, error.tsx, alerts.tsx, alert.tsx).
  svc = await startChild('node', ['bin/svc.js', 'server'], svcEnv, SVC_READY);
  api = apiClient(svc.url, token);
  const p = `/api/v4/projects/${project.id}`;
  // On SQLite the seeded alerts are not in the search index yet (alerts are indexed after they commit, and these
  // were written behind svc's back): the first search indexes them, as the first one after an upgrade would.
  const indexing = process.hrtime.bigint();
  await api('GET', `${p}/alert_management/alerts?search=warm-up`);
  console.log(
    `first search (indexes what is not indexed yet): ${(Number(process.hrtime.bigint() - indexing) / 1e9).toFixed(1)} s`,
  );
  const errorsPath = (status, sort) =>
    `${p}/error_tracking/errors?status=${status}&sort=${sort}&page=1&per_page=20`;
  const alertsPath = (status, search) =>
    `${p}/alert_management/alerts?order_by=started_at&sort=desc&page=1&per_page=20${status ? `&status=${status}` : ''}${search ? `&search=${encodeURIComponent(search)}` : ''}`;
  const first20 = async (status) =>
    (await api('GET', errorsPath(status, 'last_seen'))).map((e) => e.id).join(',');
  const sparkIds = await first20('unresolved');
  const rot = (list, f) => (n) => f(list[n % list.length]);
  const endpoints = [];
  for (const status of ['unresolved', 'resolved', 'ignored'])
    for (const sort of ['last_seen', 'first_seen', 'frequency'])
      endpoints.push([`errors list ${status} by ${sort}`, () => errorsPath(status, sort)]);
  endpoints.push(
    ['errors counts (tabs)', () => `${p}/error_tracking/errors/counts`],
    [
      'errors stats (list sparklines, 20 ids)',
      () => `${p}/error_tracking/errors/stats?stats_period=24h&error_ids=${sparkIds}`,
    ],
    ['error detail', rot(ids, (id) => `${p}/error_tracking/errors/${id}`)],
    ['error stats (24h chart)', rot(ids, (id) => `${p}/error_tracking/errors/${id}/stats?stats_period=24h`)],
    ['error stack trace', rot(ids, (id) => `${p}/error_tracking/errors/${id}/stack_trace`)],
    ['error events (latest 20)', rot(ids, (id) => `${p}/error_tracking/errors/${id}/events?per_page=20`)],
    ['error events of the largest error', () => `${p}/error_tracking/errors/${ids[0]}/events?per_page=20`],
  );
  for (const status of [null, 'open', 'triggered', 'acknowledged', 'resolved', 'ignored'])
    endpoints.push([`alerts list ${status ?? 'all'}`, () => alertsPath(status, null)]);
  endpoints.push(
    ['alerts counts (tabs)', () => `${p}/alert_management/alerts/counts`],
    ['alerts search "checkout" (1 in 8)', () => alertsPath(null, 'checkout')],
    ['alerts search "node-4242" (rare)', () => alertsPath(null, 'node-4242')],
    ['alert detail', rot(iids, (iid) => `${p}/alert_management/alerts/${iid}`)],
    [
      'alert stats (24h chart)',
      rot(iids, (iid) => `${p}/alert_management/alerts/${iid}/stats?stats_period=24h`),
    ],
    ['alert notes', rot(iids, (iid) => `${p}/alert_management/alerts/${iid}/notes`)],
  );
  let met = 0;
  let measured = 0;
  for (const [name, path] of endpoints) {
    if (only && !only.test(name)) continue;
    // One request first (compiles the route's serializer), then the measured load.
    await api('GET', path(0));
    const r = await loadGet(svc.url, path, seconds, svc.pid);
    printRow(name, r);
    measured++;
    if (r.p99 <= TARGET_MS) met++;
  }
  console.log(
    `${met} of ${measured} endpoints within p99 ${TARGET_MS} ms; svc peak RSS ${peakRssMiB(svc.pid).toFixed(0)} MiB; load average ${load()}`,
  );
  await stopChild(svc);
  svc = null;

  // 4. Retention at that scale while intake goes on.
  if (N_OLD > 0) {
    t0 = Date.now();
    await seedEvents(db, q, project.id, N_EVENTS + 1, N_EVENTS + N_OLD, 91, 180);
    await recountErrors(db);
    if (db.pg) await db.exec('ANALYZE error_tracking_events');
    console.log(
      `retention: ${N_OLD.toLocaleString('en')} events older than 90 days added in ${((Date.now() - t0) / 1000).toFixed(0)} s; svc starts (its retention job runs at start) and error intake is loaded meanwhile`,
    );
    const cutoff = new Date(NOW - 90 * DAY).toISOString();
    const old = async () =>
      Number(
        (
          await db.all(
            db.pg
              ? `SELECT count(*) AS n FROM jobs WHERE kind = 'error_tracking_retention' AND run_at <= now()`
              : `SELECT count(*) AS n FROM jobs WHERE kind = 'error_tracking_retention' AND run_at <= '${new Date().toISOString()}'`,
          )
        )[0].n,
      );
    let k = 0;
    const bodies = Array.from({ length: 20_000 }, (_, i) => envelope(i));
    const next = () => bodies[k++ % bodies.length];
    svc = await startChild('node', ['bin/svc.js', 'server'], svcEnv, SVC_READY);
    const started = Date.now();
    const intake = `${svc.url}/api/v4/error_tracking/collector/api/${project.id}/envelope/?sentry_key=${key.public_key}`;
    const during = [];
    let done = null;
    for (let slice = 0; slice < 60; slice++) {
      const r = await loadIntake(intake, 5, next);
      const pending = await old();
      during.push(r);
      console.log(
        `  intake during retention, slice ${slice + 1}: ${r.rps.toFixed(0)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  max ${r.max} ms${r.errors ? `  non-2xx/timeouts ${r.errors}` : ''}${pending ? '' : '  (retention done)'}`,
      );
      if (!pending) {
        done = Date.now();
        break;
      }
    }
    const left = (
      await db.all(
        `SELECT count(*) AS n FROM error_tracking_events WHERE occurred_at < ${db.pg ? `'${cutoff}'::timestamptz` : `'${cutoff}'`}`,
      )
    )[0].n;
    const after = await loadIntake(intake, 5, next);
    const worst = during.reduce((m, r) => Math.max(m, r.p99), 0);
    const silent = during.filter((r) => r.rps === 0).length;
    console.log(
      `retention ${done ? `deleted ${N_OLD.toLocaleString('en')} events in about ${((done - started) / 1000).toFixed(0)} s` : `had deleted ${(N_OLD - Number(left)).toLocaleString('en')} of ${N_OLD.toLocaleString('en')} events after ${((Date.now() - started) / 1000).toFixed(0)} s (not done)`}; intake while it ran: ${silent ? `no request answered in ${silent} of ${during.length} slices of 5 s, ` : ''}worst slice p99 ${worst} ms, max ${during.reduce((m, r) => Math.max(m, r.max), 0)} ms; ${done ? 'after' : 'then, still running'}: ${after.rps.toFixed(0)} req/s p50 ${after.p50} ms p99 ${after.p99} ms; load average ${load()}`,
    );
  }
  await db.close();
} finally {
  if (svc) await stopChild(svc);
  // BENCH_KEEP=1: the data directory and database stay (for EXPLAIN afterwards); the bench says where.
  if (process.env.BENCH_KEEP) {
    await database.end?.();
    console.log(`kept: data directory ${dataDir}${database.url ? `, database ${database.url}` : ''}`);
  } else {
    rmSync(dataDir, { recursive: true, force: true });
    if (database.drop) await database.drop();
  }
}
