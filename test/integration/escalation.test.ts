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
const policies = (id: number) => `/api/v4/projects/${id}/incident_management/escalation_policies`;

describe.each(await databases())('escalation policies (%s)', (database) => {
  let s: TestServer;
  let free: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let hooks: Awaited<ReturnType<typeof startHookReceiver>>;

  beforeAll(async () => {
    [smtp, hooks] = await Promise.all([startSmtpReceiver(), startHookReceiver()]);
    [s, free] = await Promise.all([
      startTestServer({ database, env: { SVC_TIER: 'premium', SVC_SMTP_URL: smtp.url } }),
      startTestServer({ database, env: { SVC_TIER: 'free' } }),
    ]);
    const r = await http(s.url).put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    });
    expect(r.status).toBe(200);
  });
  afterAll(async () => {
    await s?.stop();
    await free?.stop();
    await smtp?.close();
    await hooks?.close();
  });

  const pagesTo = (who: string) =>
    smtp.messages.filter((m) => m.to.includes(`${who}@example.com`) && m.subject.includes('Paged:'));

  it('Reporters read, Maintainers write, others are refused; the Free tier gets 403', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'esc-perm', ROLES, 'perm');
    const body = {
      name: 'Ops',
      rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'developer-perm' }],
    };
    expect((await api.get(policies(id), { token: tokens.reporter })).body).toEqual([]);
    expect((await api.get(policies(id), { token: tokens.guest })).status).toBe(403);
    const stranger = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: {
        username: 'stranger-perm',
        name: 's',
        email: 'stranger-perm@example.com',
        password: 'password-123',
      },
    });
    const strangerToken = (
      await api.post(`/api/v4/users/${stranger.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
    expect((await api.get(policies(id), { token: strangerToken })).status).toBe(404);
    expect((await api.get(policies(id))).status).toBe(404);
    expect((await api.post(policies(id), { token: tokens.developer, body })).status).toBe(403);

    const created = await api.post(policies(id), { token: tokens.maintainer, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Ops',
      description: null,
      rules: [
        {
          elapsed_time_seconds: 0,
          status: 'acknowledged',
          oncall_schedule: null,
          user: { username: 'developer-perm' },
        },
      ],
    });
    const one = `${policies(id)}/${created.body.id}`;
    expect((await api.get(one, { token: tokens.reporter })).body).toEqual(created.body);
    expect((await api.get(one, { token: tokens.guest })).status).toBe(403);
    expect((await api.put(one, { token: tokens.developer, body: { name: 'x' } })).status).toBe(403);
    expect((await api.delete(one, { token: tokens.developer })).status).toBe(403);
    expect(
      (await api.get(`${policies(id)}/${created.body.id + 1000}`, { token: tokens.reporter })).status,
    ).toBe(404);
    // v5 serves the same.
    expect((await api.get(one.replace('/api/v4/', '/api/v5/'), { token: tokens.reporter })).body).toEqual(
      created.body,
    );
    expect((await api.delete(one, { token: tokens.maintainer })).status).toBe(204);
    expect((await api.get(policies(id), { token: tokens.reporter })).body).toEqual([]);

    // Free: 403 naming the tier.
    const fp = await http(free.url).post('/api/v4/projects', {
      token: free.rootToken,
      body: { name: 'free-esc' },
    });
    const refused = await http(free.url).get(policies(fp.body.id), { token: free.rootToken });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('Premium or Ultimate');
    const refusedPost = await http(free.url).post(policies(fp.body.id), {
      token: free.rootToken,
      body: { name: 'x', rules: [{ elapsed_time_seconds: 0, status: 'resolved', user_id: 1 }] },
    });
    expect(refusedPost.status).toBe(403);
  });

  it('validates: 1..10 rules, elapsed 0..86400, one policy per project, members and schedules as targets', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'esc-valid', ROLES, 'valid');
    const token = tokens.maintainer;
    const rule = (extra: Record<string, unknown> = {}) => ({
      elapsed_time_seconds: 60,
      status: 'resolved',
      username: 'guest-valid',
      ...extra,
    });
    const post = (body: unknown) => api.post(policies(id), { token, body });
    const eleven = Array.from({ length: 11 }, (_, i) => rule({ elapsed_time_seconds: i }));
    expect(await post({ name: 'p', rules: eleven })).toMatchObject({
      status: 400,
      body: { message: 'Maximum of 10 rules are permitted' },
    });
    expect((await post({ name: 'p', rules: [] })).status).toBe(400);
    expect((await post({ name: 'p' })).status).toBe(400);
    expect((await post({ rules: [rule()] })).status).toBe(400);
    expect((await post({ name: 'p', rules: [rule({ elapsed_time_seconds: 86_401 })] })).status).toBe(400);
    expect((await post({ name: 'p', rules: [rule({ elapsed_time_seconds: -1 })] })).status).toBe(400);
    expect((await post({ name: 'p', rules: [rule({ status: 'triggered' })] })).status).toBe(400);
    expect((await post({ name: 'p', rules: [rule({ user_id: 1 })] })).status).toBe(400);
    expect((await post({ name: 'p', rules: [rule(), rule()] })).status).toBe(400);
    const outsider = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: {
        username: 'outsider-valid',
        name: 'o',
        email: 'outsider-valid@example.com',
        password: 'password-123',
      },
    });
    expect(await post({ name: 'p', rules: [rule({ username: 'outsider-valid' })] })).toMatchObject({
      status: 400,
      body: { message: 'User-based escalation rules must have a user with access to the project' },
    });
    expect(
      (
        await post({
          name: 'p',
          rules: [{ elapsed_time_seconds: 0, status: 'resolved', user_id: outsider.body.id }],
        })
      ).status,
    ).toBe(400);
    expect(
      await post({
        name: 'p',
        rules: [{ elapsed_time_seconds: 0, status: 'resolved', oncall_schedule_iid: 1 }],
      }),
    ).toMatchObject({
      status: 400,
      body: { message: 'Schedule-based escalation rules must have a schedule in the same project' },
    });
    // Nothing was stored by the refusals.
    expect((await api.get(policies(id), { token })).body).toEqual([]);

    // A schedule of the project (the on-call feature's table) is a valid target, by its iid.
    const now = new Date().toISOString();
    await s.server.ctx.db.kysely
      .insertInto('oncall_schedules')
      .values({
        project_id: id,
        iid: 1,
        name: 'Primary',
        description: null,
        timezone: 'UTC',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const ok = await post({
      name: 'Ops',
      description: 'Wake people',
      rules: [
        rule({ elapsed_time_seconds: 600 }),
        { elapsed_time_seconds: 0, status: 'acknowledged', oncall_schedule_iid: 1 },
        rule({ elapsed_time_seconds: 86_400, username: undefined, user_id: outsider.body.id - 1 }),
      ],
    });
    expect(ok.status).toBe(201);
    // In GitLab's order: by elapsed time.
    expect(ok.body.rules.map((r: { elapsed_time_seconds: number }) => r.elapsed_time_seconds)).toEqual([
      0, 600, 86_400,
    ]);
    expect(ok.body.rules[0].oncall_schedule).toEqual({ iid: 1, name: 'Primary' });
    expect(ok.body.rules[0].user).toBeNull();

    expect(await post({ name: 'Other', rules: [rule()] })).toMatchObject({
      status: 400,
      body: { message: 'Project can only have one escalation policy' },
    });

    // PUT replaces the rules; without rules it keeps them; bad rules change nothing.
    const one = `${policies(id)}/${ok.body.id}`;
    const renamed = await api.put(one, { token, body: { name: 'Ops 2', description: null } });
    expect(renamed.body).toMatchObject({ name: 'Ops 2', description: null });
    expect(renamed.body.rules).toHaveLength(3);
    expect((await api.put(one, { token, body: { rules: eleven } })).status).toBe(400);
    const replaced = await api.put(one, { token, body: { rules: [rule({ elapsed_time_seconds: 5 })] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      name: 'Ops 2',
      rules: [{ elapsed_time_seconds: 5, status: 'resolved', user: { username: 'guest-valid' } }],
    });
    expect((await api.get(one, { token: tokens.reporter })).body).toEqual(replaced.body);
  });

  it('pages at 0 s and after N s while unacknowledged; acknowledge stops acknowledged rules, resolve stops all', async () => {
    // Paged people read the alert (Reporter or above): a Guest's page is skipped (see the next test).
    const { api, id, tokens } = await projectWithMembers(s, 'esc-engine', { ...ROLES, oncall: 20 }, 'eng');
    const token = tokens.maintainer;
    const hook = await api.post(`/api/v4/projects/${id}/hooks`, {
      token,
      body: { url: hooks.url, alert_events: true, token: 'hook-secret' },
    });
    expect(hook.status).toBe(201);
    const created = await api.post(policies(id), {
      token,
      body: {
        name: 'Night',
        rules: [
          { elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-eng' },
          { elapsed_time_seconds: 60, status: 'acknowledged', username: 'reporter-eng' },
          { elapsed_time_seconds: 120, status: 'resolved', username: 'developer-eng' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const send = (body: unknown) => notify(integration.url, integration.authorization_key, body);
    const drain = () => s.server.ctx.jobs.drain();
    const alertIid = async (title: string) =>
      (await api.get(`/api/v4/projects/${id}/alert_management/alerts?search=${title}`, { token })).body[0]
        .iid as number;
    const setStatus = async (iid: number, status: string) =>
      expect(
        (
          await api.put(`/api/v4/projects/${id}/alert_management/alerts/${iid}`, {
            token: tokens.developer,
            body: { status },
          })
        ).status,
      ).toBe(200);
    const pages = (who: string, title: string) => pagesTo(who).filter((m) => m.subject.includes(title));
    const waitPages = (who: string, title: string, n: number) =>
      until(async () => {
        await drain();
        return pages(who, title).length === n;
      }, `${n} page(s) of ${title} to ${who}`);

    // alpha: 0 s pages the guest at once, 60 s the reporter; acknowledged, the 120 s `resolved` rule still pages.
    expect((await send({ title: 'alpha', fingerprint: 'alpha' })).status).toBe(200);
    // beta: acknowledged before 60 s: the reporter is not paged, the developer is (a `resolved` rule).
    expect((await send({ title: 'beta', fingerprint: 'beta' })).status).toBe(200);
    // gamma: resolved at once: nothing after 0 s.
    expect((await send({ title: 'gamma', fingerprint: 'gamma' })).status).toBe(200);
    for (const t of ['alpha', 'beta', 'gamma']) await waitPages('oncall-eng', t, 1);
    expect(pagesTo('reporter-eng')).toHaveLength(0);
    const [alpha, beta, gamma] = [await alertIid('alpha'), await alertIid('beta'), await alertIid('gamma')];
    await setStatus(beta, 'acknowledged');
    await setStatus(gamma, 'resolved');
    // A repeat of alpha's fingerprint is not a new alert: no new escalation.
    expect((await send({ title: 'alpha', fingerprint: 'alpha' })).status).toBe(200);
    await drain();
    expect(pages('oncall-eng', 'alpha')).toHaveLength(1);

    // The escalation state: alpha's first rule paged, the others wait.
    const state = await api.get(`/api/v4/projects/${id}/alert_management/alerts/${alpha}/escalations`, {
      token: tokens.reporter,
    });
    expect(state.status).toBe(200);
    expect(state.body.map((e: { state: string }) => e.state)).toEqual(['paged', 'pending', 'pending']);
    expect(state.body[0].pages[0].user.username).toBe('oncall-eng');
    expect(
      (
        await api.get(`/api/v4/projects/${id}/alert_management/alerts/${alpha}/escalations`, {
          token: tokens.guest,
        })
      ).status,
    ).toBe(403);

    s.clock.advance(61_000);
    await waitPages('reporter-eng', 'alpha', 1);
    expect(pages('reporter-eng', 'beta')).toHaveLength(0);
    expect(pages('reporter-eng', 'gamma')).toHaveLength(0);
    await setStatus(alpha, 'acknowledged');

    s.clock.advance(60_000);
    await waitPages('developer-eng', 'alpha', 1);
    await waitPages('developer-eng', 'beta', 1);
    await drain();
    expect(pages('developer-eng', 'gamma')).toHaveLength(0);
    // Every page exactly once.
    for (const t of ['alpha', 'beta', 'gamma']) expect(pages('oncall-eng', t)).toHaveLength(1);
    expect(pagesTo('reporter-eng')).toHaveLength(1);
    expect(pagesTo('developer-eng')).toHaveLength(2);
    expect(pagesTo('maintainer-eng')).toHaveLength(0);
    const mail = pages('oncall-eng', 'alpha')[0]!;
    expect(mail.text).toContain(`/-/ui/projects/${id}/alerts/${alpha}`);

    const after = await api.get(`/api/v4/projects/${id}/alert_management/alerts/${beta}/escalations`, {
      token: tokens.reporter,
    });
    expect(after.body.map((e: { state: string }) => e.state)).toEqual(['paged', 'skipped', 'paged']);

    // The webhook got one `escalation` event per page, with the rule and its targets.
    const events = await until(() => {
      const e = hooks.received.filter((r) => r.body?.event_type === 'escalation');
      return e.length === 6 ? e : null;
    }, 'six escalation events');
    expect(events[0]!.headers['x-svc-token']).toBe('hook-secret');
    const alphaLast = events.find(
      (e) => e.body.object_attributes.iid === alpha && e.body.escalation.rule.elapsed_time_seconds === 120,
    )!;
    expect(alphaLast.body).toMatchObject({
      object_kind: 'alert',
      event_type: 'escalation',
      escalation: {
        policy: { name: 'Night' },
        rule: { status: 'resolved', user: { username: 'developer-eng' }, oncall_schedule: null },
        targets: [{ username: 'developer-eng' }],
      },
    });
    expect(alphaLast.body.object_attributes.status).toBe('acknowledged');
  });

  it('a schedule target pages whoever was on call when the rule was due, even when its job runs late', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'esc-sched', ROLES, 'sch');
    const schedules = `/api/v4/projects/${id}/incident_management/oncall_schedules`;
    const schedule = await api.post(schedules, {
      token: tokens.maintainer,
      body: { name: 'Primary', timezone: 'UTC' },
    });
    expect(schedule.status).toBe(201);
    // Hourly shifts, the reporter's ending 5 minutes from now and the developer's from then on.
    const t0 = s.clock.now().getTime();
    const rotation = await api.post(`${schedules}/${schedule.body.iid}/rotations`, {
      token: tokens.maintainer,
      body: {
        name: 'Hourly',
        starts_at: new Date(t0 - 55 * 60_000).toISOString(),
        length: 1,
        length_unit: 'hours',
        participants: [{ username: 'reporter-sch' }, { username: 'developer-sch' }],
      },
    });
    expect(rotation.status, JSON.stringify(rotation.body)).toBe(201);
    const created = await api.post(policies(id), {
      token: tokens.maintainer,
      body: {
        name: 'S',
        rules: [{ elapsed_time_seconds: 60, status: 'acknowledged', oncall_schedule_iid: schedule.body.iid }],
      },
    });
    expect(created.status).toBe(201);

    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    expect((await notify(integration.url, integration.authorization_key, { title: 'epsilon' })).status).toBe(
      200,
    );
    // The job runs ten minutes late, in the developer's shift: the page still goes to the reporter, who was on
    // call when the rule was due (a minute after the alert).
    s.clock.advance(600_000);
    await until(async () => {
      await s.server.ctx.jobs.drain();
      return pagesTo('reporter-sch').length === 1;
    }, 'the on-call page');
    expect(pagesTo('developer-sch')).toHaveLength(0);
    const state = await api.get(`/api/v4/projects/${id}/alert_management/alerts/1/escalations`, {
      token: tokens.reporter,
    });
    expect(state.body).toMatchObject([
      {
        state: 'paged',
        oncall_schedule: { iid: schedule.body.iid, name: 'Primary' },
        pages: [{ user: { username: 'reporter-sch' } }],
      },
    ]);
  });

  it('skips blocked users and Guests; a deleted policy stops escalations in progress', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'esc-blocked', ROLES, 'blk');
    const token = tokens.maintainer;
    const created = await api.post(policies(id), {
      token,
      body: {
        name: 'P',
        rules: [
          { elapsed_time_seconds: 0, status: 'resolved', username: 'guest-blk' },
          { elapsed_time_seconds: 0, status: 'resolved', username: 'reporter-blk' },
          { elapsed_time_seconds: 0, status: 'resolved', username: 'maintainer-blk' },
          { elapsed_time_seconds: 300, status: 'resolved', username: 'developer-blk' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const reporter = created.body.rules.find(
      (r: { user: { username: string } }) => r.user.username === 'reporter-blk',
    );
    expect((await api.post(`/api/v4/users/${reporter.user.id}/block`, { token: s.rootToken })).status).toBe(
      201,
    );
    // The maintainer leaves the project after the policy was made: not paged either.
    const maintainer = created.body.rules.find(
      (r: { user: { username: string } }) => r.user.username === 'maintainer-blk',
    );
    expect(
      (await api.delete(`/api/v4/projects/${id}/members/${maintainer.user.id}`, { token: s.rootToken }))
        .status,
    ).toBe(204);
    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    expect((await notify(integration.url, integration.authorization_key, { title: 'delta' })).status).toBe(
      200,
    );
    // The Guest cannot read the alert: the page's e-mail is recorded skipped when it is due, not sent.
    await until(async () => {
      await s.server.ctx.jobs.drain();
      const skipped = await api.get(`/api/v4/admin/notifications/emails?status=skipped&project_id=${id}`, {
        token: s.rootToken,
      });
      return (skipped.body as { recipient: string }[]).some((e) => e.recipient === 'guest-blk@example.com');
    }, 'the guest page, skipped');
    expect(pagesTo('guest-blk')).toHaveLength(0);
    expect(pagesTo('reporter-blk')).toHaveLength(0);
    expect(pagesTo('maintainer-blk')).toHaveLength(0);
    const pending = await api.get(`/api/v4/projects/${id}/alert_management/alerts/1/escalations`, {
      token: s.rootToken,
    });
    expect(pending.body.map((e: { state: string }) => e.state)).toEqual([
      'paged',
      'skipped',
      'skipped',
      'pending',
    ]);
    expect((await api.delete(`${policies(id)}/${created.body.id}`, { token: s.rootToken })).status).toBe(204);
    s.clock.advance(301_000);
    await s.server.ctx.jobs.drain();
    expect(pagesTo('developer-blk')).toHaveLength(0);
    // The deleted policy's pending job is not shown as pending.
    const after = await api.get(`/api/v4/projects/${id}/alert_management/alerts/1/escalations`, {
      token: s.rootToken,
    });
    expect(after.body.map((e: { state: string }) => e.state)).toEqual(['paged']);
  });

  it('repeat runs the rules again while the alert stays triggered, then stops; acknowledging stops it', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'esc-repeat', { ...ROLES, oncall: 20 }, 'rep');
    const token = tokens.maintainer;
    const rules = [
      { elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-rep' },
      { elapsed_time_seconds: 60, status: 'acknowledged', username: 'reporter-rep' },
    ];
    const post = (body: unknown) => api.post(policies(id), { token, body });
    // Bad repeats are 400s and create nothing.
    for (const repeat of [10, -1, 1.5]) {
      const r = await post({ name: 'Loop', rules, repeat });
      expect(r.status).toBe(400);
    }
    expect(
      (await post({ name: 'Loop', rules: [{ ...rules[0], elapsed_time_seconds: 0 }], repeat: 1 })).status,
    ).toBe(400);
    expect((await api.get(policies(id), { token })).body).toEqual([]);
    const created = await post({ name: 'Loop', rules });
    expect(created.status).toBe(201);
    expect(created.body.repeat).toBe(0);
    const one = `${policies(id)}/${created.body.id}`;
    const set = await api.put(one, { token, body: { repeat: 2 } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      repeat: 2,
      rules: [{ elapsed_time_seconds: 0 }, { elapsed_time_seconds: 60 }],
    });
    // A bad update changes nothing.
    expect((await api.put(one, { token, body: { repeat: 10, name: 'Other' } })).status).toBe(400);
    expect(
      (await api.put(one, { token, body: { rules: [{ ...rules[0], elapsed_time_seconds: 0 }] } })).status,
    ).toBe(400);
    expect((await api.get(one.replace('/api/v4/', '/api/v5/'), { token })).body).toEqual(set.body);

    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const send = (title: string) =>
      notify(integration.url, integration.authorization_key, { title, fingerprint: title });
    const drain = () => s.server.ctx.jobs.drain();
    const pages = (who: string, title: string) => pagesTo(who).filter((m) => m.subject.includes(title));
    const waitPages = (who: string, title: string, n: number) =>
      until(async () => {
        await drain();
        return pages(who, title).length === n;
      }, `${n} page(s) of ${title} to ${who}`);
    const alertIid = async (title: string) =>
      (await api.get(`/api/v4/projects/${id}/alert_management/alerts?search=${title}`, { token })).body[0]
        .iid as number;

    // loop: nobody acknowledges. Round 0 at 0 s and 60 s; round 1 at 60 s and 120 s; round 2 at 120 s and 180 s.
    // stop: acknowledged during round 1, before its second rule.
    expect((await send('loop')).status).toBe(200);
    expect((await send('stop')).status).toBe(200);
    await waitPages('oncall-rep', 'loop', 1);
    await waitPages('oncall-rep', 'stop', 1);
    s.clock.advance(61_000);
    await waitPages('reporter-rep', 'loop', 1);
    await waitPages('oncall-rep', 'loop', 2);
    await waitPages('oncall-rep', 'stop', 2);
    expect(
      (
        await api.put(`/api/v4/projects/${id}/alert_management/alerts/${await alertIid('stop')}`, {
          token: tokens.developer,
          body: { status: 'acknowledged' },
        })
      ).status,
    ).toBe(200);
    s.clock.advance(60_000);
    await waitPages('reporter-rep', 'loop', 2);
    await waitPages('oncall-rep', 'loop', 3);
    s.clock.advance(60_000);
    await waitPages('reporter-rep', 'loop', 3);
    // Nothing after the last repeat, however long it stays triggered.
    s.clock.advance(3_600_000);
    await drain();
    await drain();
    expect(pages('oncall-rep', 'loop')).toHaveLength(3);
    expect(pages('reporter-rep', 'loop')).toHaveLength(3);
    expect(pages('oncall-rep', 'stop')).toHaveLength(2);
    expect(pages('reporter-rep', 'stop')).toHaveLength(1);

    // The escalation state lists each page with its round.
    const state = await api.get(
      `/api/v4/projects/${id}/alert_management/alerts/${await alertIid('loop')}/escalations`,
      { token: tokens.reporter },
    );
    expect(state.body.map((e: { state: string }) => e.state)).toEqual(['paged', 'paged']);
    for (const e of state.body)
      expect(e.pages.map((p: { round: number }) => p.round).sort()).toEqual([0, 1, 2]);
  });

  it('an acknowledgement that times out triggers the alert again and re-pages; resolving in time does not', async () => {
    const { api, id, tokens } = await projectWithMembers(s, 'esc-ackto', { ...ROLES, oncall: 20 }, 'ackto');
    const token = tokens.maintainer;
    const rules = [
      { elapsed_time_seconds: 0, status: 'acknowledged', username: 'oncall-ackto' },
      { elapsed_time_seconds: 300, status: 'acknowledged', username: 'reporter-ackto' },
    ];
    const post = (body: unknown) => api.post(policies(id), { token, body });
    for (const ack_timeout_minutes of [0, 1441, 2.5]) {
      expect((await post({ name: 'Ack', rules, ack_timeout_minutes })).status).toBe(400);
    }
    expect((await api.get(policies(id), { token })).body).toEqual([]);
    const created = await post({ name: 'Ack', rules, ack_timeout_minutes: 10 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ack_timeout_minutes: 10, repeat: 0 });
    const one = `${policies(id)}/${created.body.id}`;
    expect((await api.put(one, { token, body: { ack_timeout_minutes: 0 } })).status).toBe(400);
    expect((await api.get(one.replace('/api/v4/', '/api/v5/'), { token })).body).toEqual(created.body);

    const integration = await createIntegration(api, s.rootToken, id, { name: 'http', type: 'http' });
    const send = (title: string) =>
      notify(integration.url, integration.authorization_key, { title, fingerprint: title });
    const drain = () => s.server.ctx.jobs.drain();
    const pages = (who: string, title: string) => pagesTo(who).filter((m) => m.subject.includes(title));
    const waitPages = (who: string, title: string, n: number) =>
      until(async () => {
        await drain();
        return pages(who, title).length === n;
      }, `${n} page(s) of ${title} to ${who}`);
    const alertUrl = async (title: string) =>
      `/api/v4/projects/${id}/alert_management/alerts/${
        (await api.get(`/api/v4/projects/${id}/alert_management/alerts?search=${title}`, { token })).body[0]
          .iid
      }`;
    const setStatus = async (title: string, status: string) =>
      expect(
        (await api.put(await alertUrl(title), { token: tokens.developer, body: { status } })).status,
      ).toBe(200);

    // lapse: acknowledged, never resolved. done: acknowledged, resolved in time. again: acknowledged, then
    // triggered and acknowledged again by hand 8 minutes later (the timer restarts).
    for (const t of ['lapse', 'done', 'again']) {
      expect((await send(t)).status).toBe(200);
      await waitPages('oncall-ackto', t, 1);
      await setStatus(t, 'acknowledged');
    }
    s.clock.advance(8 * 60_000);
    await drain();
    await setStatus('done', 'resolved');
    // Triggered again by hand, its escalation starts again: the first rule pages at once.
    await setStatus('again', 'triggered');
    await waitPages('oncall-ackto', 'again', 2);
    await setStatus('again', 'acknowledged');
    s.clock.advance(2 * 60_000 + 1000);
    // lapse: triggered again with a note saying why; its escalation starts again from the first rule.
    await waitPages('oncall-ackto', 'lapse', 2);
    const lapse = (await api.get(await alertUrl('lapse'), { token })).body;
    expect(lapse.status).toBe('triggered');
    const notes = (await api.get(`${await alertUrl('lapse')}/notes`, { token })).body;
    expect(notes.at(-1)).toMatchObject({
      body: 'changed the status to **Triggered** because the acknowledgement timed out after 10 minutes',
      system: true,
    });
    await drain();
    expect((await api.get(await alertUrl('done'), { token })).body.status).toBe('resolved');
    expect((await api.get(await alertUrl('again'), { token })).body.status).toBe('acknowledged');
    // 5 minutes after the restart, its second rule pages (the first run's never did: it was acknowledged).
    s.clock.advance(5 * 60_000);
    await waitPages('reporter-ackto', 'lapse', 1);
    // again times out 10 minutes after its second acknowledgement (18 minutes in), not after its first.
    await drain();
    expect((await api.get(await alertUrl('again'), { token })).body.status).toBe('acknowledged');
    expect(pages('oncall-ackto', 'again')).toHaveLength(2);
    s.clock.advance(3 * 60_000);
    await waitPages('oncall-ackto', 'again', 3);
    expect((await api.get(await alertUrl('again'), { token })).body.status).toBe('triggered');
    s.clock.advance(60 * 60_000);
    await drain();
    await drain();
    expect(pages('oncall-ackto', 'lapse')).toHaveLength(2);
    expect(pages('reporter-ackto', 'lapse')).toHaveLength(1);
    expect(pages('oncall-ackto', 'done')).toHaveLength(1);
    expect(pages('reporter-ackto', 'done')).toHaveLength(0);
    const state = await api.get(`${await alertUrl('lapse')}/escalations`, { token: tokens.reporter });
    expect(state.body[0].pages.map((p: { cycle: number | null }) => p.cycle === null)).toEqual([true, false]);
  });
});
