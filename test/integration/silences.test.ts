import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

const ROLES = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
const silencesOf = (id: number) => `/api/v4/projects/${id}/alert_management/silences`;
const HOUR = 3_600_000;

describe.each(await databases())('alert silences (%s)', (database) => {
  let s: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let hooks: Awaited<ReturnType<typeof startHookReceiver>>;

  beforeAll(async () => {
    [smtp, hooks] = await Promise.all([startSmtpReceiver(), startHookReceiver()]);
    s = await startTestServer({ database, env: { SVC_TIER: 'premium', SVC_SMTP_URL: smtp.url } });
    const r = await http(s.url).put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    });
    expect(r.status).toBe(200);
  });
  afterAll(async () => {
    await s?.stop();
    await smtp?.close();
    await hooks?.close();
  });

  const drain = () => s.server.ctx.jobs.drain();
  const later = (ms: number) => new Date(s.clock.now().getTime() + ms).toISOString();

  it('Reporters read, Developers create and expire; bad input is a 400 that stores nothing', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'sil-perm', ROLES, 'sp');
    const url = silencesOf(id);
    const body = {
      matchers: [{ name: 'alertname', value: 'DiskFull', isRegex: false, isEqual: true }],
      ends_at: later(HOUR),
      comment: 'maintenance of db-1',
    };
    expect((await api.get(url, { token: tokens.guest })).status).toBe(403);
    expect((await api.post(url, { token: tokens.reporter, body })).status).toBe(403);
    expect((await api.post(url, { token: tokens.guest, body })).status).toBe(403);
    expect((await api.post(url, { body })).status).toBe(404);

    // Validation: each refusal is a 400 and stores nothing.
    const bad: [string, unknown][] = [
      ['no comment', { ...body, comment: undefined }],
      ['blank comment', { ...body, comment: '  ' }],
      ['no ends_at', { ...body, ends_at: undefined }],
      ['end before start', { ...body, starts_at: later(2 * HOUR) }],
      ['end in the past', { ...body, starts_at: later(-2 * HOUR), ends_at: later(-HOUR) }],
      ['bad time', { ...body, ends_at: 'tomorrow-ish' }],
      ['no matchers', { ...body, matchers: [] }],
      ['bad name', { ...body, matchers: [{ name: 'a-b', value: 'x' }] }],
      ['nested quantifier', { ...body, matchers: [{ name: 'a', value: '(x+)+y', isRegex: true }] }],
      ['backreference', { ...body, matchers: [{ name: 'a', value: '(x)\\1', isRegex: true }] }],
      ['lookahead', { ...body, matchers: [{ name: 'a', value: 'x(?=y)', isRegex: true }] }],
      ['long regex', { ...body, matchers: [{ name: 'a', value: 'x'.repeat(257), isRegex: true }] }],
      ['invalid regex', { ...body, matchers: [{ name: 'a', value: '[x', isRegex: true }] }],
      ['matches everything', { ...body, matchers: [{ name: 'a', value: '.*', isRegex: true }] }],
    ];
    for (const [what, b] of bad) {
      const r = await api.post(url, { token: tokens.developer, body: b });
      expect(r.status, what).toBe(400);
    }
    expect((await api.get(url, { token: tokens.reporter })).body).toEqual([]);

    const created = await api.post(url, { token: tokens.developer, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      matchers: body.matchers,
      ends_at: body.ends_at,
      comment: 'maintenance of db-1',
      created_by: { username: 'developer-sp' },
      state: 'active',
    });
    // starts_at defaults to now (the test clock runs on from where it was).
    const startedAt = new Date(created.body.starts_at).getTime();
    expect(Math.abs(startedAt - s.clock.now().getTime())).toBeLessThan(60_000);
    const one = `${url}/${created.body.id}`;
    expect((await api.get(one, { token: tokens.reporter })).body).toEqual(created.body);
    expect((await api.get(`${url}/${created.body.id + 1000}`, { token: tokens.reporter })).status).toBe(404);
    expect((await api.put(one, { token: tokens.reporter, body: { comment: 'x' } })).status).toBe(403);
    expect((await api.delete(one, { token: tokens.reporter })).status).toBe(403);
    expect((await api.post(`${one}/expire`, { token: tokens.reporter })).status).toBe(403);
    // A bad change changes nothing.
    expect((await api.put(one, { token: tokens.developer, body: { ends_at: later(-HOUR) } })).status).toBe(
      400,
    );
    expect((await api.get(one, { token: tokens.reporter })).body).toEqual(created.body);
    const endsAt = later(2 * HOUR);
    const changed = await api.put(one, {
      token: tokens.developer,
      body: { comment: 'longer', ends_at: endsAt },
    });
    expect(changed.body).toMatchObject({ comment: 'longer', ends_at: endsAt, state: 'active' });

    // A future silence is pending; states filter the list; expiring keeps the silence, listed as expired.
    const future = await api.post(url, {
      token: tokens.maintainer,
      body: { ...body, starts_at: later(HOUR), ends_at: later(2 * HOUR) },
    });
    expect(future.body.state).toBe('pending');
    const ids = async (state: string) =>
      (await api.get(`${url}?state=${state}`, { token: tokens.reporter })).body.map(
        (x: { id: number }) => x.id,
      );
    expect(await ids('active')).toEqual([created.body.id]);
    expect(await ids('pending')).toEqual([future.body.id]);
    expect(await ids('expired')).toEqual([]);
    expect((await api.get(`${url}?state=gone`, { token: tokens.reporter })).status).toBe(400);
    const expired = await api.delete(one, { token: tokens.developer });
    expect(expired.status).toBe(200);
    expect(expired.body.state).toBe('expired');
    expect(new Date(expired.body.ends_at).getTime()).toBeLessThanOrEqual(s.clock.now().getTime());
    expect(expired.body.starts_at).toBe(created.body.starts_at);
    const expiredFuture = await api.post(`${url}/${future.body.id}/expire`, { token: tokens.developer });
    expect(expiredFuture.body).toMatchObject({ state: 'expired' });
    expect(await ids('expired')).toEqual([future.body.id, created.body.id]);
    expect(await ids('active')).toEqual([]);
    // An expired silence cannot change.
    expect((await api.put(one, { token: tokens.developer, body: { comment: 'again' } })).status).toBe(400);
    // Pagination and v5.
    const page = await api.get(`${url}?per_page=1&page=2`, { token: tokens.reporter });
    expect(page.headers.get('x-total')).toBe('2');
    expect(page.body.map((x: { id: number }) => x.id)).toEqual([created.body.id]);
    expect((await api.get(one.replace('/api/v4/', '/api/v5/'), { token: tokens.reporter })).body.state).toBe(
      'expired',
    );
  });

  it('a silenced alert is stored and shows its silences but pages, e-mails and calls no one; the page goes out when the silence ends', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'sil-fx', { ...ROLES, oncall: 20 }, 'fx');
    const token = tokens.maintainer;
    expect(
      (
        await api.post(`/api/v4/projects/${id}/hooks`, {
          token,
          body: { url: hooks.url, alert_events: true },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api.put(`/api/v4/projects/${id}/alert_management/settings`, {
          token,
          body: { send_email: true },
        })
      ).status,
    ).toBe(200);
    const policy = await api.post(`/api/v4/projects/${id}/incident_management/escalation_policies`, {
      token,
      body: {
        name: 'P',
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-fx' },
          { elapsed_time_seconds: 60, status: 'acknowledged', username: 'reporter-fx' },
        ],
      },
    });
    expect(policy.status).toBe(201);
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const send = (title: string, labels: Record<string, string>) =>
      notify(integration.url, integration.authorization_key, { title, fingerprint: title, labels });
    const pages = (who: string, title: string) =>
      smtp.messages.filter(
        (m) => m.to.includes(`${who}@example.com`) && m.subject.includes(`Paged: ${title}`),
      );
    const triggered = (title: string) =>
      smtp.messages.filter((m) => m.subject.includes(`Alert triggered: ${title}`));
    const hookEvents = (title: string) =>
      hooks.received.filter((r) => r.body?.object_attributes?.title === title);
    const alertsUrl = `/api/v4/projects/${id}/alert_management/alerts`;
    const alertByTitle = async (title: string) =>
      (await api.get(`${alertsUrl}?search=${title}`, { token: tokens.reporter })).body[0];

    const silence = await api.post(silencesOf(id), {
      token: tokens.developer,
      body: {
        matchers: [
          { name: 'team', value: 'db', isRegex: false, isEqual: true },
          { name: 'title', value: 'quiet-.*', isRegex: true, isEqual: true },
        ],
        ends_at: later(HOUR),
        comment: 'db maintenance',
      },
    });
    expect(silence.status).toBe(201);
    // A silence that starts later silences nothing yet.
    const future = await api.post(silencesOf(id), {
      token: tokens.developer,
      body: {
        matchers: [{ name: 'team', value: 'web' }],
        starts_at: later(HOUR),
        ends_at: later(2 * HOUR),
        comment: 'later',
      },
    });
    expect(future.status).toBe(201);

    expect((await send('quiet-db', { team: 'db' })).status).toBe(200);
    expect((await send('loud-web', { team: 'web' })).status).toBe(200);
    // Same title pattern, another team: not matched (every matcher must match).
    expect((await send('quiet-other', { team: 'other' })).status).toBe(200);
    for (const t of ['loud-web', 'quiet-other'])
      await until(async () => {
        await drain();
        return pages('oncall-fx', t).length === 1 && triggered(t).length > 0 && hookEvents(t).length >= 2;
      }, `${t} paged, e-mailed and hooked`);
    await drain();
    expect(pages('oncall-fx', 'quiet-db')).toHaveLength(0);
    expect(triggered('quiet-db')).toHaveLength(0);
    expect(hookEvents('quiet-db')).toHaveLength(0);
    // Stored and counted, and shows what silences it.
    const quiet = await alertByTitle('quiet-db');
    expect(quiet).toMatchObject({ status: 'triggered', silenced_by: [silence.body.id] });
    expect((await alertByTitle('loud-web')).silenced_by).toEqual([]);
    expect((await api.get(`${alertsUrl}/${quiet.iid}`, { token: tokens.reporter })).body.silenced_by).toEqual(
      [silence.body.id],
    );
    expect((await api.get(`${alertsUrl}/counts`, { token: tokens.reporter })).body.triggered).toBe(3);

    // The 60 s rule is held too.
    s.clock.advance(61_000);
    await until(async () => {
      await drain();
      return pages('reporter-fx', 'loud-web').length === 1;
    }, 'the second page of loud-web');
    expect(pages('reporter-fx', 'quiet-db')).toHaveLength(0);

    // The silence ends with the alert still triggered: its held pages go out then.
    s.clock.advance(HOUR);
    await until(async () => {
      await drain();
      return pages('oncall-fx', 'quiet-db').length === 1 && pages('reporter-fx', 'quiet-db').length === 1;
    }, 'the held pages of quiet-db');
    expect((await alertByTitle('quiet-db')).silenced_by).toEqual([]);
    // The future silence (team=web) is active now: a new web alert is held.
    expect((await send('loud-web-2', { team: 'web' })).status).toBe(200);
    await drain();
    expect(pages('oncall-fx', 'loud-web-2')).toHaveLength(0);
    expect((await alertByTitle('loud-web-2')).silenced_by).toEqual([future.body.id]);
  });

  it('a silence made while an alert escalates stops its next pages; expiring it early lets them go out', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'sil-esc', { ...ROLES, oncall: 20 }, 'se');
    const token = tokens.maintainer;
    const policy = await api.post(`/api/v4/projects/${id}/incident_management/escalation_policies`, {
      token,
      body: {
        name: 'P',
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-se' },
          { elapsed_time_seconds: 60, status: 'acknowledged', username: 'reporter-se' },
          { elapsed_time_seconds: 120, status: 'resolved', username: 'developer-se' },
        ],
      },
    });
    expect(policy.status).toBe(201);
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const pages = (who: string) =>
      smtp.messages.filter(
        (m) => m.to.includes(`${who}@example.com`) && m.subject.includes('Paged: burning'),
      );
    expect((await notify(integration.url, integration.authorization_key, { title: 'burning' })).status).toBe(
      200,
    );
    await until(async () => {
      await drain();
      return pages('oncall-se').length === 1;
    }, 'the first page');
    const silence = await api.post(silencesOf(id), {
      token: tokens.developer,
      body: { matchers: [{ name: 'title', value: 'burning' }], ends_at: later(HOUR), comment: 'on it' },
    });
    expect(silence.status).toBe(201);
    s.clock.advance(121_000);
    await drain();
    expect(pages('reporter-se')).toHaveLength(0);
    expect(pages('developer-se')).toHaveLength(0);
    const held = await api.get(`/api/v4/projects/${id}/alert_management/alerts/1/escalations`, {
      token: tokens.reporter,
    });
    expect(held.body.map((e: { state: string }) => e.state)).toEqual(['paged', 'pending', 'pending']);

    // Expired early: the held pages go out now, not at the silence's planned end.
    expect(
      (await api.delete(`${silencesOf(id)}/${silence.body.id}`, { token: tokens.developer })).status,
    ).toBe(200);
    await until(async () => {
      await drain();
      return pages('reporter-se').length === 1 && pages('developer-se').length === 1;
    }, 'the held pages after expiry');
    expect(pages('oncall-se')).toHaveLength(1);
    // The expired silence is still listed.
    const list = await api.get(`${silencesOf(id)}?state=expired`, { token: tokens.reporter });
    expect(list.body.map((x: { id: number }) => x.id)).toEqual([silence.body.id]);
  });
});
