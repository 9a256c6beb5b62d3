import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { createUser, projectWithMembers } from '../helpers/members.js';
import { clientEnv, runClient } from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
const hex = () => randomUUID().replace(/-/g, '');

/** An event of one bug (`type` groups it), with a release, environment, user and tags as given. */
const event = (type: string, extra: Record<string, unknown> = {}) => ({
  event_id: hex(),
  platform: 'python',
  exception: {
    values: [
      {
        type,
        value: `${type} happened`,
        stacktrace: {
          frames: [{ module: 'app.views', function: type.toLowerCase(), lineno: 3, in_app: true }],
        },
      },
    ],
  },
  ...extra,
});

describe.each(await databases())('error triage (%s)', (database) => {
  let s: TestServer;
  let runs = 0;

  async function setup() {
    const n = ++runs;
    const p = await projectWithMembers(s, `triage-${n}`, LEVELS, `t${n}`);
    expect(
      (
        await p.api.put(`/api/v4/projects/${p.id}/error_tracking/settings`, {
          token: s.rootToken,
          body: { active: true, integrated: true },
        })
      ).status,
    ).toBe(200);
    const keys = await p.api.get(`/api/v4/projects/${p.id}/error_tracking/client_keys`, {
      token: s.rootToken,
    });
    const key = keys.body[0].public_key as string;
    const errors = `/api/v4/projects/${p.id}/error_tracking/errors`;
    const store = async (e: object) => {
      const r = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${p.id}/store/?sentry_key=${key}`, {
        method: 'POST',
        body: JSON.stringify(e),
      });
      expect(r.status).toBe(200);
      // Releases are ordered by when they were first seen: each event a second after the last.
      s.clock.advance(1000);
    };
    const get = async (id: number) => (await p.api.get(`${errors}/${id}`, { token: p.tokens.reporter })).body;
    const activity = async (id: number) =>
      (await p.api.get(`${errors}/${id}/activities`, { token: p.tokens.reporter })).body as any[];
    const search = async (q: string, token = p.tokens.developer) =>
      p.api.get(`${errors}?per_page=100&query=${encodeURIComponent(q)}`, { token });
    const ids = async (q: string, token?: string) =>
      ((await search(q, token)).body as any[]).map((e) => e.id).sort((a, b) => a - b);
    const only = async (type: string) => {
      const list = (await p.api.get(`${errors}?per_page=100`, { token: p.tokens.reporter })).body as any[];
      return list.find((e) => e.type === type)!.id as number;
    };
    return { ...p, n, errors, store, get, activity, search, ids, only };
  }

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
  });
  afterAll(() => s?.stop());

  it('resolved in release 1.1: an event of 1.0 leaves it resolved, one of 1.2 regresses it', async () => {
    const p = await setup();
    await p.store(event('KeyError', { release: '1.0' }));
    await p.store(event('KeyError', { release: '1.1' }));
    const id = await p.only('KeyError');
    const url = `${p.errors}/${id}`;

    const unknown = await p.api.put(url, { token: p.tokens.developer, body: { resolved_in_release: '9.9' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message.resolved_in_release[0]).toMatch(/release "9.9" has not been seen/);
    const clash = await p.api.put(url, {
      token: p.tokens.developer,
      body: { status: 'ignored', resolved_in_release: '1.1' },
    });
    expect(clash.status).toBe(400);
    expect((await p.get(id)).status).toBe('unresolved');

    const r = await p.api.put(url, { token: p.tokens.developer, body: { resolved_in_release: '1.1' } });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('resolved');
    expect(r.body.status_details).toMatchObject({ in_release: '1.1', in_next_release: false });

    await p.store(event('KeyError', { release: '1.0' }));
    await p.store(event('KeyError'));
    expect((await p.get(id)).status).toBe('resolved');

    await p.store(event('KeyError', { release: '1.2' }));
    const after = await p.get(id);
    expect(after.status).toBe('unresolved');
    expect(after.status_details.in_release).toBeNull();
    const kinds = (await p.activity(id)).map((a) => [
      a.type,
      a.data.release ?? null,
      a.user?.username ?? null,
    ]);
    expect(kinds).toEqual([
      ['set_resolved_in_release', '1.1', `developer-t${p.n}`],
      ['set_regression', '1.2', null],
    ]);
    // The regression is the existing one: the error rules' outbox event says it regressed.
    const rows = await s.server.ctx.db.kysely
      .selectFrom('error_tracking_errors')
      .select('regressed_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(rows.regressed_at).not.toBeNull();
  });

  it('@sentry/node: resolved in 1.1, its 1.0 stays resolved and its 1.2 regresses', async () => {
    const p = await setup();
    const keys = await p.api.get(`/api/v4/projects/${p.id}/error_tracking/client_keys`, {
      token: s.rootToken,
    });
    const send = async (release: string) => {
      const run = await runClient(process.execPath, ['node-release.mjs', keys.body[0].sentry_dsn, release], {
        env: clientEnv(),
      });
      expect(run.code, run.summary).toBe(0);
      expect(
        run.sends.filter((x) => x.types?.includes('event') && x.status === 200),
        run.summary,
      ).toHaveLength(1);
      s.clock.advance(1000);
    };
    await send('shop@1.0');
    await send('shop@1.1');
    const list = (await p.api.get(p.errors, { token: p.tokens.reporter })).body as any[];
    expect(list).toHaveLength(1);
    const id = list[0].id as number;
    expect(list[0]).toMatchObject({ first_release: 'shop@1.0', last_release: 'shop@1.1', count: 2 });
    const r = await p.api.put(`${p.errors}/${id}`, {
      token: p.tokens.developer,
      body: { resolved_in_release: 'shop@1.1' },
    });
    expect(r.body.status).toBe('resolved');
    await send('shop@1.0');
    expect((await p.get(id)).status).toBe('resolved');
    await send('shop@1.2');
    expect((await p.get(id)).status).toBe('unresolved');
    expect((await p.activity(id)).map((a) => [a.type, a.data.release])).toEqual([
      ['set_resolved_in_release', 'shop@1.1'],
      ['set_regression', 'shop@1.2'],
    ]);
  });

  it('resolved in the next release: the latest release and older stay resolved, a newer one regresses', async () => {
    const p = await setup();
    await p.store(event('ValueError'));
    const id = await p.only('ValueError');
    const url = `${p.errors}/${id}`;
    // No release yet: nothing to be newer than (Sentry's answer).
    const early = await p.api.put(url, {
      token: p.tokens.developer,
      body: { resolved_in_next_release: true },
    });
    expect(early.status).toBe(400);
    await p.store(event('ValueError', { release: '2.0' }));
    const r = await p.api.put(url, { token: p.tokens.developer, body: { resolved_in_next_release: true } });
    expect(r.body.status_details).toMatchObject({ in_next_release: true, after_release: '2.0' });
    await p.store(event('ValueError', { release: '2.0' }));
    expect((await p.get(id)).status).toBe('resolved');
    await p.store(event('ValueError', { release: '2.1' }));
    expect((await p.get(id)).status).toBe('unresolved');
    // A plain resolve still regresses on any event, as before.
    await p.api.put(url, { token: p.tokens.developer, body: { status: 'resolved' } });
    await p.store(event('ValueError', { release: '1.0' }));
    expect((await p.get(id)).status).toBe('unresolved');
  });

  it('ignored for N more events lapses at event N+1; for N more users at user N+1; until a time on read and by its job', async () => {
    const p = await setup();
    await p.store(event('IOError'));
    const id = await p.only('IOError');
    const url = `${p.errors}/${id}`;
    for (const bad of [
      { ignore_count: 0 },
      { ignore_until: '2000-01-01T00:00:00Z' },
      { ignore_until: 'soon' },
    ])
      expect(
        (await p.api.put(url, { token: p.tokens.developer, body: bad })).status,
        JSON.stringify(bad),
      ).toBe(400);
    const r = await p.api.put(url, {
      token: p.tokens.developer,
      body: { status: 'ignored', ignore_count: 2 },
    });
    expect(r.body).toMatchObject({ status: 'ignored', status_details: { ignore_count: 2 } });
    await p.store(event('IOError'));
    await p.store(event('IOError'));
    expect((await p.get(id)).status).toBe('ignored');
    await p.store(event('IOError'));
    expect((await p.get(id)).status).toBe('unresolved');
    expect((await p.activity(id)).map((a) => [a.type, a.data.reason ?? null])).toEqual([
      ['set_ignored', null],
      ['unignored', 'count'],
    ]);

    // Users: the same user again does not count; the second new user lapses an ignore for 1 more user.
    await p.api.put(url, { token: p.tokens.developer, body: { ignore_user_count: 1 } });
    await p.store(event('IOError', { user: { id: 'u1' } }));
    await p.store(event('IOError', { user: { id: 'u1' } }));
    expect((await p.get(id)).status).toBe('ignored');
    await p.store(event('IOError', { user: { id: 'u2' } }));
    expect((await p.get(id)).status).toBe('unresolved');

    // Until a time: read after it shows it unresolved.
    await p.api.put(url, { token: p.tokens.developer, body: { ignore_duration: 30 } });
    expect((await p.get(id)).status).toBe('ignored');
    s.clock.advance(31 * 60_000);
    expect((await p.get(id)).status).toBe('unresolved');
    // ... and the job due at the time does it without anyone reading.
    await p.api.put(url, {
      token: p.tokens.developer,
      body: { ignore_until: new Date(s.clock.now().getTime() + 60_000).toISOString() },
    });
    s.clock.advance(2 * 60_000);
    await s.server.ctx.jobs.drain();
    const row = await s.server.ctx.db.kysely
      .selectFrom('error_tracking_errors')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('unresolved');
    expect((await p.activity(id)).filter((a) => a.type === 'unignored').map((a) => a.data.reason)).toEqual([
      'count',
      'user_count',
      'until',
      'until',
    ]);
  });

  it('assigns to members only, comments in Markdown, and lets Reporters read but only Developers triage', async () => {
    const p = await setup();
    await p.store(event('KeyError'));
    const id = await p.only('KeyError');
    const url = `${p.errors}/${id}`;
    const outsider = await createUser(s, `outsider-${p.n}`);

    for (const role of ['guest', 'reporter']) {
      expect((await p.api.put(url, { token: p.tokens[role], body: { assignee: 'me' } })).status, role).toBe(
        403,
      );
      expect(
        (await p.api.post(`${url}/notes`, { token: p.tokens[role], body: { body: 'hi' } })).status,
        role,
      ).toBe(403);
      expect(
        (await p.api.put(p.errors, { token: p.tokens[role], body: { ids: [id], status: 'resolved' } }))
          .status,
        role,
      ).toBe(403);
    }
    expect((await p.api.get(`${url}/activities`, { token: p.tokens.guest })).status).toBe(403);
    expect((await p.api.get(`${url}/activities`, { token: p.tokens.reporter })).status).toBe(200);
    expect((await p.api.get(`${url}/activities`, { token: outsider.token })).status).toBe(404);

    const stranger = await p.api.put(url, {
      token: p.tokens.developer,
      body: { assignee: `outsider-${p.n}` },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.message).toEqual({ assignee: [`outsider-${p.n} is not a member of the project`] });
    expect(
      (await p.api.put(url, { token: p.tokens.developer, body: { assignee: 'nobody-at-all' } })).status,
    ).toBe(400);
    expect((await p.get(id)).assignee).toBeNull();

    const me = await p.api.put(url, { token: p.tokens.developer, body: { assignee: 'me' } });
    expect(me.body.assignee.username).toBe(`developer-t${p.n}`);
    const other = await p.api.put(url, {
      token: p.tokens.maintainer,
      body: { assignee: `reporter-t${p.n}` },
    });
    expect(other.body.assignee.username).toBe(`reporter-t${p.n}`);

    const blank = await p.api.post(`${url}/notes`, { token: p.tokens.developer, body: { body: '  ' } });
    expect(blank.status).toBe(400);
    const note = await p.api.post(`${url}/notes`, {
      token: p.tokens.developer,
      body: { body: 'Looks like **the cache**' },
    });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({ type: 'note', body: 'Looks like **the cache**', error_id: id });
    expect(
      (await p.api.put(url, { token: p.tokens.developer, body: { assignee: null } })).body.assignee,
    ).toBeNull();
    expect(
      (await p.activity(id)).map((a) => [a.type, a.user.username, a.data.assignee_username ?? null]),
    ).toEqual([
      ['assigned', `developer-t${p.n}`, `developer-t${p.n}`],
      ['assigned', `maintainer-t${p.n}`, `reporter-t${p.n}`],
      ['note', `developer-t${p.n}`, null],
      ['unassigned', `developer-t${p.n}`, null],
    ]);
  });

  it('bulk: resolves, ignores and assigns several errors at once, all checked before any changes', async () => {
    const p = await setup();
    for (const t of ['AError', 'BError', 'CError']) await p.store(event(t));
    const [a, b, c] = [await p.only('AError'), await p.only('BError'), await p.only('CError')];
    const missing = await p.api.put(p.errors, {
      token: p.tokens.developer,
      body: { ids: [a, 999999], status: 'resolved' },
    });
    expect(missing.status).toBe(404);
    expect((await p.get(a)).status).toBe('unresolved');
    expect(
      (await p.api.put(p.errors, { token: p.tokens.developer, body: { status: 'resolved' } })).status,
    ).toBe(400);

    const done = await p.api.put(p.errors, {
      token: p.tokens.developer,
      body: { ids: [a, b], status: 'resolved', assignee: 'me' },
    });
    expect(done.status).toBe(200);
    expect(done.body.map((e: any) => [e.id, e.status, e.assignee.username])).toEqual([
      [a, 'resolved', `developer-t${p.n}`],
      [b, 'resolved', `developer-t${p.n}`],
    ]);
    // Sentry's form: the ids in the query.
    const q = await p.api.put(`${p.errors}?id=${b}&id=${c}`, {
      token: p.tokens.developer,
      body: { ignore_count: 5 },
    });
    expect(q.body.map((e: any) => e.status)).toEqual(['ignored', 'ignored']);
    expect((await p.activity(b)).map((x) => x.type)).toEqual(['set_resolved', 'assigned', 'set_ignored']);
    // Merge records itself on the error that took the others, which keeps their activity.
    const merged = await p.api.put(`${p.errors}/merge`, {
      token: p.tokens.developer,
      body: { error_ids: [a, b] },
    });
    expect(merged.status).toBe(200);
    const kept = merged.body.error.id as number;
    expect((await p.activity(kept)).map((x) => x.type)).toContain('merge');
  });

  it("searches with Sentry's syntax, and names what it cannot read", async () => {
    const p = await setup();
    await p.store(
      event('KeyError', {
        release: '1.0',
        environment: 'prod',
        tags: { server: 'web-8' },
        user: { email: 'ann@example.com' },
      }),
    );
    await p.store(event('ValueError', { release: '1.1', environment: 'staging', tags: { server: 'web-9' } }));
    await p.store(event('IOError', { message: 'disk "full"' }));
    const [k, v, io] = [await p.only('KeyError'), await p.only('ValueError'), await p.only('IOError')];
    await p.api.put(`${p.errors}/${k}`, {
      token: p.tokens.developer,
      body: { assignee: 'me', status: 'resolved' },
    });
    await p.api.put(`${p.errors}/${v}`, { token: p.tokens.developer, body: { ignore_count: 10 } });

    expect(await p.ids('is:unresolved')).toEqual([io]);
    expect(await p.ids('is:resolved')).toEqual([k]);
    expect(await p.ids('is:ignored')).toEqual([v]);
    expect(await p.ids('is:assigned')).toEqual([k]);
    expect(await p.ids('is:unassigned')).toEqual([v, io].sort((x, y) => x - y));
    expect(await p.ids('assigned:me')).toEqual([k]);
    expect(await p.ids('assigned:me', p.tokens.maintainer)).toEqual([]);
    expect(await p.ids(`assigned:developer-t${p.n}`, p.tokens.reporter)).toEqual([k]);
    expect(await p.ids('assigned:no-such-user')).toEqual([]);
    expect(await p.ids('release:1.1')).toEqual([v]);
    expect(await p.ids('environment:prod')).toEqual([k]);
    expect(await p.ids('user.email:ann@example.com')).toEqual([k]);
    expect(await p.ids('has:user')).toEqual([k]);
    expect(await p.ids('server:web-9')).toEqual([v]);
    expect(await p.ids('!server:web-9')).toEqual([k, io].sort((x, y) => x - y));
    expect(await p.ids('is:resolved server:web-9')).toEqual([]);
    expect(await p.ids('KeyError happened')).toEqual([k]);
    expect(await p.ids('"ValueError happened" environment:staging')).toEqual([v]);
    // GitLab's parameters still work: status, and search as plain text.
    const old = await p.api.get(`${p.errors}?status=ignored&search=ValueError`, { token: p.tokens.reporter });
    expect(old.body.map((e: any) => e.id)).toEqual([v]);

    for (const [q, message] of [
      [
        'is:foo',
        'Invalid search: unknown key "is:foo" (is: takes unresolved, resolved, ignored, assigned, unassigned)',
      ],
      ['release:', 'Invalid search: "release:" has no value'],
      ['"unterminated', 'Invalid search: unterminated quote at position 1'],
      ['user.phone:1', 'Invalid search: unknown key "user.phone"'],
    ]) {
      const r = await p.search(q!);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toEqual({ message: `400 Bad request - ${message}` });
    }
    const bad = await p.api.get(`${p.errors}?search=${encodeURIComponent('is:foo')}`, {
      token: p.tokens.reporter,
    });
    expect(bad.status).toBe(400);
  });
});
