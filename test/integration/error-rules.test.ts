import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

/** A Sentry event of one error type (one error per `type`). */
function event(type: string) {
  return {
    event_id: randomUUID().replace(/-/g, ''),
    timestamp: Date.now() / 1000,
    platform: 'node',
    exception: {
      values: [{ type, value: 'it broke', stacktrace: { frames: [{ filename: 'a.js', function: 'f' }] } }],
    },
  };
}

describe.each(await databases())('error notification rules (%s)', (database) => {
  let s: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>>;
  let n = 0;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    receiver = await startHookReceiver();
    s = await startTestServer({ database, env: { SVC_SMTP_URL: smtp.url, SVC_OFFERING: 'hosted' } });
    await http(s.url).put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await smtp?.close();
    await receiver?.close();
  });

  /** A project with error tracking on, a Developer and a Maintainer, and a hook for error events. */
  async function project() {
    const api = http(s.url);
    const i = ++n;
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `rules-${i}` } });
    const id = p.body.id as number;
    await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    const key = (await api.get(`/api/v4/projects/${id}/error_tracking/client_keys`, { token: s.rootToken }))
      .body[0].public_key as string;
    const users: Record<string, { id: number; email: string; token: string }> = {};
    for (const [role, level] of [
      ['developer', 30],
      ['maintainer', 40],
    ] as const) {
      const email = `${role}-r${i}@example.com`;
      const u = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: { username: `${role}-r${i}`, name: role, email, password: 'password-123' },
      });
      await api.post(`/api/v4/projects/${id}/members`, {
        token: s.rootToken,
        body: { user_id: u.body.id, access_level: level },
      });
      const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      });
      users[role] = { id: u.body.id, email, token: t.body.token };
    }
    const hook = await api.post(`/api/v4/projects/${id}/hooks`, {
      token: users.maintainer!.token,
      body: { url: `${receiver.url}?p=${id}`, token: 'hook-token', alert_events: false },
    });
    expect(hook.status).toBe(201);
    const store = async (type: string, extra: Record<string, unknown> = {}) => {
      const r = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${id}/store/?sentry_key=${key}`, {
        method: 'POST',
        // Stamped by the server's clock, which the tests move forward.
        body: JSON.stringify({ ...event(type), timestamp: s.clock.now().getTime() / 1000, ...extra }),
      });
      expect(r.status).toBe(200);
    };
    const rules = `/api/v4/projects/${id}/error_tracking/notification_rules`;
    const hooksFor = (eventType?: string) =>
      receiver.received.filter(
        (r) => r.path === `/hook?p=${id}` && (eventType === undefined || r.body.event_type === eventType),
      );
    const mailsTo = (who: string) => smtp.messages.filter((m) => m.to.includes(users[who]!.email));
    return { api, id, users, store, rules, hooksFor, mailsTo };
  }

  it('rules need Maintainer; recipients must be members; bad input changes nothing', async () => {
    const { api, users, rules } = await project();
    const dev = users.developer!;
    const maint = users.maintainer!;
    expect((await api.get(rules, { token: dev.token })).status).toBe(403);
    expect((await api.post(rules, { token: dev.token, body: { trigger: 'new' } })).status).toBe(403);
    expect((await api.post(rules, { token: maint.token, body: {} })).body).toEqual({
      error: 'trigger is missing',
    });
    expect((await api.post(rules, { token: maint.token, body: { trigger: 'often' } })).body).toEqual({
      error: 'trigger does not have a valid value',
    });
    expect(
      (await api.post(rules, { token: maint.token, body: { trigger: 'threshold', threshold_count: 5 } }))
        .body,
    ).toEqual({ error: 'threshold_minutes must be an integer from 1 to 10080' });
    const stranger = await api.post(rules, {
      token: maint.token,
      body: { trigger: 'new', recipient_ids: [dev.id, 999_999] },
    });
    expect(stranger.status).toBe(422);
    expect(stranger.body).toEqual({ message: { recipient_ids: ['are not members of the project: 999999'] } });
    expect((await api.get(rules, { token: maint.token })).body).toEqual([]);

    const created = await api.post(rules, {
      token: maint.token,
      body: {
        trigger: 'threshold',
        threshold_count: 3,
        threshold_minutes: 10,
        recipient_ids: [dev.id],
        webhook: true,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      trigger: 'threshold',
      threshold_count: 3,
      threshold_minutes: 10,
      recipient_ids: [dev.id],
      webhook: true,
    });
    const one = `${rules}/${created.body.id}`;
    const changed = await api.put(one, { token: maint.token, body: { trigger: 'new' } });
    expect(changed.body).toMatchObject({ trigger: 'new', threshold_count: null, threshold_minutes: null });
    expect((await api.delete(one, { token: dev.token })).status).toBe(403);
    expect((await api.delete(one, { token: maint.token })).status).toBe(204);
    expect((await api.get(one, { token: maint.token })).status).toBe(404);
  });

  it('a new error e-mails the chosen members and calls the hooks, once', async () => {
    const { api, id, users, store, rules, hooksFor, mailsTo } = await project();
    await api.post(rules, {
      token: users.maintainer!.token,
      body: { trigger: 'new', recipient_ids: [users.developer!.id], webhook: true },
    });
    await store('TypeError');
    await store('TypeError');
    await s.server.ctx.jobs.drain();
    await until(
      () => mailsTo('developer').length === 1 && hooksFor().length === 1,
      'new error notifications',
    );
    expect(mailsTo('maintainer')).toHaveLength(0);
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    const mail = mailsTo('developer')[0]!;
    expect(mail.subject).toContain('New error: TypeError: it broke');
    expect(mail.text).toContain(`${s.url}/-/ui/projects/${id}/errors/${error.id}`);
    const hook = hooksFor()[0]!;
    expect(hook.headers['x-svc-token']).toBe('hook-token');
    expect(hook.headers['x-svc-event']).toBe('Error Hook');
    // The payload shows the error as it stands when the delivery is built, which may be after the first event
    // or after both (the worker is woken at each commit): its count and last_seen are one or the other.
    expect(hook.body).toEqual({
      object_kind: 'error',
      event_type: 'new',
      project: expect.objectContaining({ id }),
      object_attributes: { ...error, count: expect.any(Number), last_seen: expect.any(String) },
      url: `${s.url}/-/ui/projects/${id}/errors/${error.id}`,
    });
    expect([1, 2]).toContain(hook.body.object_attributes.count);
    // The second event of the same error is not new.
    await store('TypeError');
    await s.server.ctx.jobs.drain();
    expect(mailsTo('developer')).toHaveLength(1);
    expect(hooksFor()).toHaveLength(1);
  });

  it('resolved in a release: an event of an older release notifies nobody, one of a newer release is a regression', async () => {
    const { api, id, users, store, rules, hooksFor, mailsTo } = await project();
    await store('RangeError', { release: '1.0' });
    s.clock.advance(1000);
    await store('RangeError', { release: '1.1' });
    s.clock.advance(1000);
    await api.post(rules, {
      token: users.maintainer!.token,
      body: { trigger: 'regression', recipient_ids: [users.maintainer!.id], webhook: true },
    });
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    const url = `/api/v4/projects/${id}/error_tracking/errors/${error.id}`;
    expect(
      (await api.put(url, { token: users.developer!.token, body: { resolved_in_release: '1.1' } })).status,
    ).toBe(200);
    await store('RangeError', { release: '1.0' });
    await s.server.ctx.jobs.drain();
    // The hook heard of the new error (hooks need no rule for that), and of nothing since.
    expect(mailsTo('maintainer')).toHaveLength(0);
    expect(hooksFor().map((h) => h.body.event_type)).toEqual(['new']);
    s.clock.advance(1000);
    await store('RangeError', { release: '1.2' });
    await s.server.ctx.jobs.drain();
    await until(() => mailsTo('maintainer').length === 1 && hooksFor().length === 2, 'regression');
    expect(hooksFor()[1]!.body).toMatchObject({ object_kind: 'error', event_type: 'regression' });
  });

  it('a regression (a resolved error seen again) notifies each time it regresses', async () => {
    const { api, id, users, store, rules, hooksFor, mailsTo } = await project();
    await store('RangeError');
    await api.post(rules, {
      token: users.maintainer!.token,
      body: { trigger: 'regression', recipient_ids: [users.maintainer!.id], webhook: true },
    });
    await store('RangeError'); // unresolved: no regression
    await s.server.ctx.jobs.drain();
    expect(mailsTo('maintainer')).toHaveLength(0);
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    const resolve = () =>
      api.put(`/api/v4/projects/${id}/error_tracking/errors/${error.id}`, {
        token: users.developer!.token,
        body: { status: 'resolved' },
      });
    expect((await resolve()).status).toBe(200);
    s.clock.advance(1000);
    await store('RangeError');
    await store('RangeError'); // already unresolved again: the same regression
    await s.server.ctx.jobs.drain();
    // Hooks hear of the new error (with no rule for it) and of the regression: one delivery each.
    await until(
      () => mailsTo('maintainer').length === 1 && hooksFor('regression').length === 1,
      'regression',
    );
    expect(mailsTo('maintainer')[0]!.subject).toContain('Regression');
    expect(hooksFor().map((h) => h.body.event_type)).toEqual(['new', 'regression']);
    expect(hooksFor('regression')[0]!.body).toMatchObject({ object_kind: 'error', event_type: 'regression' });
    await resolve();
    // Past the rule's action interval (30 minutes by default): see the interval's own test.
    s.clock.advance(31 * 60_000);
    await store('RangeError');
    await s.server.ctx.jobs.drain();
    await until(
      () => mailsTo('maintainer').length === 2 && hooksFor('regression').length === 2,
      'second regression',
    );
  });

  it('N events in M minutes notifies once per window', async () => {
    const { api, users, store, rules, hooksFor, mailsTo } = await project();
    await api.post(rules, {
      token: users.maintainer!.token,
      body: {
        trigger: 'threshold',
        threshold_count: 3,
        threshold_minutes: 5,
        recipient_ids: [users.developer!.id],
      },
    });
    await store('SyntaxError');
    await store('SyntaxError');
    await s.server.ctx.jobs.drain();
    expect(mailsTo('developer')).toHaveLength(0);
    await store('SyntaxError');
    await s.server.ctx.jobs.drain();
    await until(() => mailsTo('developer').length === 1, 'threshold mail');
    expect(mailsTo('developer')[0]!.subject).toContain('Error passed 3 events in 5 minutes');
    // The rule has webhook off: the threshold reaches no hook. The hook heard of the new error itself, which
    // needs no rule.
    await until(() => hooksFor('new').length === 1, 'the new error hook');
    expect(hooksFor('threshold')).toHaveLength(0);
    await store('SyntaxError');
    await s.server.ctx.jobs.drain();
    expect(mailsTo('developer')).toHaveLength(1);
    // Another error of the project has its own count.
    await store('EvalError');
    await s.server.ctx.jobs.drain();
    expect(mailsTo('developer')).toHaveLength(1);
    await until(() => hooksFor('new').length === 2, 'the second new error hook');
    expect(hooksFor('threshold')).toHaveLength(0);
  });

  it('a threshold rule with webhook on calls the hooks with the threshold', async () => {
    const { api, users, store, rules, hooksFor } = await project();
    await api.post(rules, {
      token: users.maintainer!.token,
      body: { trigger: 'threshold', threshold_count: 2, threshold_minutes: 5, webhook: true },
    });
    await store('URIError');
    await store('URIError');
    await s.server.ctx.jobs.drain();
    await until(() => hooksFor('threshold').length === 1, 'threshold hook');
    expect(hooksFor('threshold')[0]!.body).toMatchObject({
      object_kind: 'error',
      threshold: { count: 2, minutes: 5, events: 2 },
    });
  });

  it('with no rule at all, a hook with error_tracking_events hears of every new error and regression, once each', async () => {
    const { api, id, users, store, hooksFor, mailsTo } = await project();
    // A second hook with the flag off hears nothing.
    const off = await api.post(`/api/v4/projects/${id}/hooks`, {
      token: users.maintainer!.token,
      body: { url: `${receiver.url}?off=${id}`, error_tracking_events: false, alert_events: false },
    });
    expect(off.body.error_tracking_events).toBe(false);
    await store('NoRuleError');
    await store('NoRuleError');
    await s.server.ctx.jobs.drain();
    await until(() => hooksFor('new').length === 1, 'new error hook');
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    expect(hooksFor('new')[0]!.body).toEqual({
      object_kind: 'error',
      event_type: 'new',
      project: expect.objectContaining({ id }),
      object_attributes: { ...error, count: expect.any(Number), last_seen: expect.any(String) },
      url: `${s.url}/-/ui/projects/${id}/errors/${error.id}`,
    });
    const regress = async () => {
      await api.put(`/api/v4/projects/${id}/error_tracking/errors/${error.id}`, {
        token: users.developer!.token,
        body: { status: 'resolved' },
      });
      s.clock.advance(1000);
      await store('NoRuleError');
      await store('NoRuleError');
      await s.server.ctx.jobs.drain();
    };
    await regress();
    await until(() => hooksFor('regression').length === 1, 'first regression');
    // No rule, so no action interval: each regression (which needs someone to resolve the error) is delivered.
    await regress();
    await until(() => hooksFor('regression').length === 2, 'second regression');
    await s.server.ctx.jobs.drain();
    expect(hooksFor()).toHaveLength(3);
    expect(receiver.received.filter((r) => r.path === `/hook?off=${id}`)).toHaveLength(0);
    expect(smtpCount(mailsTo)).toBe(0);
  });

  /** Adds a user to the project at `level`, with a token. */
  async function member(api: ReturnType<typeof http>, id: number, name: string, level: number) {
    const email = `${name}@example.com`;
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: name, name, email, password: 'password-123' },
    });
    await api.post(`/api/v4/projects/${id}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: level },
    });
    return { id: u.body.id as number, email };
  }

  it('checks each recipient when the e-mail is sent: a Guest and a removed member are skipped with the reason', async () => {
    const { api, id, users, store, rules, mailsTo } = await project();
    const guest = await member(api, id, `guest-r${n}`, 10);
    const leaver = await member(api, id, `leaver-r${n}`, 30);
    const blocked = await member(api, id, `blocked-r${n}`, 30);
    const created = await api.post(rules, {
      token: users.maintainer!.token,
      body: { trigger: 'new', recipient_ids: [users.developer!.id, guest.id, leaver.id, blocked.id] },
    });
    expect(created.status).toBe(201);
    // A Guest may not read errors at all.
    expect(
      (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken })).status,
    ).toBe(200);
    expect(
      (await api.delete(`/api/v4/projects/${id}/members/${leaver.id}`, { token: s.rootToken })).status,
    ).toBe(204);
    expect((await api.post(`/api/v4/users/${blocked.id}/block`, { token: s.rootToken })).status).toBe(201);
    await store('LeakError');
    await s.server.ctx.jobs.drain();
    await until(() => mailsTo('developer').length === 1, 'the Developer is e-mailed');
    const to = (email: string) => smtp.messages.filter((m) => m.to.includes(email));
    expect(to(guest.email)).toHaveLength(0);
    expect(to(leaver.email)).toHaveLength(0);
    expect(to(blocked.email)).toHaveLength(0);
    const skipped = await api.get(`/api/v4/admin/notifications/emails?status=skipped&project_id=${id}`, {
      token: s.rootToken,
    });
    expect(skipped.status).toBe(200);
    const reasons = Object.fromEntries(
      (skipped.body as { recipient: string; status: string; reason: string }[]).map((e) => [
        e.recipient,
        e.reason,
      ]),
    );
    expect(reasons).toEqual({
      [guest.email]: expect.stringContaining('Reporter'),
      [leaver.email]: expect.stringContaining('Reporter'),
    });
  });

  it('one e-mail per recipient and event, however many rules fire; then at most one per action interval', async () => {
    const { api, id, users, store, rules, mailsTo, hooksFor } = await project();
    const token = users.maintainer!.token;
    for (let i = 0; i < 20; i++)
      expect(
        (await api.post(rules, { token, body: { trigger: 'new', recipient_ids: [users.developer!.id] } }))
          .status,
      ).toBe(201);
    await store('ManyRulesError');
    await s.server.ctx.jobs.drain();
    await until(() => mailsTo('developer').length === 1, 'one e-mail');
    await s.server.ctx.jobs.drain();
    expect(mailsTo('developer')).toHaveLength(1);

    // The action interval: 30 minutes unless the rule says otherwise.
    const rule = await api.post(rules, {
      token,
      body: { trigger: 'regression', recipient_ids: [users.maintainer!.id] },
    });
    expect(rule.body.action_interval_minutes).toBe(30);
    expect(
      (await api.post(rules, { token, body: { trigger: 'new', action_interval_minutes: 0 } })).body,
    ).toEqual({ error: 'action_interval_minutes must be an integer from 1 to 10080' });
    const [error] = (await api.get(`/api/v4/projects/${id}/error_tracking/errors`, { token: s.rootToken }))
      .body;
    const regress = async () => {
      await api.put(`/api/v4/projects/${id}/error_tracking/errors/${error.id}`, {
        token: users.developer!.token,
        body: { status: 'resolved' },
      });
      s.clock.advance(1000);
      await store('ManyRulesError');
      await s.server.ctx.jobs.drain();
    };
    await regress();
    await until(() => mailsTo('maintainer').length === 1, 'first regression');
    await regress(); // within 30 minutes: no e-mail
    expect(mailsTo('maintainer')).toHaveLength(1);
    s.clock.advance(30 * 60_000);
    await regress();
    await until(() => mailsTo('maintainer').length === 2, 'after the interval');
    const changed = await api.put(`${rules}/${rule.body.id}`, {
      token,
      body: { action_interval_minutes: 5 },
    });
    expect(changed.body).toMatchObject({ trigger: 'regression', action_interval_minutes: 5 });
    s.clock.advance(5 * 60_000);
    await regress();
    await until(() => mailsTo('maintainer').length === 3, 'after the shorter interval');
    // The interval throttles the rule's e-mails, not the hooks: they heard of the new error and all four
    // regressions, the one inside the interval included.
    await until(() => hooksFor('regression').length === 4, 'every regression to the hook');
    expect(hooksFor('new')).toHaveLength(1);
  });

  const smtpCount = (mailsTo: (who: string) => unknown[]) =>
    mailsTo('developer').length + mailsTo('maintainer').length;

  it('a project has at most 100 rules', async () => {
    const { api, rules, users } = await project();
    const token = users.maintainer!.token;
    for (let i = 0; i < 100; i++)
      expect((await api.post(rules, { token, body: { trigger: 'new' } })).status).toBe(201);
    const over = await api.post(rules, { token, body: { trigger: 'regression' } });
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ message: 'Maximum number of error notification rules (100) exceeded' });
    expect((await api.get(`${rules}?per_page=100`, { token })).body).toHaveLength(100);
  });
});
