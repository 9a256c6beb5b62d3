import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
type Role = keyof typeof LEVELS;
const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

/**
 * Group-level on-call over REST: a group's schedules and escalation policy at the project routes' paths under
 * `/groups/:id`, who may do what (as each role, over HTTP), and a group's policy paging, by e-mail, for the projects
 * below it that have none of their own.
 */
describe.each(await databases())('group on-call (%s)', (database) => {
  let s: TestServer;
  let free: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let api: ReturnType<typeof http>;
  let n = 0;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    [s, free] = await Promise.all([
      // Cached lookups live for an hour: a change is seen at once only through the invalidation it announces.
      startTestServer({
        database,
        env: { SVC_TIER: 'premium', SVC_SMTP_URL: smtp.url, SVC_CACHE_TTL_MS: '3600000' },
      }),
      startTestServer({ database, env: { SVC_TIER: 'free' } }),
    ]);
    api = http(s.url);
  });
  afterAll(async () => {
    await s?.stop();
    await free?.stop();
    await smtp?.close();
  });

  /** A private group (under `parent` when given) with one member per role; users named `<role>-<suffix>`. */
  async function groupWithMembers(suffix: string, parent?: number) {
    const g = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: `G ${suffix}`, path: `g-${suffix}`, visibility: 'private', parent_id: parent },
    });
    expect(g.status, JSON.stringify(g.body)).toBe(201);
    const tokens = {} as Record<Role, string>;
    const ids = {} as Record<Role, number>;
    for (const [role, level] of Object.entries(LEVELS) as [Role, number][]) {
      const u = await createUser(s, `${role}-${suffix}`);
      const m = await api.post(`/api/v4/groups/${g.body.id}/members`, {
        token: s.rootToken,
        body: { user_id: u.id, access_level: level },
      });
      expect(m.status).toBe(201);
      tokens[role] = u.token;
      ids[role] = u.id;
    }
    return { id: g.body.id as number, tokens, ids };
  }
  const project = async (namespaceId: number) => {
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: `P ${++n}`, namespace_id: namespaceId },
    });
    expect(p.status).toBe(201);
    return p.body.id as number;
  };
  const schedules = (g: number, v = 4) => `/api/v${v}/groups/${g}/incident_management/oncall_schedules`;
  const policies = (g: number, v = 4) => `/api/v${v}/groups/${g}/incident_management/escalation_policies`;
  const projectPolicies = (p: number) => `/api/v4/projects/${p}/incident_management/escalation_policies`;

  it("a group's schedules: CRUD, rotations of group members (inherited too), on_call, shifts, overrides", async () => {
    const top = await groupWithMembers('gsched-top');
    const sub = await groupWithMembers('gsched-sub', top.id);
    const token = sub.tokens.maintainer;
    const created = await api.post(schedules(sub.id), {
      token,
      body: { name: 'Team', timezone: 'Europe/Berlin', description: 'Both shifts' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      iid: 1,
      name: 'Team',
      timezone: 'Europe/Berlin',
      description: 'Both shifts',
      rotations: [],
    });
    // Iids count per group; names are unique per group.
    const second = await api.post(schedules(sub.id), { token, body: { name: 'Second', timezone: 'UTC' } });
    expect(second.body.iid).toBe(2);
    expect(
      (await api.post(schedules(sub.id), { token, body: { name: 'Team', timezone: 'UTC' } })).body,
    ).toEqual({ message: { name: ['has already been taken'] } });
    // Another group (the parent) numbers its own from 1 and may reuse the name.
    const parents = await api.post(schedules(top.id), {
      token: top.tokens.maintainer,
      body: { name: 'Team', timezone: 'UTC' },
    });
    expect(parents.body.iid).toBe(1);

    const path = `${schedules(sub.id)}/1`;
    const start = Date.UTC(2030, 0, 1);
    // A member of the parent group is a member of the subgroup; a stranger is not.
    const outsider = await createUser(s, 'outsider-gsched');
    const refused = await api.post(`${path}/rotations`, {
      token,
      body: {
        name: 'Daily',
        starts_at: iso(start),
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'reporter-gsched-top' }, { username: 'outsider-gsched' }],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      message: { participants: ['are not members of the group: outsider-gsched'] },
    });
    const rotation = await api.post(`${path}/rotations`, {
      token,
      body: {
        name: 'Daily',
        starts_at: iso(start),
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'reporter-gsched-top' }, { username: 'developer-gsched-sub' }],
      },
    });
    expect(rotation.status, JSON.stringify(rotation.body)).toBe(201);
    expect(rotation.body.participants.map((p: { user: { username: string } }) => p.user.username)).toEqual([
      'reporter-gsched-top',
      'developer-gsched-sub',
    ]);

    const onCall = async (at: number) =>
      (
        await api.get(`${path}/on_call?at=${encodeURIComponent(iso(at))}`, { token: sub.tokens.reporter })
      ).body.map((u: { username: string }) => u.username);
    expect(await onCall(start + HOUR)).toEqual(['reporter-gsched-top']);
    expect(await onCall(start + 25 * HOUR)).toEqual(['developer-gsched-sub']);
    const shifts = await api.get(
      `${path}/shifts?from=${encodeURIComponent(iso(start))}&to=${encodeURIComponent(iso(start + 48 * HOUR))}`,
      { token: sub.tokens.reporter },
    );
    expect(shifts.status).toBe(200);
    expect(shifts.body).toHaveLength(2);

    const over = await api.post(`${path}/overrides`, {
      token,
      body: { username: 'maintainer-gsched-sub', starts_at: iso(start), ends_at: iso(start + 2 * HOUR) },
    });
    expect(over.status, JSON.stringify(over.body)).toBe(201);
    expect(await onCall(start + HOUR)).toEqual(['maintainer-gsched-sub']);
    expect(
      (
        await api.post(`${path}/overrides`, {
          token,
          body: { user_id: outsider.id, starts_at: iso(start), ends_at: iso(start + HOUR) },
        })
      ).body,
    ).toEqual({ message: { user: ['is not a member of the group: outsider-gsched'] } });
    expect((await api.get(`${path}/overrides`, { token: sub.tokens.reporter })).body).toHaveLength(1);

    // v5 serves the same; a project's schedule of the same iid is another schedule.
    expect((await api.get(schedules(sub.id, 5), { token: sub.tokens.reporter })).body).toEqual(
      (await api.get(schedules(sub.id), { token: sub.tokens.reporter })).body,
    );
    const p = await project(sub.id);
    expect(
      (await api.get(`/api/v4/projects/${p}/incident_management/oncall_schedules`, { token: s.rootToken }))
        .body,
    ).toEqual([]);

    // PUT, DELETE of a rotation and of the schedule.
    const renamed = await api.put(path, { token, body: { name: 'Team 2' } });
    expect(renamed.body).toMatchObject({ name: 'Team 2', iid: 1 });
    expect((await api.delete(`${path}/rotations/${rotation.body.id}`, { token })).status).toBe(204);
    expect((await api.delete(`${schedules(sub.id)}/2`, { token })).status).toBe(204);
    expect((await api.get(schedules(sub.id), { token })).body.map((x: { name: string }) => x.name)).toEqual([
      'Team 2',
    ]);
  });

  it('Reporters read, Maintainers write, at the moment of the action; strangers get 404, Free 403', async () => {
    const g = await groupWithMembers('gperm');
    const stranger = await createUser(s, 'stranger-gperm');
    const body = { name: 'S', timezone: 'UTC' };
    const policy = {
      name: 'Ops',
      rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'developer-gperm' }],
    };
    for (const url of [schedules(g.id), policies(g.id)]) {
      expect((await api.get(url, { token: g.tokens.reporter })).status).toBe(200);
      expect((await api.get(url, { token: g.tokens.guest })).status).toBe(403);
      expect((await api.get(url, { token: stranger.token })).status).toBe(404);
      expect((await api.get(url)).status).toBe(404);
    }
    for (const who of ['guest', 'reporter', 'developer'] as const) {
      expect((await api.post(schedules(g.id), { token: g.tokens[who], body })).status).toBe(403);
      expect((await api.post(policies(g.id), { token: g.tokens[who], body: policy })).status).toBe(403);
    }
    const sched = await api.post(schedules(g.id), { token: g.tokens.maintainer, body });
    expect(sched.status).toBe(201);
    const pol = await api.post(policies(g.id), { token: g.tokens.maintainer, body: policy });
    expect(pol.status, JSON.stringify(pol.body)).toBe(201);
    expect(pol.body).toMatchObject({
      name: 'Ops',
      rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', user: { username: 'developer-gperm' } }],
      repeat: 0,
      ack_timeout_minutes: null,
    });
    expect((await api.get(policies(g.id), { token: g.tokens.reporter })).body).toEqual([pol.body]);
    expect((await api.post(policies(g.id), { token: g.tokens.maintainer, body: policy })).body).toEqual({
      message: 'Group can only have one escalation policy',
    });
    const one = `${policies(g.id)}/${pol.body.id}`;
    expect((await api.put(one, { token: g.tokens.developer, body: { name: 'x' } })).status).toBe(403);
    expect((await api.delete(one, { token: g.tokens.developer })).status).toBe(403);
    // A group's policy is not the project's: a project below lists none of its own.
    const p = await project(g.id);
    expect((await api.get(projectPolicies(p), { token: g.tokens.reporter })).body).toEqual([]);
    expect((await api.get(`${projectPolicies(p)}/${pol.body.id}`, { token: s.rootToken })).status).toBe(404);

    // The maintainer demoted to Reporter may read but no longer write, from the next request on.
    expect(
      (
        await api.put(`/api/v4/groups/${g.id}/members/${g.ids.maintainer}`, {
          token: s.rootToken,
          body: { access_level: 20 },
        })
      ).status,
    ).toBe(200);
    expect((await api.get(one, { token: g.tokens.maintainer })).status).toBe(200);
    expect((await api.put(one, { token: g.tokens.maintainer, body: { name: 'x' } })).status).toBe(403);
    expect(
      (
        await api.put(`${schedules(g.id)}/${sched.body.iid}`, {
          token: g.tokens.maintainer,
          body: { name: 'x' },
        })
      ).status,
    ).toBe(403);
    // A Maintainer of the parent group manages a subgroup's.
    const sub = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Sub gperm', path: 'sub-gperm', parent_id: g.id },
    });
    await api.put(`/api/v4/groups/${g.id}/members/${g.ids.maintainer}`, {
      token: s.rootToken,
      body: { access_level: 40 },
    });
    expect((await api.post(schedules(sub.body.id), { token: g.tokens.maintainer, body })).status).toBe(201);

    // Bad input changes nothing.
    expect(
      (
        await api.post(policies(sub.body.id), {
          token: g.tokens.maintainer,
          body: { name: 'x', rules: [{ elapsed_time_seconds: 0, status: 'resolved', user_id: stranger.id }] },
        })
      ).body,
    ).toEqual({ message: 'User-based escalation rules must have a user with access to the group' });
    expect(
      (
        await api.post(policies(sub.body.id), {
          token: g.tokens.maintainer,
          body: {
            name: 'x',
            rules: [{ elapsed_time_seconds: 0, status: 'resolved', oncall_schedule_iid: 9 }],
          },
        })
      ).body,
    ).toEqual({ message: 'Schedule-based escalation rules must have a schedule in the same group' });
    expect((await api.get(policies(sub.body.id), { token: s.rootToken })).body).toEqual([]);

    // Free: 403 naming the tier.
    const fg = await http(free.url).post('/api/v4/groups', {
      token: free.rootToken,
      body: { name: 'Free g', path: 'free-g' },
    });
    for (const url of [schedules(fg.body.id), policies(fg.body.id)]) {
      const r = await http(free.url).get(url, { token: free.rootToken });
      expect(r.status).toBe(403);
      expect(r.body.message).toContain('Premium or Ultimate');
    }
  });

  it("a project without a policy is paged through its nearest group's; its own wins; a change applies to the next alert", async () => {
    const g = await groupWithMembers('gpage');
    const drain = () => s.server.ctx.jobs.drain();
    const pagesTo = (who: string, title: string) =>
      smtp.messages.filter(
        (m) =>
          m.to.includes(`${who}@example.com`) && m.subject.includes('Paged:') && m.subject.includes(title),
      );
    const fire = async (projectId: number, title: string) => {
      const integration = await createIntegration(api, s.rootToken, projectId, {
        name: `http ${title}`,
        type: 'http',
      });
      const r = await notify(integration.url, integration.authorization_key, { title });
      expect(r.status).toBe(200);
    };
    const paged = (who: string, title: string) =>
      until(async () => {
        await drain();
        return pagesTo(who, title).length === 1;
      }, `the page of ${title} to ${who}`);

    // The group's policy pages its schedule's on-call member (a rotation of one, the reporter).
    const sched = await api.post(schedules(g.id), {
      token: g.tokens.maintainer,
      body: { name: 'Primary', timezone: 'UTC' },
    });
    const rot = await api.post(`${schedules(g.id)}/${sched.body.iid}/rotations`, {
      token: g.tokens.maintainer,
      body: {
        name: 'Always',
        starts_at: iso(Date.now() - 24 * HOUR),
        length: 1,
        length_unit: 'weeks',
        participants: [{ username: 'reporter-gpage' }],
      },
    });
    expect(rot.status).toBe(201);
    const pol = await api.post(policies(g.id), {
      token: g.tokens.maintainer,
      body: {
        name: 'Group night',
        rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', oncall_schedule_iid: sched.body.iid }],
      },
    });
    expect(pol.status, JSON.stringify(pol.body)).toBe(201);
    expect(pol.body.rules[0].oncall_schedule).toEqual({ iid: sched.body.iid, name: 'Primary' });

    const plain = await project(g.id);
    await fire(plain, 'gpage-plain-1');
    await paged('reporter-gpage', 'gpage-plain-1');
    // Its escalation shows the group's rule.
    const alerts = await api.get(`/api/v4/projects/${plain}/alert_management/alerts`, { token: s.rootToken });
    const esc = await api.get(
      `/api/v4/projects/${plain}/alert_management/alerts/${alerts.body[0].iid}/escalations`,
      { token: s.rootToken },
    );
    expect(esc.body).toMatchObject([
      {
        state: 'paged',
        oncall_schedule: { name: 'Primary' },
        pages: [{ user: { username: 'reporter-gpage' } }],
      },
    ]);

    // A project in a subgroup (no policy there either) uses the ancestor's.
    const sub = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Sub gpage', path: 'sub-gpage', parent_id: g.id },
    });
    const deep = await project(sub.body.id);
    await fire(deep, 'gpage-deep-1');
    await paged('reporter-gpage', 'gpage-deep-1');

    // A project with its own policy is paged through it, not the group's.
    const own = await project(g.id);
    const ownPolicy = await api.post(projectPolicies(own), {
      token: s.rootToken,
      body: {
        name: 'Own',
        rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'developer-gpage' }],
      },
    });
    expect(ownPolicy.status).toBe(201);
    await fire(own, 'gpage-own-1');
    await paged('developer-gpage', 'gpage-own-1');
    expect(pagesTo('reporter-gpage', 'gpage-own-1')).toEqual([]);

    // The nearest group's wins over the ancestor's: the subgroup gets one.
    const subPolicy = await api.post(policies(sub.body.id), {
      token: s.rootToken,
      body: {
        name: 'Sub',
        rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'developer-gpage' }],
      },
    });
    expect(subPolicy.status, JSON.stringify(subPolicy.body)).toBe(201);
    await fire(deep, 'gpage-deep-2');
    await paged('developer-gpage', 'gpage-deep-2');
    expect(pagesTo('reporter-gpage', 'gpage-deep-2')).toEqual([]);

    // Changing the group's policy: the next alert of the plain project pages the new target (the cached policy went).
    const changed = await api.put(`${policies(g.id)}/${pol.body.id}`, {
      token: g.tokens.maintainer,
      body: { rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'maintainer-gpage' }] },
    });
    expect(changed.status).toBe(200);
    await fire(plain, 'gpage-plain-2');
    await paged('maintainer-gpage', 'gpage-plain-2');
    expect(pagesTo('reporter-gpage', 'gpage-plain-2')).toEqual([]);

    // Deleting the group's policy: the next alert pages nobody.
    expect(
      (await api.delete(`${policies(g.id)}/${pol.body.id}`, { token: g.tokens.maintainer })).status,
    ).toBe(204);
    await fire(plain, 'gpage-plain-3');
    await drain();
    const list = await api.get(`/api/v4/projects/${plain}/alert_management/alerts?search=gpage-plain-3`, {
      token: s.rootToken,
    });
    expect(
      (
        await api.get(`/api/v4/projects/${plain}/alert_management/alerts/${list.body[0].iid}/escalations`, {
          token: s.rootToken,
        })
      ).body,
    ).toEqual([]);
  });

  it("a project moved out of the group is no longer paged through the group's policy (the cached policy goes)", async () => {
    const g = await groupWithMembers('gmove');
    const other = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Elsewhere gmove', path: 'elsewhere-gmove' },
    });
    const pol = await api.post(policies(g.id), {
      token: s.rootToken,
      body: {
        name: 'G',
        rules: [{ elapsed_time_seconds: 0, status: 'acknowledged', username: 'reporter-gmove' }],
      },
    });
    expect(pol.status).toBe(201);
    const p = await project(g.id);
    const escalationsOf = async (title: string) => {
      // The notify URL names the project's path, which the move changes: an integration of the moment.
      const integration = await createIntegration(api, s.rootToken, p, { name: title, type: 'http' });
      const r = await notify(integration.url, integration.authorization_key, { title });
      expect(r.status).toBe(200);
      await s.server.ctx.jobs.drain();
      const list = await api.get(`/api/v4/projects/${p}/alert_management/alerts?search=${title}`, {
        token: s.rootToken,
      });
      return (
        await api.get(`/api/v4/projects/${p}/alert_management/alerts/${list.body[0].iid}/escalations`, {
          token: s.rootToken,
        })
      ).body as { user: { username: string } | null }[];
    };
    expect((await escalationsOf('gmove-1')).map((e) => e.user?.username)).toEqual(['reporter-gmove']);
    const moved = await api.put(`/api/v4/projects/${p}/transfer`, {
      token: s.rootToken,
      body: { namespace: other.body.id },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await escalationsOf('gmove-2')).toEqual([]);
  });

  it('a member who leaves the group leaves its rotations and loses future overrides; a deleted group takes its own', async () => {
    const g = await groupWithMembers('gleave');
    const token = g.tokens.maintainer;
    const sched = await api.post(schedules(g.id), { token, body: { name: 'S', timezone: 'UTC' } });
    const path = `${schedules(g.id)}/${sched.body.iid}`;
    const start = Date.now() + 24 * HOUR;
    await api.post(`${path}/rotations`, {
      token,
      body: {
        name: 'R',
        starts_at: iso(start - 7 * 24 * HOUR),
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'developer-gleave' }, { username: 'reporter-gleave' }],
      },
    });
    const o = await api.post(`${path}/overrides`, {
      token,
      body: { username: 'developer-gleave', starts_at: iso(start), ends_at: iso(start + HOUR) },
    });
    expect(o.status).toBe(201);
    expect(
      (await api.delete(`/api/v4/groups/${g.id}/members/${g.ids.developer}`, { token: s.rootToken })).status,
    ).toBe(204);
    expect((await api.get(`${path}/overrides`, { token })).body).toEqual([]);
    const rotations = await api.get(`${path}/rotations`, { token });
    expect(
      rotations.body[0].participants.map((p: { user: { username: string } }) => p.user.username),
    ).toEqual(['reporter-gleave']);

    await api.post(policies(g.id), {
      token,
      body: { name: 'P', rules: [{ elapsed_time_seconds: 0, status: 'resolved', oncall_schedule_iid: 1 }] },
    });
    const db = s.server.ctx.db.kysely;
    const count = async (table: 'oncall_schedules' | 'escalation_policies') =>
      (await db.selectFrom(table).select('id').where('group_id', '=', g.id).execute()).length;
    expect([await count('oncall_schedules'), await count('escalation_policies')]).toEqual([1, 1]);
    expect((await api.delete(`/api/v4/groups/${g.id}`, { token: s.rootToken })).status).toBe(202);
    await until(async () => {
      await s.server.ctx.jobs.drain();
      return (await count('oncall_schedules')) === 0 && (await count('escalation_policies')) === 0;
    }, "the group's schedule and policy to go");
  });
});
