import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('authentication (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let alice: { id: number };
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    const created = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'alice-password' },
    });
    expect(created.status).toBe(201);
    alice = created.body;
    for (const scopes of [['api'], ['read_api'], ['read_user'], ['sudo']]) {
      const t = await api.post(`/api/v4/users/${alice.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: scopes.join(), scopes },
      });
      expect(t.status).toBe(201);
      expect(t.body.token).toMatch(/^svcpat-/);
      tokens[scopes.join()] = t.body.token;
    }
  });
  afterAll(() => s?.stop());

  it('accepts PRIVATE-TOKEN in any case, Bearer, and the private_token query parameter', async () => {
    const t = tokens.api!;
    for (const headers of [
      { 'PRIVATE-TOKEN': t } as Record<string, string>,
      { 'private-token': t },
      { 'Private-Token': t },
      { Authorization: `Bearer ${t}` },
    ]) {
      const r = await api.get('/api/v4/user', { headers });
      expect(r.status).toBe(200);
      expect(r.body.username).toBe('alice');
    }
    const q = await api.get(`/api/v4/user?private_token=${t}`);
    expect(q.status).toBe(200);
    expect(q.body.username).toBe('alice');
  });

  it('answers 401 with GitLab bodies for missing, unknown, revoked and expired tokens', async () => {
    expect(await api.get('/api/v4/user')).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect(await api.get('/api/v4/user', { token: 'svcpat-nope' })).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    // A present but bad token is refused even when the query also carries a good one.
    expect((await api.get(`/api/v4/user?private_token=${tokens.api}`, { token: 'bad' })).status).toBe(401);

    const day = 86_400_000;
    const tomorrow = new Date(s.clock.now().getTime() + day).toISOString().slice(0, 10);
    const t = await api.post(`/api/v4/users/${alice.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'short-lived', scopes: ['api'], expires_at: tomorrow },
    });
    expect((await api.get('/api/v4/user', { token: t.body.token })).status).toBe(200);
    // Time passes: the token's expiry date is reached.
    s.clock.advance(day);
    expect(await api.get('/api/v4/user', { token: t.body.token })).toMatchObject({
      status: 401,
      body: { error: 'invalid_token', error_description: 'Token has expired.' },
    });

    const r = await api.post(`/api/v4/users/${alice.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'to-revoke', scopes: ['api'] },
    });
    expect(
      (await api.delete(`/api/v4/personal_access_tokens/${r.body.id}`, { token: r.body.token })).status,
    ).toBe(204);
    expect(await api.get('/api/v4/user', { token: r.body.token })).toMatchObject({
      status: 401,
      body: { error: 'invalid_token' },
    });
  });

  it('enforces token scopes: read_api reads only, read_user reads users only', async () => {
    expect((await api.get('/api/v4/projects', { token: tokens.read_api })).status).toBe(200);
    const write = await api.post('/api/v4/projects', { token: tokens.read_api, body: { name: 'nope' } });
    expect(write).toMatchObject({ status: 403, body: { error: 'insufficient_scope', scope: 'api' } });
    expect((await api.get('/api/v4/user', { token: tokens.read_user })).status).toBe(200);
    expect((await api.get('/api/v4/users/1', { token: tokens.read_user })).status).toBe(200);
    expect(await api.get('/api/v4/projects', { token: tokens.read_user })).toMatchObject({
      status: 403,
      body: { error: 'insufficient_scope' },
    });
    expect((await api.get('/api/v4/user', { token: tokens.sudo })).status).toBe(403);
    // Nothing was created by the refused write.
    const list = await api.get('/api/v4/projects?search=nope', { token: s.rootToken });
    expect(list.body).toEqual([]);
  });

  it('lets an admin with a sudo-scoped token act as another user; refuses others', async () => {
    const rootSudo = await api.post('/api/v4/users/1/personal_access_tokens', {
      token: s.rootToken,
      body: { name: 'sudo', scopes: ['api', 'sudo'] },
    });
    const me = await api.get('/api/v4/user', { token: rootSudo.body.token, headers: { Sudo: 'alice' } });
    expect(me.body.username).toBe('alice');
    expect(
      (await api.get('/api/v4/user', { token: s.rootToken, headers: { Sudo: 'alice' } })).body,
    ).toMatchObject({
      error: 'insufficient_scope',
      scope: 'sudo',
    });
    const missing = await api.get('/api/v4/user', {
      token: rootSudo.body.token,
      headers: { Sudo: 'nobody' },
    });
    expect(missing).toMatchObject({
      status: 404,
      body: { message: "404 User with ID or username 'nobody' Not Found" },
    });
  });

  it('signs in with the web session cookie; writes need the CSRF token', async () => {
    const bad = await api.post('/-/session', { body: { login: 'alice', password: 'wrong-password' } });
    expect(bad).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized - Invalid login or password.' },
    });
    const res = await api.post('/-/session', {
      body: { login: 'alice@example.com', password: 'alice-password' },
    });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const cookie = setCookie.split(';')[0]!;
    const csrf = res.body.csrf_token as string;

    expect((await api.get('/api/v4/user', { headers: { cookie } })).body.username).toBe('alice');
    const noCsrf = await api.post('/api/v4/projects', { headers: { cookie }, body: { name: 'via-cookie' } });
    expect(noCsrf).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - CSRF token is missing or invalid' },
    });
    const withCsrf = await api.post('/api/v4/projects', {
      headers: { cookie, 'x-csrf-token': csrf },
      body: { name: 'via-cookie' },
    });
    expect(withCsrf.status).toBe(201);
    expect((await api.delete('/-/session', { headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(204);
    expect((await api.get('/api/v4/user', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a cross-site sign-in (login CSRF) with 403 and no cookie; same-origin and header-less clients sign in', async () => {
    const body = { login: 'alice', password: 'alice-password' };
    const host = new URL(s.url).host;
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `http://${host}.evil.example` },
      { origin: s.url, 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const r = await api.post('/-/session', { headers, body });
      expect(r, JSON.stringify(headers)).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden - cross-site sign-in is not allowed' },
      });
      expect(r.headers.get('set-cookie')).toBeNull();
    }
    for (const headers of <Record<string, string>[]>[
      {},
      { origin: s.url },
      { origin: s.url, 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ]) {
      const r = await api.post('/-/session', { headers, body });
      expect(r.status, JSON.stringify(headers)).toBe(200);
      expect(r.headers.get('set-cookie')).not.toBeNull();
    }
  });

  it('blocks admin-only endpoints for regular users with 403 and answers both API versions', async () => {
    for (const v of ['v4', 'v5']) {
      expect(await api.get(`/api/${v}/application/settings`, { token: tokens.api })).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
      expect((await api.get(`/api/${v}/application/settings`, { token: s.rootToken })).status).toBe(200);
      const version = await api.get(`/api/${v}/version`, { token: tokens.api });
      expect(version.status).toBe(200);
      expect(version.body.version).toMatch(/^\d+\.\d+\.\d+$/);
      const doc = await api.get(`/api/${v}/openapi.json`);
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.0.3');
      expect(Object.keys(doc.body.paths)).toContain('/projects/{id}');
    }
    expect(await api.get('/api/v4/version')).toMatchObject({ status: 401 });
    expect(await api.get('/api/v6/version', { token: tokens.api })).toMatchObject({
      status: 404,
      body: { error: '404 Not Found' },
    });
  });

  it('lets admins block and unblock users: a blocked user is refused at once', async () => {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'bob-password' },
    });
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'b', scopes: ['api'] },
    });
    expect((await api.get('/api/v4/user', { token: t.body.token })).status).toBe(200);
    expect(await api.post(`/api/v4/users/${u.body.id}/block`, { token: tokens.api })).toMatchObject({
      status: 403,
    });
    expect(await api.post(`/api/v5/users/${u.body.id}/block`, { token: s.rootToken })).toMatchObject({
      status: 201,
      body: true,
    });
    expect((await api.get(`/api/v4/users/${u.body.id}`, { token: s.rootToken })).body.state).toBe('blocked');
    expect(await api.get('/api/v4/user', { token: t.body.token })).toMatchObject({ status: 403 });
    expect(await api.post(`/api/v4/users/${u.body.id}/unblock`, { token: s.rootToken })).toMatchObject({
      status: 201,
    });
    expect((await api.get('/api/v4/user', { token: t.body.token })).status).toBe(200);
    expect(await api.post('/api/v4/users/99999/block', { token: s.rootToken })).toMatchObject({
      status: 404,
      body: { message: '404 User Not Found' },
    });
    const root = (await api.get('/api/v4/user', { token: s.rootToken })).body;
    expect((await api.post(`/api/v4/users/${root.id}/block`, { token: s.rootToken })).status).toBe(403);
  });
});
