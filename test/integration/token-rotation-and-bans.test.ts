import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser, projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Role = keyof typeof LEVELS | 'admin' | 'anonymous';

/**
 * Personal access token rotation, impersonation tokens, bans and the license, from outside, on both databases:
 * GitLab's paths, statuses and bodies, and who may do what (project roles do not matter for these instance-wide
 * endpoints: only the token's user, or an admin).
 */
describe.each(await databases())('token rotation, impersonation tokens, bans, license (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let tokens: Record<string, string>;
  const as = (role: Role) =>
    role === 'admin' ? s.rootToken : role === 'anonymous' ? undefined : tokens[role];
  const everyone: Role[] = ['anonymous', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'];
  const newToken = async (userId: number, name = 'r') =>
    (
      await api.post(`/api/v4/users/${userId}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name, scopes: ['api'], expires_at: '2099-01-01' },
      })
    ).body as { id: number; token: string };

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    ({ tokens } = await projectWithMembers(s, 'roles', LEVELS, 'r'));
  });
  afterAll(() => s?.stop());

  describe('POST /personal_access_tokens/:id/rotate', () => {
    it('rotates one’s own token: the old one is revoked, the new one (shown once) keeps name and scopes', async () => {
      const bob = await createUser(s, 'bob-rot');
      const t = await newToken(bob.id, 'laptop');
      const res = await api.post(`/api/v4/personal_access_tokens/${t.id}/rotate`, {
        token: bob.token,
        body: { expires_at: '2097-03-04' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        name: 'laptop',
        scopes: ['api'],
        user_id: bob.id,
        revoked: false,
        active: true,
        expires_at: '2097-03-04',
      });
      expect(res.body.token).toMatch(/^svcpat-/);
      expect((await api.get('/api/v4/user', { token: t.token })).status).toBe(401);
      expect((await api.get('/api/v4/user', { token: res.body.token })).body.id).toBe(bob.id);
      const old = await api.get(`/api/v4/personal_access_tokens/${t.id}`, { token: bob.token });
      expect(old.body).toMatchObject({ revoked: true, active: false });
      expect(old.body.token).toBeUndefined();
      const twice = await api.post(`/api/v4/personal_access_tokens/${t.id}/rotate`, { token: bob.token });
      expect(twice.status).toBe(400);
      expect(twice.body.message).toBe('400 Bad request - Token already revoked');
    });

    it('expires a week after the rotation when no expires_at is given; refuses a past date', async () => {
      const bob = await createUser(s, 'bob-week');
      const t = await newToken(bob.id);
      const res = await api.post(`/api/v4/personal_access_tokens/${t.id}/rotate`, { token: bob.token });
      const week = new Date(s.clock.now().getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
      expect(res.body.expires_at).toBe(week);
      const other = await newToken(bob.id);
      const past = await api.post(`/api/v4/personal_access_tokens/${other.id}/rotate`, {
        token: bob.token,
        body: { expires_at: '2001-01-01' },
      });
      expect(past.status).toBe(400);
      // Nothing changed: the token still works.
      expect((await api.get('/api/v4/user', { token: other.token })).status).toBe(200);
    });

    it('another user’s token: 401 to everyone but its user and admins; only admins see 404 for a missing one', async () => {
      const carol = await createUser(s, 'carol-rot');
      for (const role of everyone) {
        const t = await newToken(carol.id);
        const res = await api.post(`/api/v4/personal_access_tokens/${t.id}/rotate`, { token: as(role) });
        expect([role, res.status]).toEqual([role, role === 'admin' ? 200 : 401]);
        // Refused rotations leave the token working.
        if (role !== 'admin') expect((await api.get('/api/v4/user', { token: t.token })).status).toBe(200);
      }
      const missing = (token: string) => api.post('/api/v4/personal_access_tokens/999999/rotate', { token });
      expect((await missing(s.rootToken)).status).toBe(404);
      expect((await missing(carol.token)).status).toBe(401);
    });

    it('self/rotate rotates the token of the request; a session gets 405', async () => {
      const dave = await createUser(s, 'dave-rot');
      const t = await newToken(dave.id, 'self');
      const res = await api.post('/api/v4/personal_access_tokens/self/rotate', {
        token: t.token,
        body: { expires_at: '2096-01-01' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'self', user_id: dave.id, expires_at: '2096-01-01' });
      expect((await api.get('/api/v4/user', { token: t.token })).status).toBe(401);
      expect((await api.get('/api/v4/user', { token: res.body.token })).status).toBe(200);
      expect((await api.post('/api/v4/personal_access_tokens/self/rotate', {})).status).toBe(401);
      const login = await api.post('/-/session', { body: { login: 'dave-rot', password: 'password-123' } });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const bySession = await api.post('/api/v4/personal_access_tokens/self/rotate', {
        headers: { cookie, 'x-csrf-token': login.body.csrf_token },
      });
      expect(bySession.status).toBe(405);
    });
  });

  describe('impersonation tokens', () => {
    it('only admins list, create, read and revoke them (401 anonymous, 403 others)', async () => {
      const erin = await createUser(s, 'erin-imp');
      const made = await api.post(`/api/v4/users/${erin.id}/impersonation_tokens`, {
        token: s.rootToken,
        body: { name: 'support', scopes: ['api'] },
      });
      for (const role of everyone) {
        const expected =
          role === 'admin' ? [200, 201, 200] : role === 'anonymous' ? [401, 401, 401] : [403, 403, 403];
        const list = await api.get(`/api/v4/users/${erin.id}/impersonation_tokens`, { token: as(role) });
        const create = await api.post(`/api/v4/users/${erin.id}/impersonation_tokens`, {
          token: as(role),
          body: { name: 'x', scopes: ['read_api'] },
        });
        const one = await api.get(`/api/v4/users/${erin.id}/impersonation_tokens/${made.body.id}`, {
          token: as(role),
        });
        expect([role, list.status, create.status, one.status]).toEqual([role, ...expected]);
      }
      for (const role of everyone.filter((r) => r !== 'admin')) {
        const del = await api.delete(`/api/v4/users/${erin.id}/impersonation_tokens/${made.body.id}`, {
          token: as(role),
        });
        expect([role, del.status]).toEqual([role, role === 'anonymous' ? 401 : 403]);
      }
    });

    it('acts as the user, says impersonation: true, and stays out of the user’s own token list', async () => {
      const fay = await createUser(s, 'fay-imp');
      const made = await api.post(`/api/v4/users/${fay.id}/impersonation_tokens`, {
        token: s.rootToken,
        body: { name: 'support', scopes: ['api'], expires_at: '2099-12-31' },
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        name: 'support',
        impersonation: true,
        user_id: fay.id,
        scopes: ['api'],
        active: true,
        revoked: false,
        expires_at: '2099-12-31',
      });
      expect((await api.get('/api/v4/user', { token: made.body.token })).body.username).toBe('fay-imp');
      const own = await api.get('/api/v4/personal_access_tokens', { token: fay.token });
      expect((own.body as { id: number }[]).map((t) => t.id)).not.toContain(made.body.id);
      const listed = await api.get(`/api/v4/users/${fay.id}/impersonation_tokens`, { token: s.rootToken });
      expect(listed.body).toHaveLength(1);
      expect(listed.body[0]).toMatchObject({ id: made.body.id, impersonation: true });
      expect(listed.body[0].token).toBeUndefined();
      // A personal token is not an impersonation token.
      const pat = (own.body as { id: number }[])[0]!.id;
      const notImp = await api.get(`/api/v4/users/${fay.id}/impersonation_tokens/${pat}`, {
        token: s.rootToken,
      });
      expect(notImp.status).toBe(404);
      expect(notImp.body.message).toBe('404 Impersonation Token Not Found');
      const del = await api.delete(`/api/v4/users/${fay.id}/impersonation_tokens/${made.body.id}`, {
        token: s.rootToken,
      });
      expect(del.status).toBe(204);
      expect((await api.get('/api/v4/user', { token: made.body.token })).status).toBe(401);
      const active = await api.get(`/api/v4/users/${fay.id}/impersonation_tokens?state=active`, {
        token: s.rootToken,
      });
      expect(active.body).toHaveLength(0);
      const inactive = await api.get(`/api/v4/users/${fay.id}/impersonation_tokens?state=inactive`, {
        token: s.rootToken,
      });
      expect(inactive.body).toHaveLength(1);
      expect(
        (await api.get('/api/v4/users/999999/impersonation_tokens', { token: s.rootToken })).body.message,
      ).toBe('404 User Not Found');
    });
  });

  describe('POST /users/:id/ban and /unban', () => {
    it('only admins ban (401 anonymous, 403 others); a banned user can use neither tokens nor password', async () => {
      const gus = await createUser(s, 'gus-ban');
      for (const role of everyone.filter((r) => r !== 'admin')) {
        const res = await api.post(`/api/v4/users/${gus.id}/ban`, { token: as(role) });
        expect([role, res.status]).toEqual([role, role === 'anonymous' ? 401 : 403]);
      }
      expect((await api.get('/api/v4/user', { token: gus.token })).status).toBe(200);
      const ban = await api.post(`/api/v4/users/${gus.id}/ban`, { token: s.rootToken });
      expect(ban.status).toBe(201);
      expect(ban.body).toBe(true);
      expect((await api.get(`/api/v4/users/${gus.id}`, { token: s.rootToken })).body.state).toBe('banned');
      expect((await api.get('/api/v4/user', { token: gus.token })).status).toBe(403);
      const login = await api.post('/-/session', { body: { login: 'gus-ban', password: 'password-123' } });
      expect(login.status).toBe(403);
      const again = await api.post(`/api/v4/users/${gus.id}/ban`, { token: s.rootToken });
      expect(again.status).toBe(403);
      expect(again.body.message).toBe('You cannot ban banned users.');
      for (const role of everyone.filter((r) => r !== 'admin')) {
        const res = await api.post(`/api/v4/users/${gus.id}/unban`, { token: as(role) });
        expect([role, res.status]).toEqual([role, role === 'anonymous' ? 401 : 403]);
      }
      const unban = await api.post(`/api/v4/users/${gus.id}/unban`, { token: s.rootToken });
      expect(unban.status).toBe(201);
      expect((await api.get('/api/v4/user', { token: gus.token })).status).toBe(200);
      const notBanned = await api.post(`/api/v4/users/${gus.id}/unban`, { token: s.rootToken });
      expect(notBanned.status).toBe(403);
      expect(notBanned.body.message).toBe('You cannot unban active users.');
      await api.post(`/api/v4/users/${gus.id}/block`, { token: s.rootToken });
      const blocked = await api.post(`/api/v4/users/${gus.id}/ban`, { token: s.rootToken });
      expect(blocked.body.message).toBe('You cannot ban blocked users.');
      expect((await api.post('/api/v4/users/999999/ban', { token: s.rootToken })).status).toBe(404);
    });
  });

  describe('GET /license', () => {
    it('is null on the Free tier (GitLab without a license), for admins only', async () => {
      const res = await api.get('/api/v4/license', { token: s.rootToken });
      expect(res.status).toBe(200);
      expect(res.body).toBeNull();
      for (const role of everyone.filter((r) => r !== 'admin')) {
        const r = await api.get('/api/v4/license', { token: as(role) });
        expect([role, r.status]).toEqual([role, role === 'anonymous' ? 401 : 403]);
      }
    });
  });
});

describe.each(await databases())('GET /license on a paid tier (%s)', (database) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'ultimate' } });
  });
  afterAll(() => s?.stop());

  it('reports the tier as the plan, with GitLab’s license fields', async () => {
    const api = http(s.url);
    await createUser(s, 'someone');
    const res = await api.get('/api/v4/license', { token: s.rootToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: 'ultimate',
      expired: false,
      expires_at: null,
      active_users: 2,
      user_limit: 0,
      overage: 0,
      add_ons: {},
    });
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'id',
        'plan',
        'created_at',
        'starts_at',
        'expires_at',
        'historical_max',
        'maximum_user_count',
        'licensee',
        'add_ons',
        'expired',
        'overage',
        'user_limit',
        'active_users',
      ].sort(),
    );
    const me = await createUser(s, 'plain');
    expect((await api.get('/api/v4/license', { token: me.token })).status).toBe(403);
  });
});
