import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRepository } from '../../src/cluster/cluster.repository.js';
import { BUS_APPLICATION_NAME, PgBus } from '../../src/cluster/pg-bus.js';
import { PushTracker } from '../../src/cluster/push-tracker.js';
import { LocalRateCounter, type RateCounter, SharedRateCounter } from '../../src/cluster/rate-counter.js';
import type { Db } from '../../src/db/db.js';
import { TestClock } from '../helpers/clock.js';
import { createPostgresDatabase, databases, postgresAvailable } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openTestDb } from '../helpers/test-db.js';
import { until } from '../helpers/until.js';

/**
 * The pieces several processes share, below the API: the database rate counter under concurrent hits, the
 * push tracker seen from another process, and on PostgreSQL the invalidation bus between two "processes" (two buses) and
 * its recovery when its listening connection is killed.
 */
describe.each(await databases())('shared state of several processes (%s)', (database) => {
  let db: Db;
  let drop: () => Promise<void>;
  let url: string | null = null;
  beforeAll(async () => {
    const t = await openTestDb(database);
    db = t.db;
    drop = t.drop;
    if (database === 'postgres') {
      const r = await db.kysely
        .selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name'))
        .execute();
      const u = new URL(process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
      u.pathname = `/${r[0]!.name}`;
      url = u.toString();
    }
  });
  afterAll(async () => drop?.());

  it('counts concurrent hits exactly: the limit is reached once, whoever counts', async () => {
    const clock = new TestClock(new Date('2026-01-01T00:00:00Z'));
    const repo = new ClusterRepository(db.kysely);
    // Two counters over one table stand for two processes.
    const counters: RateCounter[] =
      database === 'postgres'
        ? [new SharedRateCounter(repo, clock), new SharedRateCounter(repo, clock)]
        : [new LocalRateCounter(clock)];
    const waits = await Promise.all(
      Array.from({ length: 50 }, (_, i) => counters[i % counters.length]!.hit('k', 1, 10, 60)),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
    expect(waits.filter((w) => w > 0).every((w) => w === 60)).toBe(true);
    expect(await counters[0]!.check('k', 10)).toBe(60);
    expect(await counters[0]!.check('other', 10)).toBe(0);
    // The window ends: counting starts again (and on the database, an ended window is swept).
    clock.advance(61_000);
    expect(await counters[0]!.check('k', 10)).toBe(0);
    expect(await counters[0]!.hit('k', 1, 10, 60)).toBe(0);
    if (database === 'postgres') {
      await repo.sweepWindows(clock.now().getTime() + 120_000);
      expect(await db.kysely.selectFrom('rate_limit_windows').selectAll().execute()).toEqual([]);
    }
  });

  it('a move waits for the pushes recorded by any process, and returns when they end', async () => {
    const repo = new ClusterRepository(db.kysely);
    const tracker = new PushTracker(repo, database === 'postgres');
    const other = new PushTracker(repo, database === 'postgres');
    const end = await tracker.begin('project:424242');
    expect(end).not.toBeNull();
    expect(tracker.running('project:424242')).toBe(1);
    if (database === 'postgres') {
      // Another process sees the push and waits; it returns once the push ends.
      expect(await other.waitForNone('project:424242', 0)).toBe(false);
      const waiting = other.waitForNone('project:424242', 10_000);
      await end!();
      expect(await waiting).toBe(true);
    } else {
      await end!();
    }
    expect(await tracker.waitForNone('project:424242', 0)).toBe(true);
  });

  it.skipIf(database !== 'postgres')(
    'the bus carries a change to the other process, and a killed listening connection flushes and reconnects',
    async () => {
      const repo = new ClusterRepository(db.kysely);
      const notify = (c: string, p: string) => repo.notify(c, p);
      const a = new PgBus(url!, notify);
      const b = new PgBus(url!, notify);
      await a.start();
      await b.start();
      try {
        const heard: string[] = [];
        b.subscribe('integrations', () => heard.push('integrations'));
        b.subscribe('flags', () => heard.push('flags'));
        const local: string[] = [];
        a.subscribe('integrations', () => local.push('integrations'));
        heard.length = 0; // the connect-time flush
        await a.publish('integrations');
        expect(local).toEqual(['integrations']);
        await until(() => heard.includes('integrations'), 'B to hear of the change', 5000, 10);
        expect(heard).toEqual(['integrations']);

        // Kill B's listening connection from outside: B flushes everything and listens again.
        heard.length = 0;
        const admin = new pg.Client({ connectionString: url! });
        await admin.connect();
        try {
          const killed = await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
            [BUS_APPLICATION_NAME],
          );
          expect(killed.rowCount).toBe(2);
        } finally {
          await admin.end();
        }
        await until(() => a.connects >= 2 && b.connects >= 2, 'both buses to reconnect', 15_000, 20);
        expect(heard).toEqual(expect.arrayContaining(['integrations', 'flags']));
        heard.length = 0;
        await a.publish('flags');
        await until(() => heard.includes('flags'), 'B to hear of a change after reconnecting', 5000, 10);
      } finally {
        await a.close();
        await b.close();
      }
    },
    60_000,
  );
});

/**
 * Two servers of one instance on one PostgreSQL database (two contexts, two buses, as two processes would have):
 * caches live ten minutes here, so a setting changed through one server and applied by the other at once came
 * through the invalidation bus; the API throttle counts a user's requests to both servers together.
 */
describe.skipIf(!(await postgresAvailable()))('application settings across two servers (postgres)', () => {
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await drop?.();
  });

  it('a setting changed on one server applies on the other at once, and the API throttle counts on both', async () => {
    const pg = await createPostgresDatabase();
    drop = pg.drop;
    const env = { SVC_CACHE_TTL_MS: '600000' };
    a = await startTestServer({ databaseUrl: pg.url, env });
    b = await startTestServer({ databaseUrl: pg.url, env });
    const root = a.rootToken;
    const [apiA, apiB] = [http(a.url), http(b.url)];
    // B reads (and caches) the settings before the change.
    const before = await b.server.ctx.settings.get();
    expect(before).toMatchObject({
      default_projects_limit: 100000,
      throttle_authenticated_api_enabled: false,
    });
    const dave = await apiA.post('/api/v4/users', {
      token: root,
      body: { username: 'dave', name: 'Dave', email: 'dave@example.com', password: 'password-123' },
    });
    const daveToken = (
      await apiA.post(`/api/v4/users/${dave.body.id}/personal_access_tokens`, {
        token: root,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token as string;

    const changed = await apiA.put('/api/v4/application/settings', {
      token: root,
      body: {
        default_projects_limit: 1,
        throttle_authenticated_api_enabled: true,
        throttle_authenticated_api_requests_per_period: 3,
        throttle_authenticated_api_period_in_seconds: 60,
      },
    });
    expect(changed.status).toBe(200);
    await until(
      async () => (await b!.server.ctx.settings.get()).throttle_authenticated_api_enabled,
      'B to hear of the change',
      5000,
      10,
    );
    expect(await b.server.ctx.settings.get()).toMatchObject({ default_projects_limit: 1 });

    // Dave's requests alternate between the servers; the fourth is over the limit of three.
    expect((await apiA.get('/api/v4/user', { token: daveToken })).status).toBe(200);
    expect((await apiB.get('/api/v4/user', { token: daveToken })).status).toBe(200);
    expect((await apiA.get('/api/v4/user', { token: daveToken })).status).toBe(200);
    const throttled = await apiB.get('/api/v4/user', { token: daveToken });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toBe('Retry later\n');

    // A user created through B takes the new default limit.
    const erin = await apiB.post('/api/v4/users', {
      token: root,
      body: { username: 'erin', name: 'Erin', email: 'erin@example.com', password: 'password-123' },
    });
    expect(erin.body.projects_limit).toBe(1);
  }, 60_000);
});
