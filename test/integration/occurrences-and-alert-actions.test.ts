import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROLES = { guest: 10, reporter: 20, developer: 30 } as const;
const HOUR = 3_600_000;

/** Occurrence charts (bucketed in SQL), event pages, and the alert detail's actions. */
describe.each(await databases())('occurrences, events and alert actions (%s)', (database) => {
  let s: TestServer;
  let runs = 0;

  async function setup() {
    const n = ++runs;
    const { api, id, tokens } = await projectWithMembers(s, `charts-${n}`, ROLES, n);
    return { api, id, tokens, n };
  }

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  async function errorProject() {
    const ctx = await setup();
    const { api, id } = ctx;
    await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    const key = (await api.post(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: s.rootToken }))
      .body.public_key as string;
    const store = async (type: string, at: Date, extra: Record<string, unknown> = {}) => {
      const res = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${id}/store/?sentry_key=${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          timestamp: at.getTime() / 1000,
          platform: 'node',
          exception: {
            values: [{ type, value: 'boom', stacktrace: { frames: [{ filename: 'a.js', lineno: 1 }] } }],
          },
          ...extra,
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { id: string }).id;
    };
    return { ...ctx, store };
  }

  it('counts events per hour and per day in SQL, for one error and for a page of them', async () => {
    const { api, id, store } = await errorProject();
    const now = s.clock.now();
    await store('TypeError', new Date(now.getTime() - 3 * HOUR));
    await store('TypeError', new Date(now.getTime() - 3 * HOUR));
    await store('TypeError', now);
    await store('TypeError', new Date(now.getTime() - 5 * 24 * HOUR));
    await store('RangeError', new Date(now.getTime() - 40 * 24 * HOUR));
    const errors = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    const typeError = errors.find((e: { type: string }) => e.type === 'TypeError');
    const rangeError = errors.find((e: { type: string }) => e.type === 'RangeError');
    const base = `/api/v4/projects/${id}/error_tracking/errors`;

    for (const v of ['v4', 'v5']) {
      const day = await api.get(`/api/${v}/projects/${id}/error_tracking/errors/${typeError.id}/stats`, {
        token: s.rootToken,
      });
      expect(day.status).toBe(200);
      expect(day.body).toMatchObject({ error_id: typeError.id, stats_period: '24h', interval: 'hour' });
      expect(day.body.buckets).toHaveLength(24);
      const counts = day.body.buckets.map((b: { count: number }) => b.count);
      expect(counts.at(-1)).toBe(1);
      expect(counts.at(-4)).toBe(2);
      expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(3);
      expect(day.body.buckets.at(-1).start).toBe(`${now.toISOString().slice(0, 13)}:00:00.000Z`);
    }
    const month = await api.get(`${base}/${typeError.id}/stats?stats_period=30d`, { token: s.rootToken });
    expect(month.body.interval).toBe('day');
    expect(month.body.buckets).toHaveLength(30);
    expect(month.body.buckets.reduce((a: number, b: { count: number }) => a + b.count, 0)).toBe(4);

    const many = await api.get(`${base}/stats?error_ids=${typeError.id},${rangeError.id}&stats_period=30d`, {
      token: s.rootToken,
    });
    expect(many.status).toBe(200);
    expect(many.body.map((x: { error_id: number }) => x.error_id)).toEqual([typeError.id, rangeError.id]);
    // The RangeError happened 40 days ago: outside the window.
    expect(many.body[1].buckets.every((b: { count: number }) => b.count === 0)).toBe(true);

    // Bad input: a GitLab-shaped 400 or 404.
    expect(
      (await api.get(`${base}/${typeError.id}/stats?stats_period=7d`, { token: s.rootToken })).status,
    ).toBe(400);
    const badIds = await api.get(`${base}/stats?error_ids=1;DROP`, { token: s.rootToken });
    expect(badIds.status).toBe(400);
    expect(badIds.body).toHaveProperty('error');
    const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    expect((await api.get(`${base}/stats?error_ids=${tooMany}`, { token: s.rootToken })).status).toBe(400);
    for (const missing of ['999999', '999999999999999999']) {
      expect(await api.get(`${base}/stats?error_ids=${missing}`, { token: s.rootToken })).toMatchObject({
        status: 404,
        body: { message: '404 Error Not Found' },
      });
    }
  });

  it('counts errors per status for the tabs; Reporter reads, a guest gets 403', async () => {
    const { api, id, store, tokens } = await errorProject();
    const now = s.clock.now();
    await store('A', now);
    await store('B', now);
    await store('C', now);
    const errors = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    await api.put(`/api/v4/projects/${id}/error_tracking/errors/${errors[0].id}`, {
      token: s.rootToken,
      body: { status: 'resolved' },
    });
    const counts = await api.get(`/api/v5/projects/${id}/error_tracking/errors/counts`, {
      token: tokens.reporter,
    });
    expect(counts.body).toEqual({ unresolved: 2, resolved: 1, ignored: 0, all: 3 });
    expect(
      (await api.get(`/api/v4/projects/${id}/error_tracking/errors/counts`, { token: tokens.guest })).status,
    ).toBe(403);
  });

  it('serves one event with its whole payload (vars, breadcrumbs, contexts) and its neighbours', async () => {
    const { api, id, store, tokens } = await errorProject();
    const now = s.clock.now().getTime();
    const frame = { filename: 'a.js', lineno: 1, vars: { userId: 42, html: '<img src=x onerror=alert(1)>' } };
    const first = await store('E', new Date(now - 2 * HOUR));
    const second = await store('E', new Date(now - HOUR), {
      breadcrumbs: { values: [{ category: 'http', message: 'GET /cart' }] },
      contexts: { runtime: { name: 'node', version: 'v24.0.0' }, os: { name: 'Linux' } },
      request: { url: 'https://shop.example/cart', method: 'GET' },
      user: { id: 'u1', email: 'u1@example.com' },
      tags: { region: 'eu' },
      exception: { values: [{ type: 'E', value: 'boom', stacktrace: { frames: [frame] } }] },
    });
    const third = await store('E', new Date(now));
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    const base = `/api/v5/projects/${id}/error_tracking/errors/${error.id}/events`;
    const middle = await api.get(`${base}/${second}`, { token: tokens.reporter });
    expect(middle.status).toBe(200);
    expect(middle.body).toMatchObject({
      event_id: second,
      error_id: error.id,
      previous_event_id: first,
      next_event_id: third,
    });
    expect(middle.body.payload.exception.values[0].stacktrace.frames[0].vars).toEqual(frame.vars);
    expect(middle.body.payload.breadcrumbs.values[0].message).toBe('GET /cart');
    expect(middle.body.payload.contexts.runtime.version).toBe('v24.0.0');
    expect((await api.get(`${base}/${first}`, { token: tokens.reporter })).body.previous_event_id).toBeNull();
    expect((await api.get(`${base}/${third}`, { token: tokens.reporter })).body.next_event_id).toBeNull();
    expect(await api.get(`${base}/${'0'.repeat(32)}`, { token: tokens.reporter })).toMatchObject({
      status: 404,
      body: { message: '404 Event Not Found' },
    });
    expect((await api.get(`${base}/${second}`, { token: tokens.guest })).status).toBe(403);
  });

  async function alertProject() {
    const ctx = await setup();
    const integration = await createIntegration(ctx.api, s.rootToken, ctx.id, { name: 'HTTP', type: 'http' });
    const send = async (body: Record<string, unknown>) => {
      const r = await notify(integration.url, integration.authorization_key, body);
      expect(r.status).toBe(200);
    };
    return { ...ctx, send, base: `/api/v4/projects/${ctx.id}/alert_management/alerts` };
  }

  it('counts alert firings over time: a repeat of an open alert is one more occurrence', async () => {
    const { api, send, base } = await alertProject();
    await send({ title: 'Disk full', fingerprint: 'disk' });
    await send({ title: 'Disk full', fingerprint: 'disk' });
    s.clock.advance(2 * HOUR);
    await send({ title: 'Disk full', fingerprint: 'disk' });
    const stats = await api.get(`${base}/1/stats`, { token: s.rootToken });
    expect(stats.status).toBe(200);
    const counts = stats.body.buckets.map((b: { count: number }) => b.count);
    expect(counts.at(-1)).toBe(1);
    expect(counts.at(-3)).toBe(2);
    const month = await api.get(
      `/api/v5/projects/${base.split('/')[4]}/alert_management/alerts/1/stats?stats_period=30d`,
      {
        token: s.rootToken,
      },
    );
    expect(month.body.buckets.reduce((a: number, b: { count: number }) => a + b.count, 0)).toBe(3);
    expect((await api.get(`${base}/99/stats`, { token: s.rootToken })).status).toBe(404);
  });

  it('assigns (first username kept, as GitLab), comments, and refuses a guest or an unknown assignee', async () => {
    const { api, send, base, tokens, n } = await alertProject();
    await send({ title: 'CPU high' });
    const assign = await api.put(`${base}/1`, {
      token: tokens.developer,
      body: { assignee_usernames: [`reporter-${n}`, `developer-${n}`] },
    });
    expect(assign.status).toBe(200);
    expect(assign.body.assignees.map((u: { username: string }) => u.username)).toEqual([`reporter-${n}`]);
    // Listed with the assignees too, in v5.
    const list = await api.get(`/api/v5/projects/${base.split('/')[4]}/alert_management/alerts`, {
      token: tokens.reporter,
    });
    expect(list.body[0].assignees[0]).toMatchObject({
      username: `reporter-${n}`,
      web_url: expect.any(String),
    });
    // Status and assignee in one request; acknowledge is a status.
    const ack = await api.put(`${base}/1`, {
      token: tokens.developer,
      body: { status: 'acknowledged', assignee_usernames: [] },
    });
    expect(ack.body).toMatchObject({ status: 'acknowledged', assignees: [] });

    // Outside: a guest cannot see alerts at all; a reporter cannot change them.
    for (const body of [{ status: 'acknowledged' }, { assignee_usernames: [`developer-${n}`] }]) {
      expect((await api.put(`${base}/1`, { token: tokens.guest, body })).status).toBe(403);
      expect((await api.put(`${base}/1`, { token: tokens.reporter, body })).status).toBe(403);
    }
    expect(
      (await api.put(`${base}/1`, { token: tokens.developer, body: { assignee_usernames: [`guest-${n}`] } }))
        .body,
    ).toEqual({ message: '400 Bad request - Assignee has no permissions' });
    expect(
      await api.put(`${base}/1`, { token: tokens.developer, body: { assignee_usernames: ['nobody-here'] } }),
    ).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await api.put(`${base}/1`, { token: tokens.developer, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'status, assignee_usernames are missing, at least one parameter must be provided' },
    });
    // Nothing changed by the refused requests.
    expect((await api.get(`${base}/1`, { token: tokens.reporter })).body).toMatchObject({
      status: 'acknowledged',
      assignees: [],
    });

    const comment = await api.post(`${base}/1/notes`, {
      token: tokens.reporter,
      body: { body: 'Looking <b>now</b>' },
    });
    expect(comment.status).toBe(201);
    expect(comment.body).toMatchObject({
      body: 'Looking <b>now</b>',
      system: false,
      author: { username: `reporter-${n}` },
    });
    expect((await api.post(`${base}/1/notes`, { token: tokens.guest, body: { body: 'x' } })).status).toBe(
      403,
    );
    expect(
      await api.post(`${base}/1/notes`, { token: tokens.reporter, body: { body: '   ' } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'body is empty' },
    });
    const notes = (await api.get(`${base}/1/notes`, { token: tokens.reporter })).body;
    expect(notes.map((x: { body: string; system: boolean }) => [x.body, x.system])).toEqual([
      ['logged an alert from **HTTP**', true],
      [`assigned to @reporter-${n}`, true],
      ['changed the status to **Acknowledged**', true],
      [`unassigned @reporter-${n}`, true],
      ['Looking <b>now</b>', false],
    ]);
  });

  it('keeps one assignee and one incident under concurrent requests', async () => {
    const { api, send, base, tokens, n, id } = await alertProject();
    await send({ title: 'Race' });
    const names = [`reporter-${n}`, `developer-${n}`];
    const puts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.put(`${base}/1`, { token: tokens.developer, body: { assignee_usernames: [names[i % 2]] } }),
      ),
    );
    expect(puts.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect((await api.get(`${base}/1`, { token: tokens.reporter })).body.assignees).toHaveLength(1);
    const creates = await Promise.all(
      Array.from({ length: 6 }, () => api.post(`${base}/1/create_issue`, { token: tokens.developer })),
    );
    expect(creates.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const incidents = await api.get(`/api/v4/projects/${id}/issues?issue_type=incident`, {
      token: s.rootToken,
    });
    expect(incidents.body).toHaveLength(1);
  });

  it('creates an incident on demand with the payload markdown, once; Developer only', async () => {
    const { api, send, base, tokens, id } = await alertProject();
    await send({
      title: 'Checkout down',
      svc_incident_markdown: '## Steps\n\n- check [dash](https://dash.example)',
    });
    expect((await api.post(`${base}/1/create_issue`, { token: tokens.reporter })).status).toBe(403);
    const created = await api.post(`${base}/1/create_issue`, { token: tokens.developer });
    expect(created.status).toBe(201);
    expect(created.body.incident).toEqual(expect.any(Number));
    const issue = await api.get(`/api/v4/projects/${id}/issues/${created.body.incident}`, {
      token: s.rootToken,
    });
    expect(issue.body.description).toContain('**Alert:** ^alert#1');
    expect(issue.body.description).toContain('## Steps\n\n- check [dash](https://dash.example)');
    expect(await api.post(`${base}/1/create_issue`, { token: tokens.developer })).toMatchObject({
      status: 409,
      body: { message: 'An incident already exists for this alert' },
    });
  });
});
