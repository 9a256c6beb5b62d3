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
const windowsOf = (id: number) => `/api/v4/projects/${id}/alert_management/maintenance_windows`;
const silencesOf = (id: number) => `/api/v4/projects/${id}/alert_management/silences`;
const HOUR = 3_600_000;

describe.each(await databases())('maintenance windows (%s)', (database) => {
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

  /**
   * A project that e-mails its Maintainers about new alerts, calls a hook for alert events, and pages through a
   * policy (0 s: `oncall-<suffix>`, 60 s: `reporter-<suffix>`); what each alert title got is counted.
   */
  async function loudProject(name: string, suffix: string) {
    const p = await projectWithMembers(s, name, { ...ROLES, oncall: 20 }, suffix);
    const { api, id, tokens } = p;
    const token = tokens.maintainer;
    const hook = await api.post(`/api/v4/projects/${id}/hooks`, {
      token,
      body: { url: `${hooks.url}/${suffix}`, alert_events: true },
    });
    expect(hook.status).toBe(201);
    const settings = await api.put(`/api/v4/projects/${id}/alert_management/settings`, {
      token,
      body: { send_email: true },
    });
    expect(settings.status).toBe(200);
    const policy = await api.post(`/api/v4/projects/${id}/incident_management/escalation_policies`, {
      token,
      body: {
        name: 'P',
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: `oncall-${suffix}` },
          { elapsed_time_seconds: 60, status: 'acknowledged', username: `reporter-${suffix}` },
        ],
      },
    });
    expect(policy.status).toBe(201);
    const alertsUrl = `/api/v4/projects/${id}/alert_management/alerts`;
    return {
      ...p,
      pages: (who: string, title: string) =>
        smtp.messages.filter(
          (m) => m.to.includes(`${who}-${suffix}@example.com`) && m.subject.includes(`Paged: ${title}`),
        ),
      /** "Alert triggered" e-mails of `title` (one per Maintainer of the project). */
      triggered: (title: string) =>
        smtp.messages.filter(
          (m) =>
            m.subject.includes(`Alert triggered: ${title}`) &&
            m.to.includes(`maintainer-${suffix}@example.com`),
        ),
      /** Alert hook calls of `title` for the alert itself (`new`), not its pages. */
      hooked: (title: string) =>
        hooks.received.filter(
          (r) =>
            r.path.endsWith(`/${suffix}`) &&
            r.body?.object_attributes?.title === title &&
            r.body?.event_type === 'new',
        ),
      alertByTitle: async (title: string) =>
        (await api.get(`${alertsUrl}?search=${title}`, { token: tokens.reporter })).body[0],
      setStatus: async (iid: number, status: string) =>
        expect(
          (await api.put(`${alertsUrl}/${iid}`, { token: tokens.developer, body: { status } })).status,
        ).toBe(200),
      alertsUrl,
    };
  }

  it('Reporters read, Developers create, change and end; bad input is a 400 that stores nothing', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'mw-perm', ROLES, 'mp');
    const other = await projectWithMembers(s, 'mw-other', ROLES, 'mo');
    const mine = await createIntegration(api, s.rootToken, id, { name: 'mine', type: 'http' });
    const theirs = await createIntegration(other.api, s.rootToken, other.id, {
      name: 'theirs',
      type: 'http',
    });
    const url = windowsOf(id);
    const body = { ends_at: later(HOUR), comment: 'db upgrade' };
    expect((await api.get(url, { token: tokens.guest })).status).toBe(403);
    expect((await api.post(url, { token: tokens.reporter, body })).status).toBe(403);
    expect((await api.post(url, { token: tokens.guest, body })).status).toBe(403);
    expect((await api.post(url, { body })).status).toBe(404);
    expect((await api.get(url)).status).toBe(404);

    const bad: [string, unknown][] = [
      ['no comment', { ...body, comment: undefined }],
      ['blank comment', { ...body, comment: '   ' }],
      ['long comment', { ...body, comment: 'x'.repeat(10_001) }],
      ['no ends_at', { comment: 'x' }],
      ['end before start', { ...body, starts_at: later(2 * HOUR) }],
      ['end at start', { ...body, starts_at: body.ends_at }],
      ['end in the past', { ...body, starts_at: later(-2 * HOUR), ends_at: later(-HOUR) }],
      ['bad time', { ...body, ends_at: 'after lunch' }],
      ['another project’s integration', { ...body, integration_id: theirs.id }],
      ['no such integration', { ...body, integration_id: 999_999 }],
      ['integration_id not a number', { ...body, integration_id: 'mine' }],
    ];
    for (const [what, b] of bad) {
      const r = await api.post(url, { token: tokens.developer, body: b });
      expect(r.status, what).toBe(400);
    }
    expect((await api.get(url, { token: tokens.reporter })).body).toEqual([]);

    const created = await api.post(url, { token: tokens.developer, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      integration_id: null,
      ends_at: body.ends_at,
      comment: 'db upgrade',
      created_by: { username: 'developer-mp' },
      state: 'active',
    });
    // starts_at defaults to now.
    expect(Math.abs(new Date(created.body.starts_at).getTime() - s.clock.now().getTime())).toBeLessThan(
      60_000,
    );
    const one = `${url}/${created.body.id}`;
    expect((await api.get(one, { token: tokens.reporter })).body).toEqual(created.body);
    expect((await api.get(one, { token: tokens.guest })).status).toBe(403);
    expect((await api.get(`${url}/${created.body.id + 1000}`, { token: tokens.reporter })).status).toBe(404);
    // Another project's window is not found through this one.
    expect(
      (await other.api.get(`${windowsOf(other.id)}/${created.body.id}`, { token: other.tokens.reporter }))
        .status,
    ).toBe(404);

    // A future window over one integration, made by a Maintainer.
    const future = await api.post(url, {
      token: tokens.maintainer,
      body: {
        integration_id: mine.id,
        starts_at: later(HOUR),
        ends_at: later(3 * HOUR),
        comment: 'router swap',
      },
    });
    expect(future.status).toBe(201);
    expect(future.body).toMatchObject({
      integration_id: mine.id,
      state: 'pending',
      created_by: { username: 'maintainer-mp' },
    });
    const ids = async (state?: string) =>
      (await api.get(state ? `${url}?state=${state}` : url, { token: tokens.reporter })).body.map(
        (x: { id: number }) => x.id,
      );
    // The latest start first.
    expect(await ids()).toEqual([future.body.id, created.body.id]);
    expect(await ids('active')).toEqual([created.body.id]);
    expect(await ids('pending')).toEqual([future.body.id]);
    expect(await ids('expired')).toEqual([]);
    expect((await api.get(`${url}?state=soon`, { token: tokens.reporter })).status).toBe(400);

    // Changes: Reporters may not; a bad change changes nothing; an earlier end shortens it; scope can change.
    const futureUrl = `${url}/${future.body.id}`;
    expect((await api.put(futureUrl, { token: tokens.reporter, body: { comment: 'x' } })).status).toBe(403);
    expect((await api.delete(futureUrl, { token: tokens.reporter })).status).toBe(403);
    for (const b of [
      { ends_at: later(HOUR / 2) },
      { integration_id: theirs.id },
      { comment: '' },
      { starts_at: 'never' },
    ])
      expect((await api.put(futureUrl, { token: tokens.developer, body: b })).status, JSON.stringify(b)).toBe(
        400,
      );
    expect((await api.get(futureUrl, { token: tokens.reporter })).body).toEqual(future.body);
    const shorter = later(2 * HOUR);
    const changed = await api.put(futureUrl, {
      token: tokens.developer,
      body: { ends_at: shorter, integration_id: null, comment: 'whole project' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      ends_at: shorter,
      integration_id: null,
      comment: 'whole project',
      state: 'pending',
    });

    // DELETE: a window that has not started is deleted (PagerDuty's rule) ...
    expect((await api.delete(futureUrl, { token: tokens.developer })).status).toBe(204);
    expect((await api.get(futureUrl, { token: tokens.reporter })).status).toBe(404);
    // ... an active one ends now and stays listed as expired; again, nothing changes.
    const ended = await api.delete(one, { token: tokens.developer });
    expect(ended.status).toBe(200);
    expect(ended.body.state).toBe('expired');
    expect(ended.body.starts_at).toBe(created.body.starts_at);
    expect(new Date(ended.body.ends_at).getTime()).toBeLessThanOrEqual(s.clock.now().getTime());
    const again = await api.delete(one, { token: tokens.developer });
    expect(again.body).toEqual(ended.body);
    expect(await ids('expired')).toEqual([created.body.id]);
    // An ended window cannot change.
    expect((await api.put(one, { token: tokens.developer, body: { ends_at: later(HOUR) } })).status).toBe(
      400,
    );
    // Pagination and v5.
    await api.post(url, { token: tokens.developer, body: { ends_at: later(HOUR), comment: 'second' } });
    const page = await api.get(`${url}?per_page=1&page=2`, { token: tokens.reporter });
    expect(page.headers.get('x-total')).toBe('2');
    expect(page.body.map((x: { id: number }) => x.id)).toEqual([created.body.id]);
    expect((await api.get(one.replace('/api/v4/', '/api/v5/'), { token: tokens.reporter })).body.state).toBe(
      'expired',
    );
  });

  it('a future window silences nothing before it starts; active, it holds pages, e-mails and hooks, released once at its end', async () => {
    const p = await loudProject('mw-fx', 'fx');
    const { api, id, tokens } = p;
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const send = (title: string) =>
      notify(integration.url, integration.authorization_key, { title, fingerprint: title });
    const window = await api.post(windowsOf(id), {
      token: tokens.developer,
      body: { starts_at: later(HOUR), ends_at: later(2 * HOUR), comment: 'planned upgrade' },
    });
    expect(window.status).toBe(201);
    expect(window.body.state).toBe('pending');

    // Before it starts: everything goes out as usual.
    expect((await send('before')).status).toBe(200);
    await until(async () => {
      await drain();
      return (
        p.pages('oncall', 'before').length === 1 &&
        p.triggered('before').length === 1 &&
        p.hooked('before').length === 1
      );
    }, 'the alert before the window paged, e-mailed and hooked');
    expect((await p.alertByTitle('before')).silenced_by).toEqual([]);
    s.clock.advance(61_000);
    await until(async () => {
      await drain();
      return p.pages('reporter', 'before').length === 1;
    }, 'the second page before the window');

    // The window starts: a new alert is stored, counted and shows the window, but pages, e-mails and calls no one.
    s.clock.advance(HOUR);
    expect((await api.get(`${windowsOf(id)}/${window.body.id}`, { token: tokens.reporter })).body.state).toBe(
      'active',
    );
    expect((await send('during')).status).toBe(200);
    await drain();
    const during = await p.alertByTitle('during');
    expect(during).toMatchObject({
      status: 'triggered',
      silenced_by: [
        {
          type: 'maintenance_window',
          id: window.body.id,
          integration_id: null,
          ends_at: window.body.ends_at,
        },
      ],
    });
    // The window covers every alert of the project while active, the earlier one too.
    expect((await p.alertByTitle('before')).silenced_by).toEqual([
      { type: 'maintenance_window', id: window.body.id, integration_id: null, ends_at: window.body.ends_at },
    ]);
    expect((await api.get(`${p.alertsUrl}/counts`, { token: tokens.reporter })).body.triggered).toBe(2);
    s.clock.advance(61_000);
    await drain();
    expect(p.pages('oncall', 'during')).toHaveLength(0);
    expect(p.pages('reporter', 'during')).toHaveLength(0);
    expect(p.triggered('during')).toHaveLength(0);
    expect(p.hooked('during')).toHaveLength(0);

    // The window ends with the alert still firing: its escalation starts and its e-mail and hook go out, once.
    s.clock.advance(HOUR);
    await until(async () => {
      await drain();
      return (
        p.pages('oncall', 'during').length === 1 &&
        p.pages('reporter', 'during').length === 1 &&
        p.triggered('during').length === 1 &&
        p.hooked('during').length === 1
      );
    }, 'the held page, e-mail and hook of the alert after the window');
    expect((await p.alertByTitle('during')).silenced_by).toEqual([]);
    // Nothing goes out twice: more work, and another change announced, send nothing again.
    await s.server.ctx.silences.announce(id);
    s.clock.advance(HOUR);
    await drain();
    await drain();
    expect(p.triggered('during')).toHaveLength(1);
    expect(p.hooked('during')).toHaveLength(1);
    expect(p.pages('oncall', 'during')).toHaveLength(1);
    expect(p.pages('reporter', 'during')).toHaveLength(1);
  });

  it('a window over one integration holds only its alerts; ended early, it releases those still firing only', async () => {
    const p = await loudProject('mw-int', 'in');
    const { api, id, tokens } = p;
    const quiet = await createIntegration(api, s.rootToken, id, { name: 'quiet', type: 'http' });
    const loud = await createIntegration(api, s.rootToken, id, { name: 'loud', type: 'http' });
    const via = (i: typeof quiet, title: string) =>
      notify(i.url, i.authorization_key, { title, fingerprint: title });
    const window = await api.post(windowsOf(id), {
      token: tokens.developer,
      body: { integration_id: quiet.id, ends_at: later(HOUR), comment: 'quiet is being moved' },
    });
    expect(window.status).toBe(201);

    for (const t of ['q-firing', 'q-resolved', 'q-acked']) expect((await via(quiet, t)).status).toBe(200);
    expect((await via(loud, 'l-firing')).status).toBe(200);
    await until(async () => {
      await drain();
      return (
        p.pages('oncall', 'l-firing').length === 1 &&
        p.triggered('l-firing').length === 1 &&
        p.hooked('l-firing').length === 1
      );
    }, 'the other integration’s alert paged, e-mailed and hooked');
    for (const t of ['q-firing', 'q-resolved', 'q-acked']) {
      expect(p.pages('oncall', t), t).toHaveLength(0);
      expect(p.triggered(t), t).toHaveLength(0);
      expect(p.hooked(t), t).toHaveLength(0);
      expect((await p.alertByTitle(t)).silenced_by, t).toEqual([
        {
          type: 'maintenance_window',
          id: window.body.id,
          integration_id: quiet.id,
          ends_at: window.body.ends_at,
        },
      ]);
    }
    expect((await p.alertByTitle('l-firing')).silenced_by).toEqual([]);
    await p.setStatus((await p.alertByTitle('q-resolved')).iid, 'resolved');
    await p.setStatus((await p.alertByTitle('q-acked')).iid, 'acknowledged');
    await drain();

    // Ended early: what still fires is released now, not at the planned end.
    const ended = await api.delete(`${windowsOf(id)}/${window.body.id}`, { token: tokens.developer });
    expect(ended.status).toBe(200);
    await until(async () => {
      await drain();
      return (
        p.pages('oncall', 'q-firing').length === 1 &&
        p.triggered('q-firing').length === 1 &&
        p.hooked('q-firing').length === 1
      );
    }, 'the held page, e-mail and hook of the still-firing alert');
    s.clock.advance(61_000);
    await until(async () => {
      await drain();
      return p.pages('reporter', 'q-firing').length === 1;
    }, 'the second rule of the still-firing alert');
    // The resolved and the acknowledged alerts were not told about, then or at the planned end.
    s.clock.advance(HOUR);
    await drain();
    for (const t of ['q-resolved', 'q-acked']) {
      expect(p.pages('oncall', t), t).toHaveLength(0);
      expect(p.triggered(t), t).toHaveLength(0);
      expect(p.hooked(t), t).toHaveLength(0);
    }
    expect(p.triggered('q-firing')).toHaveLength(1);
    expect(p.hooked('q-firing')).toHaveLength(1);
  });

  it('a silence’s held e-mail and hook go out once when it ends with the alert still firing', async () => {
    const p = await loudProject('mw-sil', 'si');
    const { api, id, tokens } = p;
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const silence = await api.post(silencesOf(id), {
      token: tokens.developer,
      body: { matchers: [{ name: 'title', value: 'hushed' }], ends_at: later(HOUR), comment: 'known' },
    });
    expect(silence.status).toBe(201);
    expect((await notify(integration.url, integration.authorization_key, { title: 'hushed' })).status).toBe(
      200,
    );
    await drain();
    expect(p.triggered('hushed')).toHaveLength(0);
    expect(p.hooked('hushed')).toHaveLength(0);
    expect((await p.alertByTitle('hushed')).silenced_by).toEqual([silence.body.id]);
    s.clock.advance(HOUR);
    await until(async () => {
      await drain();
      return (
        p.triggered('hushed').length === 1 &&
        p.hooked('hushed').length === 1 &&
        p.pages('oncall', 'hushed').length === 1
      );
    }, 'the e-mail, hook and page held by the silence');
    await s.server.ctx.silences.announce(id);
    await drain();
    expect(p.triggered('hushed')).toHaveLength(1);
    expect(p.hooked('hushed')).toHaveLength(1);
  });
});
