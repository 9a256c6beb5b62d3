import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;

/**
 * On-call schedules over REST (Premium and Ultimate): schedules and rotations, validation, permissions
 * from the outside, who is on call at given times (a DST change included) and the shifts listing, in v4 and v5.
 */
describe.each(await databases())('on-call schedules (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let project: Awaited<ReturnType<typeof projectWithMembers<keyof typeof LEVELS>>>;
  let outsider: string;
  const ids: Record<string, number> = {};
  let n = 0;
  const base = (v = 4) => `/api/v${v}/projects/${project.id}/incident_management/oncall_schedules`;
  const as = (who: keyof typeof LEVELS | 'root' | 'outsider', body?: unknown) => ({
    token: who === 'root' ? s.rootToken : who === 'outsider' ? outsider : project.tokens[who],
    ...(body !== undefined && { body }),
  });

  /** A new schedule (by the Maintainer); its iid. */
  async function schedule(timezone = 'Europe/Berlin'): Promise<number> {
    const r = await api.post(base(), as('maintainer', { name: `Schedule ${++n}`, timezone }));
    expect(r.status).toBe(201);
    return r.body.iid;
  }

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium' } });
    api = http(s.url);
    project = await projectWithMembers(s, 'Paged', LEVELS, 'oncall');
    const members = await api.get<{ id: number; username: string }[]>(
      `/api/v4/projects/${project.id}/members`,
      {
        token: s.rootToken,
      },
    );
    for (const m of members.body) ids[m.username.replace(/-oncall$/, '')] = m.id;
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'outsider', name: 'Out', email: 'out@example.com', password: 'password-123' },
    });
    ids.outsider = u.body.id;
    outsider = (
      await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
  });
  afterAll(() => s?.stop());

  it('creates, lists, shows, changes and deletes schedules (Maintainer)', async () => {
    const created = await api.post(
      base(),
      as('maintainer', { name: ' Primary ', timezone: 'america/new_york', description: 'Ops' }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      iid: expect.any(Number),
      name: 'Primary',
      description: 'Ops',
      timezone: 'America/New_York',
      rotations: [],
    });
    const iid = created.body.iid;
    expect((await api.get(`${base()}/${iid}`, as('reporter'))).body).toEqual(created.body);
    expect((await api.get(base(), as('reporter'))).body).toContainEqual(created.body);
    // The same in v5.
    expect((await api.get(`${base(5)}/${iid}`, as('reporter'))).body).toEqual(created.body);

    const changed = await api.put(
      `${base()}/${iid}`,
      as('maintainer', { description: null, name: 'Renamed' }),
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      iid,
      name: 'Renamed',
      description: null,
      timezone: 'America/New_York',
    });

    expect((await api.delete(`${base()}/${iid}`, as('maintainer'))).status).toBe(204);
    expect((await api.get(`${base()}/${iid}`, as('maintainer'))).status).toBe(404);
    expect((await api.delete(`${base()}/${iid}`, as('maintainer'))).status).toBe(404);
  });

  it('refuses bad schedules with 400 and changes nothing', async () => {
    const before = (await api.get(base(), as('maintainer'))).body;
    const bad = async (body: unknown) => {
      const r = await api.post(base(), as('maintainer', body));
      expect(r.status, JSON.stringify(body)).toBe(400);
      return r.body;
    };
    expect(await bad({ timezone: 'UTC' })).toEqual({ message: { name: ["can't be blank"] } });
    expect(await bad({ name: '  ', timezone: 'UTC' })).toEqual({ message: { name: ["can't be blank"] } });
    expect(await bad({ name: 'x'.repeat(201), timezone: 'UTC' })).toEqual({
      message: { name: ['is too long (maximum is 200 characters)'] },
    });
    expect(await bad({ name: 'No zone' })).toEqual({ message: { timezone: ["can't be blank"] } });
    expect(await bad({ name: 'Bad zone', timezone: 'Mars/Olympus' })).toEqual({
      message: { timezone: ['is not a valid IANA time zone (such as Europe/Berlin)'] },
    });
    expect(await bad({ name: 'Offset', timezone: '+02:00' })).toMatchObject({
      message: { timezone: [expect.any(String)] },
    });
    expect((await bad({ name: 'Typed', timezone: 'UTC', description: { x: 1 } })).error).toBeDefined();
    const iid = await schedule();
    const taken = (await api.get(`${base()}/${iid}`, as('maintainer'))).body.name;
    expect(await bad({ name: taken, timezone: 'UTC' })).toEqual({
      message: { name: ['has already been taken'] },
    });
    const other = await schedule();
    const rename = await api.put(`${base()}/${other}`, as('maintainer', { name: taken }));
    expect(rename.status).toBe(400);
    const zone = await api.put(`${base()}/${other}`, as('maintainer', { timezone: 'Nowhere' }));
    expect(zone.status).toBe(400);
    const after = (await api.get(base(), as('maintainer'))).body;
    expect(after).toHaveLength(before.length + 2);
    expect(after.at(-1)).toMatchObject({ iid: other, timezone: 'Europe/Berlin' });
  });

  it('enforces permissions from the outside: Reporter reads, Maintainer writes, others are refused', async () => {
    const iid = await schedule();
    const sched = `${base()}/${iid}`;
    const rot = {
      name: 'R',
      starts_at: '2026-01-01T09:00',
      length: 1,
      length_unit: 'days',
      participants: [{ user_id: ids.reporter }],
    };
    const r = await api.post(`${sched}/rotations`, as('maintainer', rot));
    expect(r.status).toBe(201);
    const reads = [
      base(),
      sched,
      `${sched}/rotations`,
      `${sched}/rotations/${r.body.id}`,
      `${sched}/on_call`,
      `${sched}/shifts`,
    ];
    for (const path of reads) {
      expect((await api.get(path, as('reporter'))).status, path).toBe(200);
      expect((await api.get(path, as('developer'))).status, path).toBe(200);
      expect((await api.get(path, as('guest'))).status, path).toBe(403);
      expect((await api.get(path, as('outsider'))).status, path).toBe(404);
      expect((await api.get(path)).status, path).toBe(404);
    }
    const writes: [string, string, unknown][] = [
      ['post', base(), { name: 'Denied', timezone: 'UTC' }],
      ['put', sched, { name: 'Denied' }],
      ['delete', sched, undefined],
      ['post', `${sched}/rotations`, { ...rot, name: 'Denied' }],
      ['put', `${sched}/rotations/${r.body.id}`, { name: 'Denied' }],
      ['delete', `${sched}/rotations/${r.body.id}`, undefined],
    ];
    for (const [method, path, body] of writes)
      for (const [who, status] of [
        ['guest', 403],
        ['reporter', 403],
        ['developer', 403],
        ['outsider', 404],
      ] as const) {
        const res = await (api as unknown as Record<string, typeof api.get>)[method]!(path, as(who, body));
        expect(res.status, `${who} ${method} ${path}`).toBe(status);
      }
    // Nothing changed.
    const after = await api.get(sched, as('maintainer'));
    expect(after.body.name).toMatch(/^Schedule /);
    expect(after.body.rotations.map((x: { name: string }) => x.name)).toEqual(['R']);
  });

  it('creates rotations with participants by username or id, in order; GitLab field names', async () => {
    const iid = await schedule();
    const r = await api.post(
      `${base()}/${iid}/rotations`,
      as('maintainer', {
        name: 'Weekdays',
        starts_at: '2026-03-02T09:00',
        ends_at: { date: '2026-12-31', time: '18:00' },
        length: 1,
        length_unit: 'days',
        active_period: { start_time: '09:00', end_time: '17:00' },
        participants: [
          { username: 'developer-oncall' },
          { user_id: ids.maintainer },
          { username: 'guest-oncall' },
        ],
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      name: 'Weekdays',
      starts_at: '2026-03-02T09:00:00+01:00',
      ends_at: '2026-12-31T18:00:00+01:00',
      length: 1,
      length_unit: 'days',
      active_period: { start_time: '09:00', end_time: '17:00' },
      participants: [
        { user: expect.objectContaining({ id: ids.developer, username: 'developer-oncall' }), position: 0 },
        { user: expect.objectContaining({ id: ids.maintainer, username: 'maintainer-oncall' }), position: 1 },
        { user: expect.objectContaining({ id: ids.guest, username: 'guest-oncall' }), position: 2 },
      ],
    });
    expect(Object.keys(r.body.participants[0].user).sort()).toEqual([
      'avatar_url',
      'id',
      'locked',
      'name',
      'state',
      'username',
      'web_url',
    ]);
    const path = `${base()}/${iid}/rotations/${r.body.id}`;
    expect((await api.get(path, as('reporter'))).body).toEqual(r.body);
    expect((await api.get(`${base(5)}/${iid}/rotations`, as('reporter'))).body).toEqual([r.body]);
    expect((await api.get(`${base()}/${iid}`, as('reporter'))).body.rotations).toEqual([r.body]);

    // An instant with an offset is kept as that instant; participants given replace the list.
    const changed = await api.put(
      path,
      as('maintainer', {
        starts_at: '2026-03-02T06:00:00Z',
        ends_at: null,
        active_period: null,
        length: 2,
        length_unit: 'weeks',
        participants: [{ user_id: ids.reporter }],
      }),
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: 'Weekdays',
      starts_at: '2026-03-02T07:00:00+01:00',
      ends_at: null,
      length: 2,
      length_unit: 'weeks',
      active_period: null,
      participants: [{ user: expect.objectContaining({ id: ids.reporter }), position: 0 }],
    });
    expect((await api.delete(path, as('maintainer'))).status).toBe(204);
    expect((await api.get(path, as('maintainer'))).status).toBe(404);
  });

  it('refuses bad rotations with 400 and changes nothing', async () => {
    const iid = await schedule();
    const url = `${base()}/${iid}/rotations`;
    const good = {
      name: 'Good',
      starts_at: '2026-03-02T09:00',
      length: 1,
      length_unit: 'days',
      participants: [{ user_id: ids.developer }],
    };
    const bad = async (change: Record<string, unknown>, field: string) => {
      const res = await api.post(url, as('maintainer', { ...good, ...change }));
      expect(res.status, JSON.stringify(change)).toBe(400);
      if (field === 'error') expect(res.body.error).toBeDefined();
      else expect(Object.keys(res.body.message), JSON.stringify(res.body)).toContain(field);
      return res.body;
    };
    await bad({ name: '' }, 'name');
    await bad({ name: 'n'.repeat(201) }, 'name');
    await bad({ starts_at: 'soon' }, 'starts_at');
    await bad({ starts_at: { date: '2026-02-30', time: '09:00' } }, 'starts_at');
    await bad({ starts_at: undefined }, 'starts_at');
    await bad({ ends_at: '2026-03-02T08:00' }, 'ends_at');
    await bad({ ends_at: '2026-03-02T09:00' }, 'ends_at');
    await bad({ length: 0 }, 'length');
    await bad({ length: 1001 }, 'length');
    await bad({ length: 1.5 }, 'error');
    await bad({ length_unit: 'months' }, 'length_unit');
    await bad(
      { length_unit: 'hours', active_period: { start_time: '09:00', end_time: '17:00' } },
      'active_period',
    );
    await bad({ active_period: { start_time: '09:00' } }, 'active_period');
    await bad({ active_period: { start_time: '24:00', end_time: '08:00' } }, 'active_period');
    await bad({ active_period: { start_time: '9:00', end_time: '17:00' } }, 'active_period');
    await bad({ active_period: { start_time: '09:00', end_time: '09:00' } }, 'active_period');
    await bad({ participants: [] }, 'participants');
    await bad({ participants: undefined }, 'participants');
    await bad(
      { participants: Array.from({ length: 101 }, () => ({ user_id: ids.developer })) },
      'participants',
    );
    await bad(
      { participants: [{ user_id: ids.developer }, { username: 'developer-oncall' }] },
      'participants',
    );
    await bad({ participants: [{ username: 'nobody-here' }] }, 'participants');
    await bad({ participants: [{ user_id: 999_999 }] }, 'participants');
    await bad({ participants: [{}] }, 'participants');
    await bad({ participants: [{ user_id: ids.developer, username: 'developer-oncall' }] }, 'participants');
    // GitLab: participants must be members of the project.
    expect(await bad({ participants: [{ username: 'outsider' }] }, 'participants')).toEqual({
      message: { participants: ['are not members of the project: outsider'] },
    });
    expect((await api.get(url, as('maintainer'))).body).toEqual([]);

    const ok = await api.post(url, as('maintainer', good));
    expect(ok.status).toBe(201);
    expect((await api.post(url, as('maintainer', good))).body).toEqual({
      message: { name: ['has already been taken'] },
    });
    const put = await api.put(
      `${url}/${ok.body.id}`,
      as('maintainer', { participants: [{ username: 'outsider' }] }),
    );
    expect(put.status).toBe(400);
    expect((await api.get(`${url}/${ok.body.id}`, as('maintainer'))).body).toEqual(ok.body);
    expect((await api.get(`${url}/999999`, as('maintainer'))).status).toBe(404);
    expect((await api.get(`${base()}/999999/rotations`, as('maintainer'))).status).toBe(404);
  });

  it('accepts members inherited from the project group as participants', async () => {
    const g = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: 'Ops team', path: 'ops-team' },
    });
    await api.post(`/api/v4/groups/${g.body.id}/members`, {
      token: s.rootToken,
      body: { user_id: ids.outsider, access_level: 10 },
    });
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'Grouped', namespace_id: g.body.id },
    });
    const url = `/api/v4/projects/${p.body.id}/incident_management/oncall_schedules`;
    const sched = await api.post(url, { token: s.rootToken, body: { name: 'G', timezone: 'UTC' } });
    const r = await api.post(`${url}/${sched.body.iid}/rotations`, {
      token: s.rootToken,
      body: {
        name: 'R',
        starts_at: '2026-01-01T00:00Z',
        length: 8,
        length_unit: 'hours',
        participants: [{ username: 'outsider' }],
      },
    });
    expect(r.status).toBe(201);
    // The Guest of the group may not read the schedule (Reporter).
    expect((await api.get(url, { token: outsider })).status).toBe(403);
  });

  it('answers who is on call at given times, across rotations and a DST change, and lists shifts', async () => {
    const iid = await schedule('Europe/Berlin');
    const url = `${base()}/${iid}`;
    // Daily from Friday 2026-03-27 09:00 CET: developer, maintainer, developer... (Berlin moves to CEST on the 29th).
    const daily = await api.post(
      `${url}/rotations`,
      as('maintainer', {
        name: 'Daily',
        starts_at: '2026-03-27T09:00',
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'developer-oncall' }, { username: 'maintainer-oncall' }],
      }),
    );
    // Office hours, weekly, ending in April.
    const office = await api.post(
      `${url}/rotations`,
      as('maintainer', {
        name: 'Office',
        starts_at: '2026-03-23T00:00',
        ends_at: '2026-04-06T00:00',
        length: 1,
        length_unit: 'weeks',
        active_period: { start_time: '09:00', end_time: '17:00' },
        participants: [{ username: 'reporter-oncall' }, { username: 'developer-oncall' }],
      }),
    );
    expect([daily.status, office.status]).toEqual([201, 201]);
    const onCall = async (at: string, v = 4) => {
      const r = await api.get(`${base(v)}/${iid}/on_call?at=${encodeURIComponent(at)}`, as('reporter'));
      expect(r.status).toBe(200);
      return r.body as {
        username: string;
        shifts: { rotation: { name: string }; starts_at: string; ends_at: string }[];
      }[];
    };
    expect(await onCall('2026-03-27T07:59:59Z')).toEqual([]);
    expect((await onCall('2026-03-27T08:00:00Z')).map((u) => u.username)).toEqual([
      'developer-oncall',
      'reporter-oncall',
    ]);
    // 09:30 CEST on the 29th (07:30Z): the third daily shift, which began at 09:00 local time.
    const sunday = await onCall('2026-03-29T07:30:00Z');
    expect(sunday).toEqual([
      expect.objectContaining({
        id: ids.developer,
        username: 'developer-oncall',
        shifts: [
          {
            rotation: { id: daily.body.id, name: 'Daily' },
            override: null,
            starts_at: '2026-03-29T09:00:00+02:00',
            ends_at: '2026-03-30T09:00:00+02:00',
          },
        ],
      }),
      expect.objectContaining({
        username: 'reporter-oncall',
        shifts: [
          {
            rotation: { id: office.body.id, name: 'Office' },
            override: null,
            starts_at: '2026-03-29T09:00:00+02:00',
            ends_at: '2026-03-29T17:00:00+02:00',
          },
        ],
      }),
    ]);
    // An hour earlier (08:30 CEST): still the second daily shift (a 23-hour one); outside office hours.
    expect(await onCall('2026-03-29T06:30:00Z')).toEqual([
      expect.objectContaining({
        username: 'maintainer-oncall',
        shifts: [
          expect.objectContaining({
            starts_at: '2026-03-28T09:00:00+01:00',
            ends_at: '2026-03-29T09:00:00+02:00',
          }),
        ],
      }),
    ]);
    // A local time without an offset is the schedule's; exactly at a handover, the next shift.
    expect((await onCall('2026-03-30T09:00')).map((u) => u.username)).toEqual([
      'maintainer-oncall',
      'developer-oncall',
    ]);
    // One user in two rotations is listed once, with both shifts (week 2 of the office rotation is developer's).
    const both = await onCall('2026-03-31T10:00:00+02:00', 5);
    expect(both.map((u) => u.username)).toEqual(['developer-oncall']);
    expect(both[0]!.shifts.map((x) => x.rotation.name)).toEqual(['Daily', 'Office']);
    // After the office rotation ended.
    expect((await onCall('2026-04-08T10:00:00+02:00')).map((u) => u.username)).toEqual(['developer-oncall']);
    expect((await api.get(`${url}/on_call?at=yesterday`, as('reporter'))).status).toBe(400);
    expect((await api.get(`${url}/on_call`, as('reporter'))).status).toBe(200);

    // The escalation engine's port.
    const scheduleId = (await s.server.ctx.oncall.scheduleByIid(project.id, iid))!.id;
    expect(await s.server.ctx.oncall.onCallUserIds(scheduleId, new Date('2026-03-29T07:30:00Z'))).toEqual([
      ids.developer,
      ids.reporter,
    ]);
    expect(
      (await s.server.ctx.oncall.usersOnCall(scheduleId, new Date('2026-03-29T06:30:00Z'))).map(
        (u) => u.username,
      ),
    ).toEqual(['maintainer-oncall']);

    // Shifts overlapping a window, ordered by start.
    const shifts = await api.get(
      `${url}/shifts?from=${encodeURIComponent('2026-03-28T00:00')}&to=${encodeURIComponent('2026-03-30T00:00')}`,
      as('reporter'),
    );
    expect(shifts.status).toBe(200);
    expect(
      shifts.body.map(
        (x: {
          rotation: { name: string };
          user: { username: string };
          starts_at: string;
          ends_at: string;
        }) => [x.rotation.name, x.user.username, x.starts_at, x.ends_at],
      ),
    ).toEqual([
      ['Daily', 'developer-oncall', '2026-03-27T09:00:00+01:00', '2026-03-28T09:00:00+01:00'],
      ['Daily', 'maintainer-oncall', '2026-03-28T09:00:00+01:00', '2026-03-29T09:00:00+02:00'],
      ['Office', 'reporter-oncall', '2026-03-28T09:00:00+01:00', '2026-03-28T17:00:00+01:00'],
      ['Daily', 'developer-oncall', '2026-03-29T09:00:00+02:00', '2026-03-30T09:00:00+02:00'],
      ['Office', 'reporter-oncall', '2026-03-29T09:00:00+02:00', '2026-03-29T17:00:00+02:00'],
    ]);
    const window = async (q: string) => (await api.get(`${url}/shifts?${q}`, as('reporter'))).status;
    expect(await window('from=2026-03-01T00:00Z&to=2026-04-01T00:00Z')).toBe(200);
    expect(await window('from=2026-03-01T00:00Z&to=2026-04-02T00:00Z')).toBe(400);
    expect(await window('from=2026-03-02T00:00Z&to=2026-03-01T00:00Z')).toBe(400);
    expect(await window('from=later')).toBe(400);
  });

  it('at most 50 rotations a schedule (400 beyond, nothing added); shifts come a bounded page at a time', async () => {
    const iid = await schedule('UTC');
    const url = `${base()}/${iid}`;
    const rotation = (i: number) =>
      as('maintainer', {
        name: `Hourly ${i}`,
        starts_at: '2026-01-01T00:00:00Z',
        length: 1,
        length_unit: 'hours',
        participants: [{ username: 'reporter-oncall' }, { username: 'developer-oncall' }],
      });
    for (let i = 0; i < 50; i++) expect((await api.post(`${url}/rotations`, rotation(i))).status).toBe(201);
    const over = await api.post(`${url}/rotations`, rotation(50));
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ message: { base: ['A schedule may have at most 50 rotations'] } });
    expect((await api.get(`${url}/rotations`, as('reporter'))).body).toHaveLength(50);

    // 31 days of 50 hourly rotations are 37,200 shifts: one page of them, in order, and the way to the next.
    const range = 'from=2026-03-01T00:00Z&to=2026-04-01T00:00Z';
    const first = await api.get(`${url}/shifts?${range}&per_page=100`, as('reporter'));
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(100);
    expect(first.body[0]).toMatchObject({
      rotation: { name: 'Hourly 0' },
      starts_at: '2026-03-01T00:00:00+00:00',
    });
    expect(first.body[99]).toMatchObject({
      rotation: { name: 'Hourly 49' },
      starts_at: '2026-03-01T01:00:00+00:00',
    });
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.headers.get('link')).toContain('rel="next"');
    const third = await api.get(`${url}/shifts?${range}&per_page=100&page=3`, as('reporter'));
    expect(third.body).toHaveLength(100);
    expect(third.body[0]).toMatchObject({
      rotation: { name: 'Hourly 0' },
      starts_at: '2026-03-01T04:00:00+00:00',
    });
    expect(third.headers.get('x-prev-page')).toBe('2');
    // The default page is 20.
    expect((await api.get(`${url}/shifts?${range}`, as('reporter'))).body).toHaveLength(20);
    // The last page: no next one (the total is above 10,000: not given, as GitLab's lists).
    const last = await api.get(`${url}/shifts?${range}&per_page=100&page=372`, as('reporter'));
    expect(last.body).toHaveLength(100);
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('x-total')).toBeNull();
    // Shifts are counted when a page reaches their end: two hours of 50 rotations, the fifth page of 20.
    const hours = 'from=2026-03-01T00:00Z&to=2026-03-01T02:00Z';
    expect((await api.get(`${url}/shifts?${hours}`, as('reporter'))).headers.get('x-total')).toBeNull();
    const short = await api.get(`${url}/shifts?${hours}&page=5`, as('reporter'));
    expect(short.body).toHaveLength(20);
    expect(short.headers.get('x-total')).toBe('100');
    expect(short.headers.get('x-total-pages')).toBe('5');
  });

  it('someone who leaves the project leaves its rotations and is not on call any more', async () => {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'leaver', name: 'Leaver', email: 'leaver@example.com', password: 'password-123' },
    });
    const member = `/api/v4/projects/${project.id}/members`;
    await api.post(member, { token: s.rootToken, body: { user_id: u.body.id, access_level: 30 } });
    const iid = await schedule('UTC');
    const r = await api.post(
      `${base()}/${iid}/rotations`,
      as('maintainer', {
        name: 'Pair',
        starts_at: '2026-01-05T00:00Z',
        length: 1,
        length_unit: 'days',
        participants: [{ username: 'leaver' }, { username: 'developer-oncall' }],
      }),
    );
    expect(r.status).toBe(201);
    const onCall = async () =>
      (await api.get(`${base()}/${iid}/on_call?at=2026-01-05T12:00Z`, as('reporter'))).body.map(
        (x: { username: string }) => x.username,
      );
    expect(await onCall()).toEqual(['leaver']);
    expect((await api.delete(`${member}/${u.body.id}`, { token: s.rootToken })).status).toBe(204);
    expect(await onCall()).toEqual(['developer-oncall']);
    const rotation = (await api.get(`${base()}/${iid}/rotations/${r.body.id}`, as('reporter'))).body;
    expect(rotation.participants.map((p: { user: { username: string } }) => p.user.username)).toEqual([
      'developer-oncall',
    ]);
    const scheduleId = (await s.server.ctx.oncall.scheduleByIid(project.id, iid))!.id;
    expect(await s.server.ctx.oncall.onCallUserIds(scheduleId, new Date('2026-01-05T12:00:00Z'))).toEqual([
      ids.developer,
    ]);
  });

  it('a new timezone keeps the active hours at the same instants', async () => {
    const iid = await schedule('Europe/Berlin');
    const url = `${base()}/${iid}`;
    await api.post(
      `${url}/rotations`,
      as('maintainer', {
        name: 'Office',
        starts_at: '2026-01-05T00:00',
        length: 1,
        length_unit: 'weeks',
        active_period: { start_time: '09:00', end_time: '17:00' },
        participants: [{ username: 'reporter-oncall' }],
      }),
    );
    // The server's clock decides which offsets convert the hours; Berlin is UTC+1 or +2, so UTC is 1 or 2 hours back.
    const moved = await api.put(url, as('maintainer', { timezone: 'UTC' }));
    expect(moved.status).toBe(200);
    expect(moved.body.timezone).toBe('UTC');
    expect([
      { start_time: '08:00', end_time: '16:00' },
      { start_time: '07:00', end_time: '15:00' },
    ]).toContainEqual(moved.body.rotations[0].active_period);
  });
});

describe.each(await databases())('on-call schedules on the Free tier (%s)', (database) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ database });
  });
  afterAll(() => s?.stop());

  it('are refused with 403 naming the tier; a non-member still gets 404', async () => {
    const p = await projectWithMembers(s, 'Free', { reporter: 20, maintainer: 40 }, 'free');
    const url = `/api/v4/projects/${p.id}/incident_management/oncall_schedules`;
    for (const v of [4, 5]) {
      const list = await p.api.get(url.replace('/v4/', `/v${v}/`), { token: p.tokens.maintainer });
      expect(list.status).toBe(403);
      expect(list.body).toEqual({
        message: '403 Forbidden - On-call schedules need the Premium or Ultimate tier',
      });
    }
    const create = await p.api.post(url, {
      token: p.tokens.maintainer,
      body: { name: 'X', timezone: 'UTC' },
    });
    expect(create.status).toBe(403);
    expect((await p.api.get(`${url}/1/on_call`, { token: p.tokens.reporter })).status).toBe(403);
    const u = await p.api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'stranger', name: 'S', email: 's@example.com', password: 'password-123' },
    });
    const t = await p.api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    expect((await p.api.get(url, { token: t.body.token })).status).toBe(404);
  });
});
