import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

const ROLES = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Role = keyof typeof ROLES;

/** A project with one user per role; their tokens and e-mail addresses. */
async function setup(s: TestServer, n: string) {
  const api = http(s.url);
  const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `Notify ${n}` } });
  expect(p.status).toBe(201);
  const tokens = {} as Record<Role, string>;
  const emails = {} as Record<Role, string>;
  const ids = {} as Record<Role, number>;
  for (const [role, level] of Object.entries(ROLES) as [Role, number][]) {
    const email = `${role}-${n}@example.com`;
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: `${role}-${n}`, name: role, email, password: 'password-123' },
    });
    expect(u.status).toBe(201);
    await api.post(`/api/v4/projects/${p.body.id}/members`, {
      token: s.rootToken,
      body: { user_id: u.body.id, access_level: level },
    });
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    tokens[role] = t.body.token;
    emails[role] = email;
    ids[role] = u.body.id;
  }
  const integration = await createIntegration(api, s.rootToken, p.body.id, { name: 'http', type: 'http' });
  const send = (body: unknown) => notify(integration.url, integration.authorization_key, body);
  return { api, projectId: p.body.id as number, tokens, emails, ids, send };
}

const drain = (s: TestServer) => s.server.ctx.jobs.drain();

describe.each(await databases())('alert e-mail and project webhooks (%s)', (database) => {
  let s: TestServer;
  let bare: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    [s, bare] = await Promise.all([
      startTestServer({
        database,
        env: { SVC_SMTP_URL: smtp.url, SVC_EMAIL_FROM: 'svc alerts <alerts@svc.test>' },
      }),
      startTestServer({ database }),
    ]);
    // Hook receivers listen on loopback: the admin allows local requests (off by default: the SSRF guard).
    for (const srv of [s, bare]) {
      const r = await http(srv.url).put('/api/v4/application/settings', {
        token: srv.rootToken,
        body: { allow_local_requests_from_web_hooks_and_services: true },
      });
      expect(r.status).toBe(200);
    }
  });
  afterAll(async () => {
    await s?.stop();
    await bare?.stop();
    await smtp?.close();
  });

  const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

  it('send_email: one e-mail per new alert to Owners and Maintainers, none for repeats, one on recovery', async () => {
    const { api, projectId, tokens, emails, send } = await setup(s, 'mail');
    const settings = `/api/v4/projects/${projectId}/alert_management/settings`;
    const before = await api.get(settings, { token: tokens.maintainer });
    expect(before.body).toEqual({
      create_incident: false,
      auto_close_incident: true,
      send_email: false,
      auto_resolve_alerts: true,
    });
    expect((await api.put(settings, { token: tokens.developer, body: { send_email: true } })).status).toBe(
      403,
    );
    // Off (and no webhook): a new alert e-mails nobody, and costs no notification job at all.
    const jobs = s.server.ctx.jobs;
    const enqueue = jobs.enqueue;
    const kinds: string[] = [];
    jobs.enqueue = (kind, ...rest) => {
      kinds.push(kind);
      return enqueue.call(jobs, kind, ...rest);
    };
    try {
      expect((await send({ title: 'quiet', fingerprint: 'q' })).status).toBe(200);
    } finally {
      jobs.enqueue = enqueue;
    }
    expect(kinds).toEqual([]);
    await drain(s);
    expect(mailsTo(emails.maintainer)).toHaveLength(0);

    const put = await api.put(settings, { token: tokens.maintainer, body: { send_email: true } });
    expect(put.body).toEqual({
      create_incident: false,
      auto_close_incident: true,
      send_email: true,
      auto_resolve_alerts: true,
    });
    expect((await api.get(settings, { token: tokens.maintainer })).body.send_email).toBe(true);

    expect((await send({ title: 'Disk <full> on db-1', fingerprint: 'disk', severity: 'high' })).status).toBe(
      200,
    );
    await drain(s);
    await until(() => mailsTo(emails.owner).length === 1 && mailsTo(emails.maintainer).length === 1, 'mails');
    for (const role of ['guest', 'reporter', 'developer'] as const)
      expect(mailsTo(emails[role])).toHaveLength(0);
    const mail = mailsTo(emails.maintainer)[0]!;
    expect(mail.from).toBe('alerts@svc.test');
    expect(mail.subject).toContain('Alert triggered: Disk <full> on db-1');
    const alerts = await api.get(`/api/v4/projects/${projectId}/alert_management/alerts?search=Disk`, {
      token: tokens.maintainer,
    });
    const link = `${s.url}/-/ui/projects/${projectId}/alerts/${alerts.body[0].iid}`;
    // A text part and an HTML part, both with the link to the alert's page; the title is escaped in HTML.
    expect(mail.text).toMatch(/Content-Type: text\/plain/);
    expect(mail.text).toMatch(/Content-Type: text\/html/);
    expect(mail.text).toContain(`View the alert: ${link}`);
    expect(mail.text).toContain(`<a href="${link}">`);
    expect(mail.text).toContain('Disk &lt;full&gt; on db-1');

    // A repeat of the open alert: no new e-mail.
    expect((await send({ title: 'Disk <full> on db-1', fingerprint: 'disk' })).status).toBe(200);
    await drain(s);
    expect(mailsTo(emails.maintainer)).toHaveLength(1);

    // Recovery of the paged alert: one more each.
    expect((await send({ fingerprint: 'disk', end_time: new Date().toISOString() })).status).toBe(200);
    await drain(s);
    await until(
      () => mailsTo(emails.maintainer).length === 2 && mailsTo(emails.owner).length === 2,
      'recovery',
    );
    expect(mailsTo(emails.maintainer)[1]!.subject).toContain('Alert resolved: Disk <full> on db-1');
    // The alert that was not e-mailed about (send_email was off) recovers silently.
    expect((await send({ fingerprint: 'q', end_time: new Date().toISOString() })).status).toBe(200);
    await drain(s);
    expect(mailsTo(emails.maintainer)).toHaveLength(2);

    // The admin sees every e-mail as sent (the Owner, the Maintainer and root, whose namespace holds the project,
    // twice each); nobody else may look.
    const list = await api.get(`/api/v4/admin/notifications/emails?project_id=${projectId}`, {
      token: s.rootToken,
    });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(6);
    expect(new Set(list.body.map((e: { recipient: string }) => e.recipient))).toEqual(
      new Set([emails.owner, emails.maintainer, 'admin@example.com']),
    );
    expect(list.body.every((e: { status: string }) => e.status === 'sent')).toBe(true);
    expect((await api.get('/api/v4/admin/notifications/emails', { token: tokens.owner })).status).toBe(403);
    expect((await api.get('/api/v4/admin/notifications/emails')).status).toBe(401);
  });

  it('without SMTP, e-mails are recorded as undeliverable and the admin sees why', async () => {
    const { api, projectId, tokens, send } = await setup(bare, 'nosmtp');
    await api.put(`/api/v4/projects/${projectId}/alert_management/settings`, {
      token: tokens.owner,
      body: { send_email: true },
    });
    expect((await send({ title: 'nobody hears this' })).status).toBe(200);
    await drain(bare);
    const list = await api.get(
      `/api/v4/admin/notifications/emails?project_id=${projectId}&status=undeliverable`,
      {
        token: bare.rootToken,
      },
    );
    expect(list.body).toHaveLength(3);
    expect(list.body[0].reason).toMatch(/SMTP is not configured: set SVC_SMTP_URL/);
    expect(list.body[0].sent_at).toBeNull();
  });

  it('project hooks: Maintainer manages them; the token is write-only; the SSRF guard refuses local URLs', async () => {
    const { api, projectId, tokens } = await setup(bare, 'hooks');
    const base = `/api/v4/projects/${projectId}/hooks`;
    for (const role of ['guest', 'reporter', 'developer'] as const) {
      expect((await api.get(base, { token: tokens[role] })).status, role).toBe(403);
      expect((await api.post(base, { token: tokens[role], body: { url: 'http://127.0.0.1/' } })).status).toBe(
        403,
      );
    }
    expect((await api.get(base)).status).toBe(404);
    const created = await api.post(base, {
      token: tokens.maintainer,
      body: {
        url: 'http://127.0.0.1:9/x',
        token: 'sekret',
        alert_events: true,
        error_tracking_events: false,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: 'http://127.0.0.1:9/x',
      name: '',
      description: '',
      project_id: projectId,
      // GitLab's event flags, with GitLab's defaults.
      push_events: true,
      push_events_branch_filter: null,
      branch_filter_strategy: 'wildcard',
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: false,
      issues_events: false,
      confidential_issues_events: false,
      note_events: false,
      confidential_note_events: null,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      deployment_events: false,
      feature_flag_events: false,
      releases_events: false,
      milestone_events: false,
      emoji_events: false,
      resource_access_token_events: false,
      resource_deploy_token_events: false,
      vulnerability_events: false,
      alert_events: true,
      error_tracking_events: false,
      enable_ssl_verification: true,
      alert_status: 'executable',
      disabled_until: null,
      disabled_reason: null,
      created_at: expect.any(String),
    });
    expect(JSON.stringify(created.body)).not.toContain('sekret');
    const hookUrl = `${base}/${created.body.id}`;
    expect(
      (await api.put(hookUrl, { token: tokens.developer, body: { url: 'http://x.test/' } })).status,
    ).toBe(403);
    expect((await api.delete(hookUrl, { token: tokens.developer })).status).toBe(403);
    const changed = await api.put(hookUrl, {
      token: tokens.owner,
      body: { name: 'pager', error_tracking_events: true },
    });
    expect(changed.body).toMatchObject({
      name: 'pager',
      error_tracking_events: true,
      url: 'http://127.0.0.1:9/x',
    });
    expect((await api.get(hookUrl, { token: tokens.maintainer })).body.name).toBe('pager');

    // Bad input: a 4xx and nothing stored.
    expect((await api.post(base, { token: tokens.maintainer, body: {} })).body).toEqual({
      error: 'url is missing',
    });
    const ftp = await api.post(base, { token: tokens.maintainer, body: { url: 'ftp://example.com/' } });
    expect(ftp.status).toBe(422);
    expect(ftp.body).toEqual({ message: { url: ['is blocked: Only allowed schemes are http, https'] } });
    expect((await api.post(base, { token: tokens.maintainer, body: { url: 'not a url' } })).status).toBe(422);
    expect((await api.post(base, { token: tokens.maintainer, body: { url: ['x'] } })).status).toBe(400);
    const long = await api.post(base, {
      token: tokens.maintainer,
      body: { url: `http://127.0.0.1/${'a'.repeat(100_000)}` },
    });
    expect(long.body).toEqual({ error: 'url is too long (maximum is 2048 characters)' });
    const badPut = await api.put(hookUrl, { token: tokens.maintainer, body: { url: 'gopher://x/' } });
    expect(badPut.status).toBe(422);
    expect((await api.get(base, { token: tokens.maintainer })).body).toHaveLength(1);

    // With local requests not allowed (the default), loopback, private and metadata addresses are refused.
    await api.put('/api/v4/application/settings', {
      token: bare.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: false },
    });
    try {
      for (const url of [
        'http://127.0.0.1:8080/',
        'http://169.254.169.254/latest',
        'http://[::1]/',
        'http://10.0.0.1/',
      ]) {
        const r = await api.post(base, { token: tokens.maintainer, body: { url } });
        expect(r.status, url).toBe(422);
        expect(r.body.message.url[0], url).toMatch(
          /is blocked: requests to the local network are not allowed/,
        );
      }
    } finally {
      await api.put('/api/v4/application/settings', {
        token: bare.rootToken,
        body: { allow_local_requests_from_web_hooks_and_services: true },
      });
    }
    expect((await api.delete(hookUrl, { token: tokens.maintainer })).status).toBe(204);
    expect((await api.get(hookUrl, { token: tokens.maintainer })).status).toBe(404);
    expect((await api.get(`${base}/99999`, { token: tokens.maintainer })).body).toEqual({
      message: '404 Hook Not Found',
    });
  });

  it('delivers alert events with the token header, the payload documented in docs/api.md, and records them', async () => {
    const receiver = await startHookReceiver();
    try {
      const { api, projectId, tokens, send } = await setup(bare, 'deliver');
      // An alert while nothing listens (the project's "nobody listens" is now cached): the hook added next still
      // gets the alert after it.
      expect((await send({ title: 'before any hook', fingerprint: 'early' })).status).toBe(200);
      const base = `/api/v4/projects/${projectId}/hooks`;
      const hook = await api.post(base, {
        token: tokens.maintainer,
        body: { url: receiver.url, token: 'tok-1' },
      });
      const quiet = await api.post(base, {
        token: tokens.maintainer,
        body: { url: `${receiver.url}?quiet`, alert_events: false },
      });
      expect(quiet.status).toBe(201);
      expect((await send({ title: 'CPU high', fingerprint: 'cpu', service: 'api' })).status).toBe(200);
      // Intake only enqueued: nothing is sent before the worker runs.
      await drain(bare);
      await until(() => receiver.received.length === 1, 'delivery');
      const got = receiver.received[0]!;
      expect(got.method).toBe('POST');
      expect(got.path).toBe('/hook');
      expect(got.headers['x-svc-token']).toBe('tok-1');
      expect(got.headers['x-svc-event']).toBe('Alert Hook');
      expect(got.headers['content-type']).toBe('application/json');
      const alert = (
        await api.get(`/api/v4/projects/${projectId}/alert_management/alerts`, { token: tokens.reporter })
      ).body[0];
      expect(got.body).toEqual({
        object_kind: 'alert',
        event_type: 'new',
        project: {
          id: projectId,
          name: 'Notify deliver',
          path_with_namespace: expect.stringMatching(/\/notify-deliver$/),
          web_url: expect.stringMatching(/\/notify-deliver$/),
        },
        object_attributes: alert,
        url: `${bare.url}/-/ui/projects/${projectId}/alerts/${alert.iid}`,
      });
      // A repeat: no event; the recovery: one `resolved` event.
      await send({ title: 'CPU high', fingerprint: 'cpu' });
      await send({ fingerprint: 'cpu', end_time: new Date().toISOString() });
      await drain(bare);
      await until(() => receiver.received.length === 2, 'resolved delivery');
      expect(receiver.received[1]!.body).toMatchObject({
        object_kind: 'alert',
        event_type: 'resolved',
        object_attributes: { iid: alert.iid, status: 'resolved' },
      });
      // Resolving through the API is a recovery too.
      await send({ title: 'Mem', fingerprint: 'mem' });
      await drain(bare);
      const mem = (
        await api.get(`/api/v4/projects/${projectId}/alert_management/alerts?search=Mem`, {
          token: tokens.reporter,
        })
      ).body[0];
      await api.put(`/api/v4/projects/${projectId}/alert_management/alerts/${mem.iid}`, {
        token: tokens.developer,
        body: { status: 'resolved' },
      });
      await drain(bare);
      await until(() => receiver.received.length === 4, 'API resolve delivery');
      expect(receiver.received.map((r) => r.body.event_type)).toEqual(['new', 'resolved', 'new', 'resolved']);

      const events = await api.get(`${base}/${hook.body.id}/events`, { token: tokens.maintainer });
      expect(events.status).toBe(200);
      expect(events.headers.get('x-total')).toBe('4');
      expect(events.body[0]).toMatchObject({
        trigger: 'alert_resolved',
        object_kind: 'alert',
        event_type: 'resolved',
        status: 'success',
        response_status: 200,
        error: null,
        attempts: 1,
      });
      expect(events.body[0].execution_duration).toEqual(expect.any(Number));
      expect((await api.get(`${base}/${quiet.body.id}/events`, { token: tokens.maintainer })).body).toEqual(
        [],
      );
      expect((await api.get(`${base}/${hook.body.id}/events`, { token: tokens.developer })).status).toBe(403);
    } finally {
      await receiver.close();
    }
  });

  it('retries a failing delivery with backoff, rests a failing hook longer each time, then disables it with the reason', async () => {
    const receiver = await startHookReceiver();
    try {
      const { api, projectId, tokens, send } = await setup(bare, 'retry');
      const base = `/api/v4/projects/${projectId}/hooks`;
      const hook = await api.post(base, { token: tokens.maintainer, body: { url: receiver.url } });
      const events = async () =>
        (await api.get(`${base}/${hook.body.id}/events`, { token: tokens.maintainer })).body;
      receiver.status = 500;
      await send({ title: 'flaky 1' });
      await drain(bare);
      expect(receiver.received).toHaveLength(1);
      expect((await events())[0]).toMatchObject({ status: 'pending', response_status: 500, attempts: 1 });
      expect((await events())[0].error).toBe('the receiver answered 500');
      // The retry waits for its backoff: nothing is sent before it.
      await drain(bare);
      expect(receiver.received).toHaveLength(1);
      bare.clock.advance(2_500);
      await drain(bare);
      expect(receiver.received).toHaveLength(2);
      // The receiver recovers: the next retry succeeds and the failure count starts over.
      receiver.status = 204;
      bare.clock.advance(4_500);
      await drain(bare);
      expect(receiver.received).toHaveLength(3);
      expect((await events())[0]).toMatchObject({ status: 'success', response_status: 204, attempts: 3 });

      // Failing: four failures in a row disable the hook for a minute (GitLab's temporary disabling).
      receiver.status = 503;
      await send({ title: 'flaky 2' });
      for (let i = 0; i < 4; i++) {
        await drain(bare);
        bare.clock.advance(10_000);
      }
      expect((await events())[0]).toMatchObject({ status: 'failed', attempts: 4 });
      const resting = await api.get(`${base}/${hook.body.id}`, { token: tokens.maintainer });
      expect(resting.body).toMatchObject({ alert_status: 'temporarily_disabled', disabled_reason: null });
      const until1 = Date.parse(resting.body.disabled_until);
      expect(until1 - bare.clock.now().getTime()).toBeGreaterThan(20_000);
      expect(until1 - bare.clock.now().getTime()).toBeLessThanOrEqual(60_000);
      // While it rests, events are not sent to it.
      const rested = receiver.received.length;
      await send({ title: 'while resting' });
      await drain(bare);
      expect(receiver.received).toHaveLength(rested);
      // After the minute it is tried again: one more failure rests it twice as long.
      bare.clock.advance(60_000);
      expect((await api.get(`${base}/${hook.body.id}`, { token: tokens.maintainer })).body.alert_status).toBe(
        'executable',
      );
      await send({ title: 'flaky 3' });
      await drain(bare);
      expect(receiver.received).toHaveLength(rested + 1);
      const longer = await api.get(`${base}/${hook.body.id}`, { token: tokens.maintainer });
      expect(longer.body.alert_status).toBe('temporarily_disabled');
      const until2 = Date.parse(longer.body.disabled_until) - bare.clock.now().getTime();
      expect(until2).toBeGreaterThan(110_000);
      expect(until2).toBeLessThanOrEqual(120_000);
      // At 40 failures in a row it is disabled for good, with the reason.
      await bare.server.ctx.db.kysely
        .updateTable('project_hooks')
        .set({ failures: 39, disabled_until: null })
        .where('id', '=', hook.body.id)
        .execute();
      await send({ title: 'flaky 4' });
      const disabled = await until(async () => {
        await drain(bare);
        const r = await api.get(`${base}/${hook.body.id}`, { token: tokens.maintainer });
        return r.body.alert_status === 'disabled' && r;
      }, 'the hook disabled for good');
      expect(disabled.body.disabled_until).toBeNull();
      expect(disabled.body.disabled_reason).toBe(
        'disabled after 40 failed deliveries in a row; the last: the receiver answered 503',
      );
      // A disabled hook gets no new deliveries.
      const sent = receiver.received.length;
      await send({ title: 'ignored' });
      await drain(bare);
      expect(receiver.received).toHaveLength(sent);
      // A failing test keeps it disabled and says why; a successful test re-enables it (GitLab).
      const failed = await api.post(`${base}/${hook.body.id}/test/alert_events`, {
        token: tokens.maintainer,
      });
      expect(failed.status).toBe(422);
      expect(failed.body).toEqual({ message: 'Hook execution failed: the receiver answered 503' });
      receiver.status = 200;
      const ok = await api.post(`${base}/${hook.body.id}/test/alert_events`, { token: tokens.maintainer });
      expect(ok.status).toBe(201);
      expect(ok.body).toEqual({ message: '201 Created' });
      expect(receiver.received.at(-1)!.body).toMatchObject({
        object_kind: 'alert',
        event_type: 'new',
        object_attributes: { title: 'Test alert from svc' },
      });
      expect((await api.get(`${base}/${hook.body.id}`, { token: tokens.maintainer })).body).toMatchObject({
        alert_status: 'executable',
        disabled_reason: null,
      });
      const errTest = await api.post(`${base}/${hook.body.id}/test/error_tracking_events`, {
        token: tokens.maintainer,
      });
      expect(errTest.status).toBe(201);
      expect(receiver.received.at(-1)!.body).toMatchObject({ object_kind: 'error', event_type: 'new' });
      expect(
        (await api.post(`${base}/${hook.body.id}/test/push_events`, { token: tokens.maintainer })).body,
      ).toEqual({
        error: 'trigger does not have a valid value',
      });
      expect(
        (await api.post(`${base}/${hook.body.id}/test/alert_events`, { token: tokens.developer })).status,
      ).toBe(403);
    } finally {
      await receiver.close();
    }
  });
});

describe('SMTP delivery (STARTTLS, login, retries)', () => {
  it('upgrades with STARTTLS when offered, logs in, and retries a refused e-mail with backoff', async () => {
    let refuse = true;
    const smtp = await startSmtpReceiver({
      auth: { user: 'alice', pass: 's3cret' },
      starttls: true,
      reject: (rcpt) => refuse && rcpt.startsWith('maintainer-'),
    });
    // The receiver's certificate is self-signed: nodemailer takes TLS options from the URL's query.
    const s = await startTestServer({
      env: { SVC_SMTP_URL: `smtp://alice:s3cret@127.0.0.1:${smtp.port}/?tls.rejectUnauthorized=false` },
    });
    try {
      const { api, projectId, tokens, emails, send } = await setup(s, 'tls');
      await api.put(`/api/v4/projects/${projectId}/alert_management/settings`, {
        token: tokens.owner,
        body: { send_email: true },
      });
      await send({ title: 'over TLS' });
      await drain(s);
      await until(() => smtp.messages.some((m) => m.to.includes(emails.owner)), 'owner mail');
      const owner = smtp.messages.find((m) => m.to.includes(emails.owner))!;
      expect(owner.secure).toBe(true);
      expect(owner.user).toBe('alice');
      // The Maintainer's mailbox refused it (550): recorded with the server's answer, retried after the backoff.
      const list = async () =>
        (
          await http(s.url).get(`/api/v4/admin/notifications/emails?project_id=${projectId}`, {
            token: s.rootToken,
          })
        ).body as { recipient: string; status: string; reason: string | null; attempts: number }[];
      const refused = (await list()).find((e) => e.recipient === emails.maintainer)!;
      expect(refused).toMatchObject({ status: 'pending', attempts: 1 });
      expect(refused.reason).toMatch(/^the SMTP server answered: 550/);
      expect(JSON.stringify(await list())).not.toContain('s3cret');
      refuse = false;
      s.clock.advance(2_500);
      await drain(s);
      await until(() => smtp.messages.some((m) => m.to.includes(emails.maintainer)), 'maintainer mail');
      expect((await list()).find((e) => e.recipient === emails.maintainer)).toMatchObject({
        status: 'sent',
        reason: null,
        attempts: 2,
      });
    } finally {
      await s.stop();
      await smtp.close();
    }
  });
});
