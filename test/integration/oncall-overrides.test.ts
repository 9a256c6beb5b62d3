import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser, projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver } from '../helpers/smtp.js';
import { until } from '../helpers/until.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (t: number) => new Date(t).toISOString();

/**
 * On-call overrides over REST: one user on call for a span across the whole schedule. The endpoints, validation,
 * permissions, who is on call and the shifts with overrides (the newest wins where they overlap), what happens to
 * the overrides of someone who leaves or is deleted, and an escalation paging the override's user by e-mail.
 */
describe.each(await databases())('on-call overrides (%s)', (database) => {
  let s: TestServer;
  let free: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let api: ReturnType<typeof http>;
  let project: Awaited<ReturnType<typeof projectWithMembers<keyof typeof LEVELS>>>;
  let outsider: { id: number; token: string };
  const ids: Record<string, number> = {};
  let n = 0;
  /** Midnight UTC two days ahead: the rotation's shifts are whole UTC days, the reporter's first. */
  let base0: number;
  const schedules = (v = 4) => `/api/v${v}/projects/${project.id}/incident_management/oncall_schedules`;
  const as = (who: keyof typeof LEVELS | 'root' | 'outsider', body?: unknown) => ({
    token: who === 'root' ? s.rootToken : who === 'outsider' ? outsider.token : project.tokens[who],
    ...(body !== undefined && { body }),
  });

  /** A UTC schedule with a daily rotation of the reporter and the developer (the reporter's day at base0); its path. */
  async function schedule(): Promise<string> {
    const r = await api.post(schedules(), as('maintainer', { name: `Overridden ${++n}`, timezone: 'UTC' }));
    expect(r.status).toBe(201);
    const path = `${schedules()}/${r.body.iid}`;
    const rot = await api.post(
      `${path}/rotations`,
      as('maintainer', {
        name: 'Daily',
        starts_at: iso(base0 - 10 * DAY),
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'reporter-ovr' }, { username: 'developer-ovr' }],
      }),
    );
    expect(rot.status, JSON.stringify(rot.body)).toBe(201);
    return path;
  }
  const override = (path: string, body: unknown) => api.post(`${path}/overrides`, as('maintainer', body));
  const onCall = async (path: string, at: number) => {
    const r = await api.get(`${path}/on_call?at=${encodeURIComponent(iso(at))}`, as('reporter'));
    expect(r.status).toBe(200);
    return r.body as { username: string; shifts: { override: { id: number } | null }[] }[];
  };
  const who = async (path: string, at: number) => (await onCall(path, at)).map((u) => u.username);

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    [s, free] = await Promise.all([
      startTestServer({ database, env: { SVC_TIER: 'premium', SVC_SMTP_URL: smtp.url } }),
      startTestServer({ database, env: { SVC_TIER: 'free' } }),
    ]);
    api = http(s.url);
    project = await projectWithMembers(s, 'Overrides', LEVELS, 'ovr');
    const members = await api.get<{ id: number; username: string }[]>(
      `/api/v4/projects/${project.id}/members`,
      { token: s.rootToken },
    );
    for (const m of members.body) ids[m.username.replace(/-ovr$/, '')] = m.id;
    outsider = await createUser(s, 'outsider-ovr');
    const now = s.clock.now().getTime();
    base0 = Math.floor(now / DAY) * DAY + 2 * DAY;
  });
  afterAll(async () => {
    await s?.stop();
    await free?.stop();
    await smtp?.close();
  });

  it('creates, lists (window, pages) and deletes overrides, in v4 and v5', async () => {
    const path = await schedule();
    const a = await override(path, {
      username: 'maintainer-ovr',
      starts_at: iso(base0 + 2 * HOUR),
      ends_at: iso(base0 + 4 * HOUR),
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body).toEqual({
      id: expect.any(Number),
      user: expect.objectContaining({ id: ids.maintainer, username: 'maintainer-ovr' }),
      starts_at: iso(base0 + 2 * HOUR).replace('.000Z', '+00:00'),
      ends_at: iso(base0 + 4 * HOUR).replace('.000Z', '+00:00'),
      created_at: expect.any(String),
    });
    // By user id, and a local time without an offset (the schedule's zone).
    const day = iso(base0 + DAY).slice(0, 10);
    const b = await override(path, {
      user_id: ids.guest,
      starts_at: `${day}T08:00`,
      ends_at: `${day}T09:30`,
    });
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    expect(Date.parse(b.body.starts_at)).toBe(base0 + DAY + 8 * HOUR);
    const c = await override(path, {
      user_id: ids.developer,
      starts_at: iso(base0 + 3 * DAY),
      ends_at: iso(base0 + 4 * DAY),
    });
    expect(c.status).toBe(201);

    const all = await api.get(`${path}/overrides`, as('reporter'));
    expect(all.status).toBe(200);
    expect(all.body.map((o: { id: number }) => o.id)).toEqual([a.body.id, b.body.id, c.body.id]);
    expect(all.headers.get('x-total')).toBe('3');
    expect((await api.get(`${path.replace('/api/v4/', '/api/v5/')}/overrides`, as('reporter'))).body).toEqual(
      all.body,
    );
    const page2 = await api.get(`${path}/overrides?per_page=2&page=2`, as('reporter'));
    expect(page2.body.map((o: { id: number }) => o.id)).toEqual([c.body.id]);
    expect(page2.headers.get('x-total-pages')).toBe('2');
    // The window keeps the overrides overlapping it: [base0 + 3h, base0 + 1d + 8h) holds a, not b (it starts there).
    const window = await api.get(
      `${path}/overrides?starts_at=${encodeURIComponent(iso(base0 + 3 * HOUR))}&ends_at=${encodeURIComponent(iso(base0 + DAY + 8 * HOUR))}`,
      as('reporter'),
    );
    expect(window.body.map((o: { id: number }) => o.id)).toEqual([a.body.id]);
    const since = await api.get(
      `${path}/overrides?starts_at=${encodeURIComponent(iso(base0 + 2 * DAY))}`,
      as('reporter'),
    );
    expect(since.body.map((o: { id: number }) => o.id)).toEqual([c.body.id]);
    expect((await api.get(`${path}/overrides?starts_at=yesterday`, as('reporter'))).status).toBe(400);

    expect((await api.delete(`${path}/overrides/${b.body.id}`, as('maintainer'))).status).toBe(204);
    expect((await api.delete(`${path}/overrides/${b.body.id}`, as('maintainer'))).status).toBe(404);
    expect((await api.get(`${path}/overrides`, as('reporter'))).body).toHaveLength(2);
    // Another schedule's override is not found through this one.
    const other = await schedule();
    expect((await api.delete(`${other}/overrides/${a.body.id}`, as('maintainer'))).status).toBe(404);
    // Deleting the schedule deletes its overrides with it.
    expect((await api.delete(path, as('maintainer'))).status).toBe(204);
    expect((await api.get(`${path}/overrides`, as('reporter'))).status).toBe(404);
  });

  it('refuses bad overrides with 400 in GitLab shape and adds nothing', async () => {
    const path = await schedule();
    const now = s.clock.now().getTime();
    const ok = { user_id: ids.developer, starts_at: iso(base0), ends_at: iso(base0 + HOUR) };
    const bad = async (body: unknown) => {
      const r = await override(path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      return r.body;
    };
    expect(await bad({ ...ok, ends_at: iso(base0 - HOUR) })).toEqual({
      message: { ends_at: ['must be after the start'] },
    });
    expect(await bad({ ...ok, ends_at: iso(base0) })).toEqual({
      message: { ends_at: ['must be after the start'] },
    });
    expect(await bad({ ...ok, ends_at: iso(base0 + 31 * DAY + 1000) })).toEqual({
      message: { ends_at: ['must be at most 31 days after the start'] },
    });
    expect(await bad({ ...ok, starts_at: iso(now - 2 * HOUR), ends_at: iso(now - HOUR) })).toEqual({
      message: { ends_at: ['must be in the future'] },
    });
    expect(await bad({ user_id: ids.developer })).toEqual({
      message: { starts_at: ["can't be blank"], ends_at: ["can't be blank"] },
    });
    expect(await bad({ ...ok, starts_at: 'soon' })).toEqual({
      message: { starts_at: ['is not a valid time'] },
    });
    expect(await bad({ starts_at: ok.starts_at, ends_at: ok.ends_at })).toEqual({
      message: { user: ['needs exactly one of username and user_id'] },
    });
    expect(await bad({ ...ok, username: 'developer-ovr' })).toEqual({
      message: { user: ['needs exactly one of username and user_id'] },
    });
    expect(await bad({ ...ok, user_id: 999_999 })).toEqual({ message: { user: ['999999 not found'] } });
    // As a rotation's participants: the user must be a member of the project.
    expect(await bad({ ...ok, user_id: outsider.id })).toEqual({
      message: { user: ['is not a member of the project: outsider-ovr'] },
    });
    expect((await bad({ ...ok, user_id: 'one' })).error).toBeDefined();
    expect((await api.get(`${path}/overrides`, as('reporter'))).body).toEqual([]);
    // An override that began in the past but has not ended is accepted; exactly 31 days is accepted.
    expect(
      (await override(path, { ...ok, starts_at: iso(now - HOUR), ends_at: iso(now + HOUR) })).status,
    ).toBe(201);
    expect((await override(path, { ...ok, ends_at: iso(base0 + 31 * DAY) })).status).toBe(201);
  });

  it('at most 1000 overrides a schedule that have not ended: 400 beyond, nothing added', async () => {
    const path = await schedule();
    const one = { user_id: ids.developer, starts_at: iso(base0), ends_at: iso(base0 + HOUR) };
    expect((await override(path, one)).status).toBe(201);
    const listed = await api.get(`${path}/overrides`, as('reporter'));
    const first = listed.body[0].id as number;
    const row = await s.server.ctx.db.kysely
      .selectFrom('oncall_overrides')
      .selectAll()
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    const copy = {
      schedule_id: row.schedule_id,
      user_id: row.user_id,
      starts_at: iso(base0),
      ends_at: iso(base0 + HOUR),
      created_by_id: row.created_by_id,
      created_at: iso(s.clock.now().getTime()),
    };
    // 998 more as rows (the API would take 998 requests), and one that has ended, which does not count.
    await s.server.ctx.db.kysely
      .insertInto('oncall_overrides')
      .values([
        ...Array.from({ length: 998 }, () => copy),
        { ...copy, starts_at: iso(base0 - 10 * DAY), ends_at: iso(base0 - 9 * DAY) },
      ])
      .execute();
    expect((await override(path, one)).status).toBe(201);
    const refused = await override(path, one);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      message: { base: ['A schedule may have at most 1000 overrides that have not ended'] },
    });
    expect((await api.get(`${path}/overrides?per_page=1`, as('reporter'))).headers.get('x-total')).toBe(
      '1001',
    );
    // Who is on call still answers, from the newest of the thousand.
    expect(await who(path, base0 + 1)).toEqual(['developer-ovr']);
  });

  it('enforces permissions: Reporter reads, Maintainer writes, others are refused; Free answers 403', async () => {
    const path = await schedule();
    const body = { user_id: ids.developer, starts_at: iso(base0), ends_at: iso(base0 + HOUR) };
    const made = await override(path, body);
    expect(made.status).toBe(201);
    const list = `${path}/overrides`;
    for (const [token, status] of [
      ['reporter', 200],
      ['developer', 200],
      ['maintainer', 200],
      ['guest', 403],
      ['outsider', 404],
    ] as const)
      expect((await api.get(list, as(token))).status, token).toBe(status);
    expect((await api.get(list)).status).toBe(404);
    for (const [token, status] of [
      ['guest', 403],
      ['reporter', 403],
      ['developer', 403],
      ['outsider', 404],
    ] as const) {
      expect((await api.post(list, as(token, body))).status, token).toBe(status);
      expect((await api.delete(`${list}/${made.body.id}`, as(token))).status, token).toBe(status);
    }
    expect((await api.post(list, { body })).status).toBe(404);
    expect((await api.get(list, as('maintainer'))).body.map((o: { id: number }) => o.id)).toEqual([
      made.body.id,
    ]);
    expect((await api.post(list, as('root', body))).status).toBe(201);

    // The Free tier: 403 naming the tier.
    const fp = await http(free.url).post('/api/v4/projects', { token: free.rootToken, body: { name: 'f' } });
    const freeList = `/api/v4/projects/${fp.body.id}/incident_management/oncall_schedules/1/overrides`;
    const refused = await http(free.url).get(freeList, { token: free.rootToken });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('Premium or Ultimate');
    expect((await http(free.url).post(freeList, { token: free.rootToken, body })).status).toBe(403);
  });

  it('on_call and shifts: the override user during the override, the newest override where two overlap', async () => {
    const path = await schedule();
    // The reporter's day is [base0, base0 + 1d). The maintainer takes 10:00-14:00; the guest, made later, 12:00-16:00.
    const m = await override(path, {
      username: 'maintainer-ovr',
      starts_at: iso(base0 + 10 * HOUR),
      ends_at: iso(base0 + 14 * HOUR),
    });
    const g = await override(path, {
      username: 'guest-ovr',
      starts_at: iso(base0 + 12 * HOUR),
      ends_at: iso(base0 + 16 * HOUR),
    });
    expect([m.status, g.status]).toEqual([201, 201]);
    expect(await who(path, base0 + 10 * HOUR - 1)).toEqual(['reporter-ovr']);
    expect(await who(path, base0 + 10 * HOUR)).toEqual(['maintainer-ovr']);
    expect(await who(path, base0 + 12 * HOUR - 1)).toEqual(['maintainer-ovr']);
    expect(await who(path, base0 + 12 * HOUR)).toEqual(['guest-ovr']);
    expect(await who(path, base0 + 14 * HOUR)).toEqual(['guest-ovr']);
    expect(await who(path, base0 + 16 * HOUR)).toEqual(['reporter-ovr']);
    // The next day is the developer's; the overrides are over.
    expect(await who(path, base0 + DAY + HOUR)).toEqual(['developer-ovr']);
    const during = await onCall(path, base0 + 11 * HOUR);
    expect(during[0]!.shifts).toEqual([
      {
        rotation: null,
        override: { id: m.body.id },
        starts_at: iso(base0 + 10 * HOUR).replace('.000Z', '+00:00'),
        ends_at: iso(base0 + 12 * HOUR).replace('.000Z', '+00:00'),
      },
    ]);

    const shifts = await api.get(
      `${path}/shifts?from=${encodeURIComponent(iso(base0))}&to=${encodeURIComponent(iso(base0 + 2 * DAY))}`,
      as('reporter'),
    );
    expect(shifts.status).toBe(200);
    const h = (t: number) => (t - base0) / HOUR;
    expect(
      shifts.body.map(
        (x: {
          user: { username: string };
          rotation: { name: string } | null;
          override: { id: number } | null;
          starts_at: string;
          ends_at: string;
        }) => [
          x.user.username,
          x.rotation?.name ?? x.override?.id,
          h(Date.parse(x.starts_at)),
          h(Date.parse(x.ends_at)),
        ],
      ),
    ).toEqual([
      ['reporter-ovr', 'Daily', 0, 10],
      ['maintainer-ovr', m.body.id, 10, 12],
      ['guest-ovr', g.body.id, 12, 16],
      ['reporter-ovr', 'Daily', 16, 24],
      ['developer-ovr', 'Daily', 24, 48],
    ]);
    expect(shifts.headers.get('x-total')).toBe('5');
    // Pages of the listing follow the same order.
    const second = await api.get(
      `${path}/shifts?from=${encodeURIComponent(iso(base0))}&to=${encodeURIComponent(iso(base0 + 2 * DAY))}&per_page=2&page=2`,
      as('reporter'),
    );
    expect(second.body.map((x: { user: { username: string } }) => x.user.username)).toEqual([
      'guest-ovr',
      'reporter-ovr',
    ]);

    // Deleting the newer override gives its time back to the older one, then to the rotation.
    expect((await api.delete(`${path}/overrides/${g.body.id}`, as('maintainer'))).status).toBe(204);
    expect(await who(path, base0 + 13 * HOUR)).toEqual(['maintainer-ovr']);
    expect(await who(path, base0 + 15 * HOUR)).toEqual(['reporter-ovr']);
    // A swap between the two participants is a pair of overrides.
    const swapA = await override(path, {
      username: 'developer-ovr',
      starts_at: iso(base0 + 18 * HOUR),
      ends_at: iso(base0 + DAY),
    });
    const swapB = await override(path, {
      username: 'reporter-ovr',
      starts_at: iso(base0 + DAY),
      ends_at: iso(base0 + DAY + 6 * HOUR),
    });
    expect([swapA.status, swapB.status]).toEqual([201, 201]);
    expect(await who(path, base0 + 20 * HOUR)).toEqual(['developer-ovr']);
    expect(await who(path, base0 + DAY + HOUR)).toEqual(['reporter-ovr']);
    expect(await who(path, base0 + DAY + 7 * HOUR)).toEqual(['developer-ovr']);
  });

  it('someone who leaves the project loses their future overrides; a deleted user loses all', async () => {
    const path = await schedule();
    const leaver = await createUser(s, 'leaver-ovr');
    const member = `/api/v4/projects/${project.id}/members`;
    expect(
      (await api.post(member, { token: s.rootToken, body: { user_id: leaver.id, access_level: 30 } })).status,
    ).toBe(201);
    const t = s.clock.now().getTime();
    const make = async (from: number, to: number) => {
      const r = await override(path, { user_id: leaver.id, starts_at: iso(from), ends_at: iso(to) });
      expect(r.status).toBe(201);
      return r.body.id as number;
    };
    const past = await make(t + 10 * 60_000, t + 20 * 60_000);
    const running = await make(t + HOUR, t + 3 * HOUR);
    const future = await make(t + 5 * HOUR, t + 6 * HOUR);
    // Someone else's override on the same schedule is left alone.
    const kept = await override(path, {
      username: 'maintainer-ovr',
      starts_at: iso(t + 7 * HOUR),
      ends_at: iso(t + 8 * HOUR),
    });
    s.clock.advance(90 * 60_000);
    const removedAt = s.clock.now().getTime();
    expect(await who(path, removedAt)).toEqual(['leaver-ovr']);
    expect((await api.delete(`${member}/${leaver.id}`, { token: s.rootToken })).status).toBe(204);
    const after = (await api.get(`${path}/overrides`, as('reporter'))).body as {
      id: number;
      starts_at: string;
      ends_at: string;
    }[];
    expect(after.map((o) => o.id)).toEqual([past, running, kept.body.id]);
    expect(after.map((o) => o.id)).not.toContain(future);
    expect(Date.parse(after[0]!.ends_at)).toBe(t + 20 * 60_000);
    // The override in progress ended when they left (the clock stands still between the two requests, or nearly).
    const runningEnd = Date.parse(after[1]!.ends_at);
    expect(runningEnd).toBeGreaterThanOrEqual(removedAt);
    expect(runningEnd).toBeLessThan(t + 3 * HOUR);
    expect(await who(path, s.clock.now().getTime() + 1000)).not.toContain('leaver-ovr');

    // Rejoining does not bring the dropped override back.
    expect(
      (await api.post(member, { token: s.rootToken, body: { user_id: leaver.id, access_level: 30 } })).status,
    ).toBe(201);
    expect(await who(path, t + 5.5 * HOUR)).not.toContain('leaver-ovr');
    const again = await make(t + 9 * HOUR, t + 10 * HOUR);
    expect(await who(path, t + 9.5 * HOUR)).toEqual(['leaver-ovr']);

    // A deleted user's overrides go with them, past ones too; the rotation is on call again.
    expect((await api.delete(`/api/v4/users/${leaver.id}`, { token: s.rootToken })).status).toBe(204);
    const left = (await api.get(`${path}/overrides`, as('reporter'))).body as { id: number }[];
    expect(left.map((o) => o.id)).toEqual([kept.body.id]);
    expect(left.map((o) => o.id)).not.toContain(again);
    expect(await who(path, t + 9.5 * HOUR)).not.toContain('leaver-ovr');
  });

  it('leaving the group a project inherits members from drops the overrides, unless still a member another way', async () => {
    const g = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Override team', path: 'override-team' },
    });
    expect(g.status).toBe(201);
    const [stays, goes] = [await createUser(s, 'stays-ovr'), await createUser(s, 'goes-ovr')];
    for (const u of [stays, goes])
      await api.post(`/api/v4/groups/${g.body.id}/members`, {
        token: s.rootToken,
        body: { user_id: u.id, access_level: 30 },
      });
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'Grouped overrides', namespace_id: g.body.id },
    });
    // `stays` is also a member of the project itself.
    await api.post(`/api/v4/projects/${p.body.id}/members`, {
      token: s.rootToken,
      body: { user_id: stays.id, access_level: 20 },
    });
    const url = `/api/v4/projects/${p.body.id}/incident_management/oncall_schedules`;
    const sched = await api.post(url, { token: s.rootToken, body: { name: 'G', timezone: 'UTC' } });
    const path = `${url}/${sched.body.iid}`;
    const made: number[] = [];
    for (const [u, h] of [
      [goes, 1],
      [stays, 3],
    ] as const) {
      const r = await api.post(`${path}/overrides`, {
        token: s.rootToken,
        body: { user_id: u.id, starts_at: iso(base0 + h * HOUR), ends_at: iso(base0 + (h + 1) * HOUR) },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      made.push(r.body.id);
    }
    for (const u of [stays, goes])
      expect(
        (await api.delete(`/api/v4/groups/${g.body.id}/members/${u.id}`, { token: s.rootToken })).status,
      ).toBe(204);
    const left = await api.get(`${path}/overrides`, { token: s.rootToken });
    expect(left.body.map((o: { user: { username: string } }) => o.user.username)).toEqual(['stays-ovr']);
    const at = await api.get(`${path}/on_call?at=${encodeURIComponent(iso(base0 + 3.5 * HOUR))}`, {
      token: s.rootToken,
    });
    expect(at.body.map((u: { username: string }) => u.username)).toEqual(['stays-ovr']);
  });

  it('an alert pages the override user, not the rotation; an override made after the alert fired counts', async () => {
    const { api: a, id, tokens } = await projectWithMembers(s, 'esc-override', LEVELS, 'eo');
    const sched = `/api/v4/projects/${id}/incident_management/oncall_schedules`;
    const made = await a.post(sched, {
      token: tokens.maintainer,
      body: { name: 'Primary', timezone: 'UTC' },
    });
    expect(made.status).toBe(201);
    const path = `${sched}/${made.body.iid}`;
    const t0 = s.clock.now().getTime();
    // The developer is always on call by the rotation.
    const rot = await a.post(`${path}/rotations`, {
      token: tokens.maintainer,
      body: {
        name: 'Always',
        starts_at: iso(t0 - DAY),
        length: 4,
        length_unit: 'weeks',
        participants: [{ username: 'developer-eo' }],
      },
    });
    expect(rot.status).toBe(201);
    const reporterOverride = await a.post(`${path}/overrides`, {
      token: tokens.maintainer,
      body: { username: 'reporter-eo', starts_at: iso(t0 - 60_000), ends_at: iso(t0 + HOUR) },
    });
    expect(reporterOverride.status).toBe(201);
    const policy = await a.post(`/api/v4/projects/${id}/incident_management/escalation_policies`, {
      token: tokens.maintainer,
      body: {
        name: 'P',
        rules: [
          { elapsed_time_seconds: 0, status: 'resolved', oncall_schedule_iid: made.body.iid },
          { elapsed_time_seconds: 120, status: 'resolved', oncall_schedule_iid: made.body.iid },
        ],
      },
    });
    expect(policy.status).toBe(201);
    const integration = await createIntegration(a, s.rootToken, id, { name: 'http', type: 'http' });
    expect(
      (await notify(integration.url, integration.authorization_key, { title: 'overridden' })).status,
    ).toBe(200);
    const pagesTo = (user: string) =>
      smtp.messages.filter(
        (m) =>
          m.to.includes(`${user}-eo@example.com`) &&
          m.subject.includes('Paged:') &&
          m.subject.includes('overridden'),
      );
    await until(async () => {
      await s.server.ctx.jobs.drain();
      return pagesTo('reporter').length === 1;
    }, 'the page to the override user');
    expect(pagesTo('developer')).toHaveLength(0);

    // After the alert fired, the maintainer takes over from a minute on: the 120 s rule pages them.
    const later = await a.post(`${path}/overrides`, {
      token: tokens.maintainer,
      body: { username: 'maintainer-eo', starts_at: iso(t0 + 60_000), ends_at: iso(t0 + 2 * HOUR) },
    });
    expect(later.status).toBe(201);
    s.clock.advance(121_000);
    await until(async () => {
      await s.server.ctx.jobs.drain();
      return pagesTo('maintainer').length === 1;
    }, 'the page to the later override user');
    expect(pagesTo('reporter')).toHaveLength(1);
    expect(pagesTo('developer')).toHaveLength(0);
    const state = await a.get(`/api/v4/projects/${id}/alert_management/alerts/1/escalations`, {
      token: tokens.reporter,
    });
    expect(
      state.body.map((e: { pages: { user: { username: string } }[] }) => e.pages.map((p) => p.user.username)),
    ).toEqual([['reporter-eo'], ['maintainer-eo']]);
  });
});
