import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/api/redact.js';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { createUser, projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { type ReceivedMail, startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

const ROLES = { guest: 10, reporter: 20, developer: 30, maintainer: 40, oncall: 30 } as const;
const policies = (id: number) => `/api/v4/projects/${id}/incident_management/escalation_policies`;
const MINUTE = 60_000;

/** The acknowledge link of a page e-mail. */
function linkOf(mail: ReceivedMail): string {
  const m = /https?:\/\/[^\s"<>]+\/-\/acknowledge\/[\w-]+/.exec(mail.text);
  if (!m) throw new Error(`no acknowledge link in ${mail.subject}`);
  return m[0];
}

/** A browser's GET of a link, and its form's POST (no sign-in, no cookie, no token). */
const open = (link: string) => fetch(link, { redirect: 'manual' });
const press = (link: string) =>
  fetch(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
    redirect: 'manual',
  });

/**
 * Paging by hand (`POST .../issues/:iid/page` and the `/page` quick action), incident escalations that stop, repeat
 * and time out, the one-use acknowledge links of pages, and the on-call engineer's whole loop, from the outside:
 * a real SMTP receiver, a loopback webhook receiver, the server's clock driving the escalation's time.
 */
describe.each(await databases())('paging (%s)', (database) => {
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
  const pagesTo = (who: string, title: string) =>
    smtp.messages.filter((m) => m.to.includes(`${who}@example.com`) && m.subject.includes(`Paged: ${title}`));
  const waitPages = (who: string, title: string, n: number) =>
    until(async () => {
      await drain();
      return pagesTo(who, title).length === n;
    }, `${n} page(s) of ${title} to ${who}`);

  it('pages an incident by hand as a Developer; stops on acknowledge and resolve; the ack timeout re-pages', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'page-hand', ROLES, 'ph');
    const issues = `/api/v4/projects/${id}/issues`;
    const incident = await api.post(issues, {
      token: tokens.maintainer,
      body: { title: 'DB down', issue_type: 'incident' },
    });
    expect(incident.status).toBe(201);
    expect(incident.body.escalation_policy).toBeNull();
    const page = `${issues}/${incident.body.iid}/page`;

    // No policy yet: a clear 400, nothing changes.
    const none = await api.post(page, { token: tokens.developer });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain('no escalation policy');

    const policy = await api.post(policies(id), {
      token: tokens.maintainer,
      body: {
        name: 'Ops',
        ack_timeout_minutes: 10,
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-ph' },
          { elapsed_time_seconds: 300, status: 'resolved', username: 'maintainer-ph' },
        ],
      },
    });
    expect(policy.status).toBe(201);

    // Who may page: Developer and above; a reader below is refused, a stranger and anonymous do not see it.
    expect((await api.post(page, { token: tokens.guest })).status).toBe(403);
    expect((await api.post(page, { token: tokens.reporter })).status).toBe(403);
    expect((await api.post(page, {})).status).toBe(401);
    const stranger = await createUser(s, 'stranger-ph');
    expect((await api.post(page, { token: stranger.token })).status).toBe(404);
    const plain = await api.post(issues, { token: tokens.maintainer, body: { title: 'Not an incident' } });
    expect((await api.post(`${issues}/${plain.body.iid}/page`, { token: tokens.developer })).status).toBe(
      404,
    );
    expect(
      (
        await api.post(page, {
          token: tokens.developer,
          body: { escalation_policy_id: policy.body.id + 1000 },
        })
      ).status,
    ).toBe(404);
    await drain();
    expect(pagesTo('oncall-ph', 'DB down')).toHaveLength(0);

    const paged = await api.post(page, {
      token: tokens.developer,
      body: { escalation_policy_id: policy.body.id },
    });
    expect(paged.status, JSON.stringify(paged.body)).toBe(201);
    expect(paged.body).toMatchObject({
      iid: incident.body.iid,
      escalation_status: 'triggered',
      escalation_policy: { id: policy.body.id, name: 'Ops' },
    });
    expect((await api.get(`${issues}/${incident.body.iid}`, { token: tokens.guest })).body).toMatchObject({
      escalation_policy: { id: policy.body.id, name: 'Ops' },
    });
    // Already escalated with it: 400, no second run.
    const again = await api.post(page, { token: tokens.maintainer });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("This incident is already escalated with 'Ops'.");

    await waitPages('oncall-ph', 'DB down', 1);
    const mail = pagesTo('oncall-ph', 'DB down')[0]!;
    expect(mail.text).toContain(`/-/ui/projects/${id}/issues/${incident.body.iid}`);

    // Acknowledged from the page's link: the `acknowledged` rules stop, the `resolved` one still pages at 300 s.
    const ack = await press(linkOf(mail));
    expect(ack.status).toBe(200);
    expect(await ack.text()).toContain('Incident #');
    expect(
      (await api.get(`${issues}/${incident.body.iid}`, { token: tokens.reporter })).body.escalation_status,
    ).toBe('acknowledged');
    s.clock.advance(301_000);
    await waitPages('maintainer-ph', 'DB down', 1);
    expect(pagesTo('oncall-ph', 'DB down')).toHaveLength(1);

    // Ten minutes after the acknowledgement, nobody resolved it: triggered again, paged again from the first rule.
    s.clock.advance(5 * MINUTE);
    await waitPages('oncall-ph', 'DB down', 2);
    const after = await api.get(`${issues}/${incident.body.iid}`, { token: tokens.reporter });
    expect(after.body.escalation_status).toBe('triggered');
    const notes = (await api.get(`${issues}/${incident.body.iid}/notes?sort=asc`, { token: tokens.reporter }))
      .body as { body: string; system: boolean }[];
    expect(notes.map((n) => n.body)).toContain(
      'changed the incident status to **Triggered** because the acknowledgement timed out after 10 minutes',
    );
    expect(notes.map((n) => n.body)).toContain('paged escalation policy **Ops**');
    expect(notes.map((n) => n.body)).toContain(
      'changed the incident status to **Acknowledged** via page link',
    );

    // Resolved: nothing more pages, the second run's 300 s rule included.
    const resolved = await api.put(`${issues}/${incident.body.iid}`, {
      token: tokens.developer,
      body: { escalation_status: 'resolved' },
    });
    expect(resolved.body).toMatchObject({ state: 'closed', escalation_status: 'resolved' });
    s.clock.advance(60 * MINUTE);
    await drain();
    await drain();
    expect(pagesTo('maintainer-ph', 'DB down')).toHaveLength(1);
    expect(pagesTo('oncall-ph', 'DB down')).toHaveLength(2);
    // A closed incident is not paged.
    const closed = await api.post(page, { token: tokens.developer });
    expect(closed.status).toBe(400);

    const timeline = (
      await api.get(`${issues}/${incident.body.iid}/timeline_events`, { token: tokens.reporter })
    ).body as { note: string; action: string }[];
    const texts = timeline.map((e) => e.note);
    expect(texts).toContain('@developer-ph paged the incident with escalation policy **Ops**');
    expect(
      texts.filter((t) => t.startsWith('@oncall-ph paged by escalation policy **Ops**, rule 1')),
    ).toHaveLength(2);
    expect(texts).toContain(
      'The acknowledgement timed out after 10 minutes: the incident is triggered again',
    );
    expect(texts).toContain('Acknowledged by @oncall-ph via page link');
  });

  it('pages by the /page quick action, with GitLab answers; for readers below Developer it is a plain comment', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'page-quick', ROLES, 'pq');
    const issues = `/api/v4/projects/${id}/issues`;
    const incident = await api.post(issues, {
      token: tokens.maintainer,
      body: { title: 'Queue stuck', issue_type: 'incident' },
    });
    const notes = `${issues}/${incident.body.iid}/notes`;
    expect(
      (
        await api.post(policies(id), {
          token: tokens.maintainer,
          body: {
            name: 'Night shift',
            rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-pq' }],
          },
        })
      ).status,
    ).toBe(201);

    // A Reporter may not page: the line is the text of a comment, nothing pages.
    const asReporter = await api.post(notes, { token: tokens.reporter, body: { body: '/page Night shift' } });
    expect(asReporter.status).toBe(201);
    expect(asReporter.body).toMatchObject({ body: '/page Night shift', system: false });

    const unknown = await api.post(notes, { token: tokens.developer, body: { body: '/page Day shift' } });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual({ commands_changes: {}, summary: ["Policy 'Day shift' does not exist."] });

    const started = await api.post(notes, { token: tokens.developer, body: { body: '/page night SHIFT' } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      commands_changes: { escalation_status: { policy: { name: 'Night shift' } } },
      summary: ['Started escalation for this incident.'],
    });
    await waitPages('oncall-pq', 'Queue stuck', 1);
    const twice = await api.post(notes, { token: tokens.maintainer, body: { body: '/page Night shift' } });
    expect(twice.body.summary).toEqual(["This incident is already escalated with 'Night shift'."]);

    // With other text, the text is the comment and the command runs (once acknowledged, paging again pages anew).
    await api.put(`${issues}/${incident.body.iid}`, {
      token: tokens.developer,
      body: { escalation_status: 'acknowledged' },
    });
    const mixed = await api.post(notes, {
      token: tokens.developer,
      body: { body: 'Still broken, waking the night shift.\n/page Night shift' },
    });
    expect(mixed.status).toBe(201);
    expect(mixed.body.body).toBe('Still broken, waking the night shift.');
    await waitPages('oncall-pq', 'Queue stuck', 2);

    // Commands-only notes are not stored: the comments are the Reporter's and the mixed one.
    const list = (await api.get(`${notes}?sort=asc`, { token: tokens.reporter })).body as {
      body: string;
      system: boolean;
    }[];
    expect(list.filter((n) => !n.system).map((n) => n.body)).toEqual([
      '/page Night shift',
      'Still broken, waking the night shift.',
    ]);
    const issue = (await api.get(`${issues}/${incident.body.iid}`, { token: tokens.reporter })).body;
    expect(issue).toMatchObject({
      escalation_status: 'triggered',
      escalation_policy: { name: 'Night shift' },
    });
  });

  it('acknowledge links: GET changes nothing, POST acknowledges once as the person paged, only that alert', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'page-link', ROLES, 'pl');
    const hook = await api.post(`/api/v4/projects/${id}/hooks`, {
      token: tokens.maintainer,
      body: { url: hooks.url, alert_events: true },
    });
    expect(hook.status).toBe(201);
    expect(
      (
        await api.post(policies(id), {
          token: tokens.maintainer,
          body: {
            name: 'Wake',
            rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-pl' }],
          },
        })
      ).status,
    ).toBe(201);
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    for (const title of ['link-one', 'link-two', 'link-hook', 'link-late'])
      expect(
        (await notify(integration.url, integration.authorization_key, { title, fingerprint: title })).status,
      ).toBe(200);
    for (const title of ['link-one', 'link-two', 'link-hook', 'link-late'])
      await waitPages('oncall-pl', title, 1);
    const alerts = `/api/v4/projects/${id}/alert_management/alerts`;
    const alert = async (title: string) =>
      (await api.get(`${alerts}?search=${title}`, { token: tokens.reporter })).body[0] as {
        iid: number;
        status: string;
      };
    const one = linkOf(pagesTo('oncall-pl', 'link-one')[0]!);
    const two = linkOf(pagesTo('oncall-pl', 'link-two')[0]!);
    expect(one).not.toBe(two);

    // GET shows what it would acknowledge, on a small page of its own, and changes nothing (however often).
    for (let i = 0; i < 2; i++) {
      const shown = await open(one);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-type')).toContain('text/html');
      expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await shown.text();
      expect(html).toContain('link-one');
      expect(html).toContain('<form method="post">');
      expect(html).toContain('name="viewport"');
      expect(html).not.toContain('<script');
    }
    expect((await alert('link-one')).status).toBe('triggered');

    // POST acknowledges link-one only, as the person paged.
    const pressed = await press(one);
    expect(pressed.status).toBe(200);
    expect(await pressed.text()).toContain('Acknowledged as @oncall-pl');
    expect((await alert('link-one')).status).toBe('acknowledged');
    expect((await alert('link-two')).status).toBe('triggered');
    const notes = (
      await api.get(`${alerts}/${(await alert('link-one')).iid}/notes`, { token: tokens.reporter })
    ).body as { body: string; author: { username: string } | null }[];
    expect(notes.at(-1)).toMatchObject({
      body: 'changed the status to **Acknowledged** via page link',
      author: { username: 'oncall-pl' },
    });

    // Used: refused (410), GET and POST alike, changing nothing.
    await api.put(`${alerts}/${(await alert('link-one')).iid}`, {
      token: tokens.developer,
      body: { status: 'triggered' },
    });
    expect((await press(one)).status).toBe(410);
    expect((await open(one)).status).toBe(410);
    expect((await alert('link-one')).status).toBe('triggered');
    // Unknown or altered tokens: 404, nothing changes (another alert's link acknowledges only its own).
    const altered = `${two.slice(0, -2)}${two.endsWith('aa') ? 'bb' : 'aa'}`;
    expect((await press(altered)).status).toBe(404);
    expect((await open(`${s.url}/-/acknowledge/nope`)).status).toBe(404);
    expect((await alert('link-two')).status).toBe('triggered');

    // The webhook's payload carries an acknowledge link (the sole person paged's).
    const event = await until(
      () =>
        hooks.received.find(
          (r) => r.body?.event_type === 'escalation' && r.body?.object_attributes?.title === 'link-hook',
        ) ?? null,
      'the escalation event of link-hook',
    );
    expect(event.body.acknowledge_url).toMatch(/\/-\/acknowledge\/[\w-]+$/);
    expect((await press(event.body.acknowledge_url)).status).toBe(200);
    expect((await alert('link-hook')).status).toBe('acknowledged');

    // A day later the link has expired: refused, nothing changes.
    const late = linkOf(pagesTo('oncall-pl', 'link-late')[0]!);
    s.clock.advance(24 * 60 * MINUTE + 1000);
    expect((await open(late)).status).toBe(410);
    expect((await press(late)).status).toBe(410);
    expect((await alert('link-late')).status).toBe('triggered');

    // The token never reaches a log line.
    expect(redactUrl(new URL(late).pathname)).toBe('/-/acknowledge/[REDACTED]');
  });

  it('the on-call loop: alert, incident, page, repeat, override, ack by e-mail link, ack timeout, re-page, resolve', async () => {
    const { api, id, tokens } = await projectWithMembers(
      s,
      'page-loop',
      { maintainer: 40, alice: 30, bob: 30 },
      'loop',
    );
    const token = tokens.maintainer;
    const settings = await api.put(`/api/v4/projects/${id}/alert_management/settings`, {
      token,
      body: { create_incident: true, auto_resolve_alerts: true },
    });
    expect(settings.status).toBe(200);
    const schedules = `/api/v4/projects/${id}/incident_management/oncall_schedules`;
    const schedule = await api.post(schedules, { token, body: { name: 'Primary', timezone: 'UTC' } });
    expect(schedule.status).toBe(201);
    const t0 = s.clock.now().getTime();
    const rotation = await api.post(`${schedules}/${schedule.body.iid}/rotations`, {
      token,
      body: {
        name: 'Alice',
        starts_at: new Date(t0 - 60 * MINUTE).toISOString(),
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'alice-loop' }],
      },
    });
    expect(rotation.status, JSON.stringify(rotation.body)).toBe(201);
    const policy = await api.post(policies(id), {
      token,
      body: {
        name: 'Loop',
        repeat: 1,
        ack_timeout_minutes: 10,
        rules: [{ elapsed_time_seconds: 60, status: 'acknowledged', oncall_schedule_iid: schedule.body.iid }],
      },
    });
    expect(policy.status).toBe(201);

    // An alert opens an incident.
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    expect(
      (await notify(integration.url, integration.authorization_key, { title: 'checkout 500s' })).status,
    ).toBe(200);
    const incidents = (await api.get(`/api/v4/projects/${id}/issues?issue_type=incident`, { token })).body;
    expect(incidents).toHaveLength(1);
    const incidentUrl = `/api/v4/projects/${id}/issues/${incidents[0].iid}`;

    // The on-call engineer (alice) is paged a minute later, and does not answer.
    s.clock.advance(61_000);
    await waitPages('alice-loop', 'checkout 500s', 1);
    // An override puts bob on call: the policy's repeat, a minute later, pages him.
    const now = s.clock.now().getTime();
    const override = await api.post(`${schedules}/${schedule.body.iid}/overrides`, {
      token,
      body: {
        username: 'bob-loop',
        starts_at: new Date(now).toISOString(),
        ends_at: new Date(now + 24 * 60 * MINUTE).toISOString(),
      },
    });
    expect(override.status, JSON.stringify(override.body)).toBe(201);
    s.clock.advance(60_000);
    await waitPages('bob-loop', 'checkout 500s', 1);
    expect(pagesTo('alice-loop', 'checkout 500s')).toHaveLength(1);

    // bob acknowledges from the e-mail's link (the GET first, as a phone's browser does).
    const link = linkOf(pagesTo('bob-loop', 'checkout 500s')[0]!);
    expect((await open(link)).status).toBe(200);
    const alertUrl = `/api/v4/projects/${id}/alert_management/alerts/1`;
    expect((await api.get(alertUrl, { token })).body.status).toBe('triggered');
    const acked = await press(link);
    expect(acked.status).toBe(200);
    expect((await api.get(alertUrl, { token })).body.status).toBe('acknowledged');

    // Nobody resolves it within ten minutes: triggered again, and bob (still overriding) is paged again.
    s.clock.advance(10 * MINUTE + 1000);
    await until(async () => {
      await drain();
      return (await api.get(alertUrl, { token })).body.status === 'triggered';
    }, 'the acknowledgement to time out');
    s.clock.advance(61_000);
    await waitPages('bob-loop', 'checkout 500s', 2);

    // bob resolves the incident: it closes, its alert is resolved, nothing pages any more.
    const resolved = await api.put(incidentUrl, {
      token: tokens.bob,
      body: { escalation_status: 'resolved' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ state: 'closed', escalation_status: 'resolved' });
    expect((await api.get(alertUrl, { token })).body.status).toBe('resolved');
    s.clock.advance(60 * MINUTE);
    await drain();
    await drain();
    expect(pagesTo('bob-loop', 'checkout 500s')).toHaveLength(2);
    expect(pagesTo('alice-loop', 'checkout 500s')).toHaveLength(1);

    // The timeline has every step, in order.
    const timeline = (await api.get(`${incidentUrl}/timeline_events`, { token: tokens.alice })).body as {
      note: string;
      action: string;
    }[];
    const steps = [
      (t: string) => t === '@alert-bot created the incident',
      (t: string) =>
        /^@alice-loop paged by escalation policy \*\*Loop\*\*, rule 1 .* for alert \^alert#1$/.test(t),
      (t: string) => /^@bob-loop paged by escalation policy \*\*Loop\*\*, rule 1 .*, repeat 1$/.test(t),
      (t: string) => t === 'Alert ^alert#1 acknowledged by @bob-loop via page link',
      (t: string) => t.startsWith('The acknowledgement of alert ^alert#1 timed out after 10 minutes'),
      (t: string) =>
        /^@bob-loop paged by escalation policy \*\*Loop\*\*, rule 1 .* for alert \^alert#1$/.test(t),
      (t: string) => t === '@bob-loop changed the incident status to **Resolved**',
    ];
    const notes = timeline.map((e) => e.note);
    let at = -1;
    for (const [i, step] of steps.entries()) {
      const found = notes.findIndex((n, j) => j > at && step(n));
      expect(found, `step ${i + 1} in ${JSON.stringify(notes, null, 1)}`).toBeGreaterThan(at);
      at = found;
    }
  });

  it('the Free tier refuses paging (403 naming the tier) and has no /page command', async () => {
    const free = await startTestServer({ database, env: { SVC_TIER: 'free' } });
    try {
      const api = http(free.url);
      const p = await api.post('/api/v4/projects', { token: free.rootToken, body: { name: 'free-page' } });
      const issues = `/api/v4/projects/${p.body.id}/issues`;
      const incident = await api.post(issues, {
        token: free.rootToken,
        body: { title: 'Free incident', issue_type: 'incident' },
      });
      const refused = await api.post(`${issues}/${incident.body.iid}/page`, { token: free.rootToken });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('Premium or Ultimate');
      const note = await api.post(`${issues}/${incident.body.iid}/notes`, {
        token: free.rootToken,
        body: { body: '/page Ops' },
      });
      expect(note.status).toBe(201);
      expect(note.body.body).toBe('/page Ops');
      expect((await api.get(`${issues}/${incident.body.iid}`, { token: free.rootToken })).body).toMatchObject(
        {
          escalation_status: 'triggered',
          escalation_policy: null,
        },
      );
    } finally {
      await free.stop();
    }
  });
});
