import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { createSentryProject, runClient, type SentryProject } from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MINUTE = 60_000;

interface MonitorJson {
  slug: string;
  status: string;
  schedule: { type: string; value: string | number; unit?: string } | null;
  checkin_margin: number | null;
  max_runtime: number | null;
  timezone: string | null;
  last_checkin_at: string | null;
  next_checkin_latest_at: string | null;
  checkins: { check_in_id: string; status: string; environment: string | null; duration: number | null }[];
}
interface AlertJson {
  iid: number;
  title: string;
  status: string;
  monitoring_tool: string;
  event_count: number;
}

/** Runs the real @sentry/node sender (test/e2e/sentry/node-checkin.mjs); returns its CHECKIN id, if any. */
async function sdk(dsn: string, slug: string, scenario: 'ok' | 'error' | 'start', config?: object) {
  const run = await runClient(process.execPath, [
    'node-checkin.mjs',
    dsn,
    slug,
    scenario,
    ...(config ? [JSON.stringify(config)] : []),
  ]);
  const sends = run.stdout
    .split('\n')
    .filter((l) => l.startsWith('SEND '))
    .map((l) => JSON.parse(l.slice(5)) as { types: string[]; status: number });
  if (run.code !== 0 || sends.length === 0 || sends.some((s) => s.status !== 200))
    throw new Error(`sender failed: ${run.code} ${run.stdout} ${run.stderr}`);
  expect(sends.every((s) => s.types.join() === 'check_in')).toBe(true);
  return /CHECKIN (\w+)/.exec(run.stdout)?.[1] ?? null;
}

/** An envelope with check-in items, as the SDKs send it (Sentry's envelope and check-in protocol). */
function envelope(p: SentryProject, items: unknown[]): string {
  const header = JSON.stringify({ sent_at: new Date().toISOString(), dsn: p.dsn });
  return [header, ...items.flatMap((i) => [JSON.stringify({ type: 'check_in' }), JSON.stringify(i)])].join(
    '\n',
  );
}

describe.each(await databases())('cron monitors (%s)', (database) => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const drain = () => s.server.ctx.jobs.drain();
  const monitors = async (id: number) =>
    (await http(s.url).get(`/api/v4/projects/${id}/error_tracking/monitors`, { token: s.rootToken }))
      .body as MonitorJson[];
  const monitor = async (id: number, slug: string) =>
    (await http(s.url).get(`/api/v4/projects/${id}/error_tracking/monitors/${slug}`, { token: s.rootToken }))
      .body as MonitorJson;
  const alerts = async (id: number) =>
    (await http(s.url).get(`/api/v4/projects/${id}/alert_management/alerts`, { token: s.rootToken }))
      .body as AlertJson[];
  const post = (p: SentryProject, body: string, gzip = false) =>
    fetch(`${s.url}/api/v4/error_tracking/collector/api/${p.id}/envelope/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-sentry-envelope',
        ...(gzip && { 'content-encoding': 'gzip' }),
      },
      body: gzip ? gzipSync(body) : body,
    });

  it('Reporters read monitors; Guests get 403, strangers 404; invalid check-ins are dropped with a 200', async () => {
    const p = await createSentryProject(s.url, s.rootToken, 'cron-perm');
    const api = http(s.url);
    const member = async (name: string, level: number) => {
      const u = await createUser(s, `${name}-${database}`);
      await api.post(`/api/v4/projects/${p.id}/members`, {
        token: s.rootToken,
        body: { user_id: u.id, access_level: level },
      });
      return u.token;
    };
    const reporter = await member('cron-reporter', 20);
    const guest = await member('cron-guest', 10);
    const url = `/api/v4/projects/${p.id}/error_tracking/monitors`;
    expect((await api.get(url, { token: reporter })).body).toEqual([]);
    expect((await api.get(url, { token: guest })).status).toBe(403);
    expect((await api.get(url)).status).toBe(404);
    expect((await api.get(`${url}/nope`, { token: reporter })).status).toBe(404);

    const good = {
      check_in_id: '83a7c03ed0a04e1b97e2e3b18d38f244',
      monitor_slug: 'reports',
      status: 'ok',
      monitor_config: { schedule: { type: 'interval', value: 1, unit: 'hour' } },
    };
    const bad = [
      { ...good, status: 'done' },
      { ...good, monitor_slug: '' },
      { ...good, monitor_slug: 'x'.repeat(51) },
      { ...good, check_in_id: 'not-a-uuid' },
      { ...good, duration: -1 },
      { ...good, monitor_config: { schedule: { type: 'crontab', value: 'every day' } } },
      { ...good, monitor_config: { schedule: { type: 'interval', value: 1, unit: 'fortnight' } } },
      {
        ...good,
        monitor_config: { schedule: { type: 'crontab', value: '0 3 * * *' }, timezone: 'Mars/Olympus' },
      },
      { ...good, monitor_config: { schedule: { type: 'crontab', value: '0 3 * * *' }, checkin_margin: 1.5 } },
      // No monitor yet and no config to create one.
      { ...good, monitor_config: undefined },
    ];
    for (const item of bad) {
      const r = await post(p, envelope(p, [item]));
      expect(r.status, JSON.stringify(item)).toBe(200);
    }
    expect(await monitors(p.id)).toEqual([]);
    // A wrong key stores nothing either (the collector's 404).
    const wrong = envelope({ ...p, dsn: p.dsn.replace(p.publicKey, 'f'.repeat(32)) }, [good]);
    expect((await post(p, wrong)).status).toBe(404);
    expect(await monitors(p.id)).toEqual([]);
    // Compressed, as SDKs may send it: stored.
    expect((await post(p, envelope(p, [good]), true)).status).toBe(200);
    expect(await monitors(p.id)).toMatchObject([
      { slug: 'reports', status: 'ok', schedule: { type: 'interval', value: 1, unit: 'hour' } },
    ]);
    expect((await api.get(`${url}/reports`, { token: reporter })).body.checkins).toHaveLength(1);
  });

  it('a real @sentry/node withMonitor creates the monitor; a missed check-in alerts; the next ok resolves', async () => {
    const p = await createSentryProject(s.url, s.rootToken, 'cron-missed');
    const config = {
      schedule: { type: 'crontab', value: '0 3 * * *' },
      checkinMargin: 5,
      maxRuntime: 10,
      timezone: 'Europe/Berlin',
    };
    await sdk(p.dsn, 'nightly-backup', 'ok', config);
    const m = await monitor(p.id, 'nightly-backup');
    expect(m).toMatchObject({
      slug: 'nightly-backup',
      status: 'ok',
      schedule: { type: 'crontab', value: '0 3 * * *' },
      checkin_margin: 5,
      max_runtime: 10,
      timezone: 'Europe/Berlin',
    });
    // in_progress and ok share the SDK's check_in_id: one run, finished, with the SDK's duration.
    expect(m.checkins).toHaveLength(1);
    expect(m.checkins[0]).toMatchObject({ status: 'ok', environment: 'e2e' });
    expect(m.checkins[0]!.duration).toBeGreaterThan(0);
    // Due by the next 03:00 in Berlin, plus 5 minutes.
    const due = new Date(m.next_checkin_latest_at!);
    const berlin = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(due);
    expect(berlin).toBe('03:05');
    expect(due.getTime() - s.clock.now().getTime()).toBeLessThanOrEqual(24 * 60 * MINUTE + 5 * MINUTE);

    // Up to the deadline nothing happens; past it, one alert, however often the job runs.
    s.clock.advance(due.getTime() - s.clock.now().getTime() - MINUTE);
    await drain();
    expect(await alerts(p.id)).toEqual([]);
    s.clock.advance(2 * MINUTE);
    await drain();
    await drain();
    expect(await alerts(p.id)).toMatchObject([
      {
        title: 'Cron monitor nightly-backup missed a check-in',
        status: 'triggered',
        monitoring_tool: 'Cron monitor',
        event_count: 1,
      },
    ]);
    const missed = await monitor(p.id, 'nightly-backup');
    expect(missed.status).toBe('missed');
    expect(missed.checkins.map((c) => c.status)).toEqual(['missed', 'ok']);
    // Missed again the next day: the open alert counts it.
    s.clock.advance(24 * 60 * MINUTE);
    await drain();
    expect(await alerts(p.id)).toMatchObject([{ status: 'triggered', event_count: 2 }]);

    // The job runs again: resolved.
    await sdk(p.dsn, 'nightly-backup', 'ok', config);
    expect(await alerts(p.id)).toMatchObject([{ status: 'resolved' }]);
    expect((await monitor(p.id, 'nightly-backup')).status).toBe('ok');
  });

  it('an error check-in alerts and the next ok resolves; a run past max_runtime times out', async () => {
    const p = await createSentryProject(s.url, s.rootToken, 'cron-error');
    const config = {
      schedule: { type: 'interval', value: 1, unit: 'hour' },
      checkinMargin: 2,
      maxRuntime: 10,
    };
    await sdk(p.dsn, 'import', 'error', config);
    expect(await alerts(p.id)).toMatchObject([
      { title: 'Cron monitor import failed', status: 'triggered', monitoring_tool: 'Cron monitor' },
    ]);
    const failed = await monitor(p.id, 'import');
    expect(failed.status).toBe('error');
    expect(failed.checkins.map((c) => c.status)).toEqual(['error']);
    await sdk(p.dsn, 'import', 'ok', config);
    expect(await alerts(p.id)).toMatchObject([{ status: 'resolved' }]);

    // A run that never finishes: timed out after max_runtime (10 minutes), not before.
    const id = await sdk(p.dsn, 'import', 'start', config);
    expect((await monitor(p.id, 'import')).checkins[0]).toMatchObject({
      check_in_id: id,
      status: 'in_progress',
    });
    s.clock.advance(9 * MINUTE);
    await drain();
    expect((await alerts(p.id)).filter((a) => a.status === 'triggered')).toEqual([]);
    s.clock.advance(2 * MINUTE);
    await drain();
    const timedOut = await monitor(p.id, 'import');
    expect(timedOut.status).toBe('timeout');
    expect(timedOut.checkins[0]).toMatchObject({ check_in_id: id, status: 'timeout' });
    expect((await alerts(p.id)).filter((a) => a.status === 'triggered')).toMatchObject([
      { title: 'Cron monitor import exceeded its maximum runtime' },
    ]);
  });

  it("Sentry's HTTP check-in endpoint: curl in_progress then ok closes the same run; 202, and 400 or 404 refused", async () => {
    const p = await createSentryProject(s.url, s.rootToken, 'cron-http');
    const base = `${s.url}/api/v4/error_tracking/collector/api/${p.id}/cron/db-dump/${p.publicKey}/`;
    const config = {
      monitor_config: { schedule: { type: 'interval', value: 2, unit: 'hour' }, checkin_margin: 10 },
    };
    const start = await curl([
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify(config),
      `${base}?status=in_progress`,
    ]);
    expect(start.status).toBe(202);
    expect((await curl([`${base}?status=ok&environment=prod`])).status).toBe(202);
    const m = await monitor(p.id, 'db-dump');
    expect(m).toMatchObject({
      status: 'ok',
      schedule: { type: 'interval', value: 2, unit: 'hour' },
      checkin_margin: 10,
    });
    expect(m.checkins).toHaveLength(1);
    expect(m.checkins[0]!.status).toBe('ok');
    expect(Date.parse(m.next_checkin_latest_at!) - Date.parse(m.last_checkin_at!)).toBe(130 * MINUTE);
    // Refusals change nothing.
    expect((await curl([`${base}?status=finished`])).status).toBe(400);
    expect((await curl([base.replace(p.publicKey, 'f'.repeat(32))])).status).toBe(404);
    expect((await curl([`${base.replace('db-dump', 'unknown')}?status=ok`])).status).toBe(400);
    expect((await monitor(p.id, 'db-dump')).checkins).toHaveLength(1);
  });
});
