import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPg } from '../../src/db/db.js';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Carries a plan out of a transaction that must roll back. */
class Plan extends Error {}

interface Sent {
  title: string;
  description?: string;
  monitoring_tool?: string;
  service?: string;
}

/** What GitLab's alert search matches: the term anywhere in one of the four fields, ignoring ASCII case. */
function expected(alerts: Sent[], term: string): string[] {
  const t = term.toLowerCase();
  return alerts
    .filter((a) =>
      [a.title, a.description, a.monitoring_tool, a.service].some((v) => (v ?? '').toLowerCase().includes(t)),
    )
    .map((a) => a.title)
    .sort();
}

describe.each(await databases())('alert search through its index (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let projectId: number;
  let otherId: number;
  let integration: Awaited<ReturnType<typeof createIntegration>>;
  const sent: Sent[] = [
    { title: 'Replication lag on checkout', service: 'db', monitoring_tool: 'Prometheus' },
    { title: 'Disk full', description: 'Volume /var on node-4242 is 100% full', service: 'storage' },
    { title: 'Échec du paiement', monitoring_tool: 'Zabbix' },
    { title: '50% error rate_on api', service: 'api"quoted\\x' },
    { title: 'CHECKOUT latency', description: 'p99 above 2s' },
    { title: 'Certificate expires', description: 'db.example.com expires in 3 days' },
  ];

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    projectId = (await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'searched' } })).body
      .id;
    otherId = (await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'elsewhere' } })).body
      .id;
    const i = await createIntegration(api, s.rootToken, projectId, { name: 'X', type: 'http' });
    integration = i;
    const o = await createIntegration(api, s.rootToken, otherId, { name: 'Y', type: 'http' });
    for (const [n, a] of sent.entries()) {
      expect((await notify(i.url, i.authorization_key, { ...a, fingerprint: `f${n}` })).status).toBe(200);
    }
    await notify(o.url, o.authorization_key, { title: 'checkout down in another project', fingerprint: 'o' });
  });
  afterAll(() => s?.stop());

  const search = async (term: string, query = '') => {
    const r = await api.get(
      `/api/v4/projects/${projectId}/alert_management/alerts?search=${encodeURIComponent(term)}${query}`,
      { token: s.rootToken },
    );
    expect(r.status).toBe(200);
    return {
      titles: (r.body as { title: string }[]).map((a) => a.title).sort(),
      total: r.headers.get('x-total'),
    };
  };

  it('finds the term anywhere in title, description, monitoring tool or service, as a plain substring', async () => {
    const terms = [
      'checkout', // two alerts, any case, not the other project's
      'CHECKOUT',
      'lag on', // spaces are part of the term
      'node-4242', // in a description
      'zabbix', // monitoring tool
      'storage', // service
      'db', // shorter than a trigram: compared directly
      'a',
      '50%', // % and _ are literal, not wildcards
      '%',
      '_',
      'rate_on',
      '"quoted', // a quote is no search syntax
      'quoted\\x',
      '\\',
      'Échec du',
      'paiement',
      'no such thing',
      'full AND disk', // no boolean syntax either
      'p99 above 2s',
    ];
    for (const term of terms) {
      const want = expected(sent, term);
      const got = await search(term);
      expect({ term, titles: got.titles }).toEqual({ term, titles: want });
      expect(got.total).toBe(String(want.length));
    }
  });

  it('answers a term with a NUL with 400 on both databases (SQLite answered 500)', async () => {
    const r = await api.get(`/api/v4/projects/${projectId}/alert_management/alerts?search=a%00b`, {
      token: s.rootToken,
    });
    expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { error: 'search is invalid' } });
  });

  it('combines with the status tabs and keeps up with changes and deletes', async () => {
    const base = `/api/v4/projects/${projectId}/alert_management/alerts`;
    const checkout = (await search('checkout')).titles;
    expect(checkout).toHaveLength(2);
    await api.put(`${base}/1`, { token: s.rootToken, body: { status: 'acknowledged' } });
    expect((await search('checkout', '&status=acknowledged')).titles).toEqual([
      'Replication lag on checkout',
    ]);
    expect((await search('checkout', '&status=triggered')).titles).toEqual(['CHECKOUT latency']);

    // A deleted alert (here by deleting its project, which cascades) leaves the index with it.
    const db = s.server.ctx.db.kysely;
    await sql`DELETE FROM projects WHERE id = ${otherId}`.execute(db);
    if (database === 'sqlite') {
      // FTS5 compares its index with the alerts it was built from; it fails on any row the triggers missed.
      await s.server.ctx.alertSearch.catchUp();
      await sql`INSERT INTO alerts_search (alerts_search, rank) VALUES ('integrity-check', 1)`.execute(db);
      const indexed = await sql<{
        n: number;
      }>`SELECT count(*) AS n FROM alerts_search WHERE alerts_search MATCH '"checkout"'`.execute(db);
      expect(indexed.rows[0]!.n).toBe(2);
    }
    await db.deleteFrom('alerts').where('project_id', '=', projectId).where('iid', '=', 5).execute();
    expect((await search('checkout')).titles).toEqual(['Replication lag on checkout']);

    // An alert deleted before it was indexed (new alerts are indexed a moment after they commit, on SQLite).
    const i = integration;
    await notify(i.url, i.authorization_key, { title: 'checkout gone soon', fingerprint: 'gone' });
    await notify(i.url, i.authorization_key, { title: 'checkout stays', fingerprint: 'stays' });
    await db.deleteFrom('alerts').where('title', '=', 'checkout gone soon').execute();
    expect((await search('checkout')).titles).toEqual(['Replication lag on checkout', 'checkout stays']);
    if (database === 'sqlite') {
      await sql`INSERT INTO alerts_search (alerts_search, rank) VALUES ('integrity-check', 1)`.execute(db);
    }
  });

  it('pages a common term (read in list order) and a rare one (read by id) alike, newest first', async () => {
    const db = s.server.ctx.db.kysely;
    const pid = (await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'many' } })).body.id;
    // 1,200 alerts written behind svc's back (as a restore or an upgrade would leave them): indexed by the search.
    const series =
      database === 'postgres'
        ? sql`SELECT g FROM generate_series(1, 1200) AS g`
        : sql`WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 1200) SELECT g FROM s`;
    const at = (g: string) =>
      database === 'postgres'
        ? sql`timestamptz '2026-01-01T00:00:00Z' + ${sql.raw(g)} * interval '1 minute'`
        : sql`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01T00:00:00Z', '+' || ${sql.raw(g)} || ' minutes')`;
    await sql`INSERT INTO alerts (project_id, iid, title, description, status, severity, fingerprint, events, hosts,
        started_at, created_at, updated_at, payload)
      SELECT ${pid}, g, 'Replication lag on service-' || g, NULL, 'triggered', 'high', 'many-' || g, 1, '[]',
        ${at('g')}, ${at('g')}, ${at('g')}, '{}'
      FROM (${series}) AS series`.execute(db);
    const page = async (term: string, n: number) => {
      const r = await api.get(
        `/api/v4/projects/${pid}/alert_management/alerts?search=${encodeURIComponent(term)}&order_by=started_at&sort=desc&page=${n}&per_page=20`,
        { token: s.rootToken },
      );
      expect(r.status).toBe(200);
      return { iids: (r.body as { iid: number }[]).map((a) => a.iid), total: r.headers.get('x-total') };
    };
    // All 1,200 match: more than the 1,000 from which a term counts as common.
    expect(await page('Replication lag', 1)).toEqual({
      iids: Array.from({ length: 20 }, (_, k) => 1200 - k),
      total: '1200',
    });
    expect((await page('Replication lag', 3)).iids[0]).toBe(1160);
    // 'service-11' matches 11, 110-119 and 1100-1199: 111 alerts, a rare term.
    const want = [1, 10, 100]
      .flatMap((w) => Array.from({ length: w }, (_, k) => 11 * w + k))
      .sort((a, b) => b - a);
    expect(await page('service-11', 1)).toEqual({ iids: want.slice(0, 20), total: '111' });
    expect((await page('service-11', 6)).iids).toEqual(want.slice(100, 120));
  });

  it.runIf(database === 'postgres')('is served by the pg_trgm index on PostgreSQL', async () => {
    // On a large table the planner reads a rare term through the index; on a small one it reads the table, or the
    // index by project. Whether the index serves the query does not depend on the size, only on the query's
    // expression matching the index's: so a few dozen alerts, and each statement the server sends for a search
    // planned in a transaction (rolled back) where nothing else is left to read the alerts with: sequential scans
    // off and the other indexes of alerts dropped. Seeding enough alerts for the planner to choose the index on
    // its own took over a minute on a loaded machine.
    const db = s.server.ctx.db.kysely;
    await sql`INSERT INTO alerts (project_id, iid, title, description, status, severity, fingerprint, events, hosts,
        started_at, created_at, updated_at, payload)
      SELECT ${projectId}, 1000 + g, 'Replication lag on service-' || g, 'host node-' || g, 'resolved', 'high',
        'bulk-' || g, 1, '[]', now(), now(), now(), '{}'
      FROM generate_series(1, 40) AS g`.execute(db);
    await sql`ANALYZE alerts`.execute(db);

    // The statements of one search, as the driver receives them.
    const { Client } = loadPg();
    const query = Client.prototype.query;
    const sent: { text: string; values: unknown[] }[] = [];
    Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      const [text, values] = args;
      if (typeof text === 'string' && text.includes('ILIKE'))
        sent.push({ text, values: (values as unknown[]) ?? [] });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      expect((await search('node-37')).titles).toEqual(['Replication lag on service-37']);
    } finally {
      Client.prototype.query = query;
    }
    expect(sent.length).toBeGreaterThan(0);

    for (const q of sent) {
      const plan = await db
        .transaction()
        .execute(async (trx) => {
          await sql`SET LOCAL enable_seqscan = off`.execute(trx);
          const others = await sql<{ index: string; constraint: string | null }>`
            SELECT i.relname AS index, c.conname AS constraint FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid
            LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
            WHERE x.indrelid = 'alerts'::regclass AND NOT x.indisprimary
              AND i.relname <> 'alerts_search_trgm'`.execute(trx);
          for (const o of others.rows) {
            if (o.constraint)
              await sql`ALTER TABLE alerts DROP CONSTRAINT ${sql.id(o.constraint)} CASCADE`.execute(trx);
            else await sql`DROP INDEX ${sql.id(o.index)}`.execute(trx);
          }
          const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(
            CompiledQuery.raw(`EXPLAIN ${q.text}`, q.values),
          );
          // Rolled back: the dropped indexes come back.
          throw new Plan(r.rows.map((row) => row['QUERY PLAN']).join('\n'));
        })
        .catch((e: unknown) => {
          if (e instanceof Plan) return e.message;
          throw e;
        });
      expect(plan, q.text).toMatch(/Bitmap Index Scan on alerts_search_trgm/);
    }
  });
});
