import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `POST /user/personal_access_tokens` (GitLab 16.5+ shape), which the UI's Access tokens page uses: a signed-in
 * session (with its CSRF token) creates tokens for its own user; a token cannot breed tokens; `sudo` is for admins.
 */
describe.each(await databases())('POST /user/personal_access_tokens (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let session: { cookie: string; csrf: string };
  let bobToken: string;

  const signIn = async (login: string, password: string) => {
    const res = await api.post('/-/session', { body: { login, password } });
    expect(res.status).toBe(200);
    return {
      cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!,
      csrf: res.body.csrf_token as string,
    };
  };
  const asSession = (body: unknown, csrf = true) =>
    api.post('/api/v4/user/personal_access_tokens', {
      headers: { cookie: session.cookie, ...(csrf && { 'x-csrf-token': session.csrf }) },
      body,
    });
  const count = async () =>
    (await api.get('/api/v4/personal_access_tokens?user_id=2', { token: s.rootToken })).body.length as number;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    const bob = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'bob-password-1' },
    });
    expect(bob.body.id).toBe(2);
    bobToken = (
      await api.post('/api/v4/users/2/personal_access_tokens', {
        token: s.rootToken,
        body: { name: 'bob-api', scopes: ['api'] },
      })
    ).body.token;
    session = await signIn('bob', 'bob-password-1');
  });
  afterAll(() => s?.stop());

  it('creates a token for the signed-in user, shown once, that works and can be revoked', async () => {
    const created = await asSession({ name: 'laptop', scopes: ['read_api'], expires_at: '2099-01-01' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'laptop', scopes: ['read_api'], user_id: 2, active: true });
    expect(created.body.token).toMatch(/^svcpat-/);
    expect((await api.get('/api/v4/user', { token: created.body.token })).body.username).toBe('bob');
    // read_api cannot write.
    expect(
      (await api.post('/api/v4/projects', { token: created.body.token, body: { name: 'x' } })).status,
    ).toBe(403);
    const listed = await api.get(`/api/v4/personal_access_tokens/${created.body.id}`, { token: bobToken });
    expect(listed.body.token).toBeUndefined();
    const revoked = await api.delete(`/api/v4/personal_access_tokens/${created.body.id}`, {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(revoked.status).toBe(204);
    expect((await api.get('/api/v4/user', { token: created.body.token })).status).toBe(401);
  });

  it('refuses tokens, missing CSRF, sudo for non-admins and bad input, creating nothing', async () => {
    const before = await count();
    expect(
      await api.post('/api/v4/user/personal_access_tokens', {
        token: bobToken,
        body: { name: 'bred', scopes: ['api'] },
      }),
    ).toMatchObject({ status: 403, body: { message: expect.stringContaining('signed-in session') } });
    expect(await asSession({ name: 'no-csrf', scopes: ['api'] }, false)).toMatchObject({ status: 403 });
    expect(await asSession({ name: 'sudo', scopes: ['sudo'] })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('sudo is for administrators only') },
    });
    expect((await asSession({ name: 'none', scopes: [] })).status).toBe(400);
    expect((await asSession({ name: 'weird', scopes: ['k8s_proxy'] })).status).toBe(400);
    expect((await asSession({ scopes: ['api'] })).status).toBe(400);
    expect(await asSession({ name: 'past', scopes: ['api'], expires_at: '2001-01-01' })).toMatchObject({
      status: 400,
      body: { message: { expires_at: ['must be in the future'] } },
    });
    expect(await asSession({ name: 'n'.repeat(256), scopes: ['api'] })).toMatchObject({
      status: 400,
      body: { message: { name: ['is too long (maximum is 255 characters)'] } },
    });
    expect(await asSession({ name: ' ', scopes: ['api'] })).toMatchObject({
      status: 400,
      body: { message: { name: ["can't be blank"] } },
    });
    expect(
      (await api.post('/api/v4/user/personal_access_tokens', { body: { name: 'x', scopes: ['api'] } }))
        .status,
    ).toBe(401);
    expect(await count()).toBe(before);
  });

  it('lets an admin session create a sudo token for itself', async () => {
    const root = await signIn('root', s.rootPassword);
    const created = await api.post('/api/v4/user/personal_access_tokens', {
      headers: { cookie: root.cookie, 'x-csrf-token': root.csrf },
      body: { name: 'admin-sudo', scopes: ['api', 'sudo'] },
    });
    expect(created).toMatchObject({ status: 201, body: { user_id: 1, scopes: ['api', 'sudo'] } });
  });
});
