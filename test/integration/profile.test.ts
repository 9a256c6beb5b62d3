import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('the profile: own name, e-mail and password (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;

  interface Session {
    readonly cookie: string;
    readonly csrf: string;
  }

  async function signIn(login: string, password: string): Promise<Session> {
    const res = await api.post('/-/session', { body: { login, password } });
    expect(res.status).toBe(200);
    return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: res.body.csrf_token };
  }
  const writeHeaders = (session: Session) => ({ cookie: session.cookie, 'x-csrf-token': session.csrf });

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    for (const username of ['carol', 'dave']) {
      const created = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: {
          username,
          name: username,
          email: `${username}@example.com`,
          password: `${username}-password`,
        },
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => s?.stop());

  it('changes the own name and e-mail from a session; an e-mail taken or malformed is refused and changes nothing', async () => {
    const carol = await signIn('carol', 'carol-password');
    const saved = await api.put('/-/profile', {
      headers: writeHeaders(carol),
      body: { name: 'Carol Ops', email: 'carol.ops@example.com' },
    });
    expect(saved).toMatchObject({ status: 200, body: { username: 'carol', name: 'Carol Ops' } });
    const me = await api.get('/api/v4/user', { headers: { cookie: carol.cookie } });
    expect(me.body).toMatchObject({ name: 'Carol Ops', email: 'carol.ops@example.com' });

    expect(
      await api.put('/-/profile', { headers: writeHeaders(carol), body: { email: 'dave@example.com' } }),
    ).toMatchObject({ status: 409, body: { message: 'Email has already been taken' } });
    expect(
      await api.put('/-/profile', {
        headers: writeHeaders(carol),
        body: { email: 'not-an-address', name: ' ' },
      }),
    ).toMatchObject({ status: 400, body: { message: { email: ['is invalid'], name: ["can't be blank"] } } });
    expect((await api.get('/api/v4/user', { headers: { cookie: carol.cookie } })).body).toMatchObject({
      name: 'Carol Ops',
      email: 'carol.ops@example.com',
    });
  });

  it('is a browser-session action: a token, a missing CSRF token and no session are refused', async () => {
    const token = await api.post('/api/v4/users/2/personal_access_tokens', {
      token: s.rootToken,
      body: { name: 'api', scopes: ['api'] },
    });
    expect(token.status).toBe(201);
    const viaToken = await api.put('/-/profile', { token: token.body.token, body: { name: 'Token' } });
    expect(viaToken.status).toBe(401);
    const carol = await signIn('carol', 'carol-password');
    const noCsrf = await api.put('/-/profile/password', {
      headers: { cookie: carol.cookie },
      body: { current_password: 'carol-password', new_password: 'carol-password-2' },
    });
    expect(noCsrf).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - CSRF token is missing or invalid' },
    });
    expect((await api.put('/-/profile', { body: { name: 'Nobody' } })).status).toBe(401);
  });

  it('changes the password only with the current one, keeps this session and ends the others', async () => {
    const here = await signIn('dave', 'dave-password');
    const elsewhere = await signIn('dave', 'dave-password');

    const wrong = await api.put('/-/profile/password', {
      headers: writeHeaders(here),
      body: { current_password: 'not-it', new_password: 'dave-password-2' },
    });
    expect(wrong).toMatchObject({ status: 400, body: { message: { current_password: ['is invalid'] } } });
    const short = await api.put('/-/profile/password', {
      headers: writeHeaders(here),
      body: { current_password: 'dave-password', new_password: 'short' },
    });
    expect(short).toMatchObject({
      status: 400,
      body: { message: { password: ['is too short (minimum is 8 characters)'] } },
    });
    // Neither refusal changed anything: the other session still works and the old password still signs in.
    expect((await api.get('/api/v4/user', { headers: { cookie: elsewhere.cookie } })).status).toBe(200);

    const changed = await api.put('/-/profile/password', {
      headers: writeHeaders(here),
      body: { current_password: 'dave-password', new_password: 'dave-password-2' },
    });
    expect(changed.status).toBe(204);
    expect((await api.get('/api/v4/user', { headers: { cookie: here.cookie } })).status).toBe(200);
    expect((await api.get('/api/v4/user', { headers: { cookie: elsewhere.cookie } })).status).toBe(401);
    expect(
      (await api.post('/-/session', { body: { login: 'dave', password: 'dave-password' } })).status,
    ).toBe(401);
    await signIn('dave', 'dave-password-2');
  });

  it('counts a wrong current password as a failed sign-in, so a stolen session cannot guess it faster', async () => {
    const user = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'erin', name: 'Erin', email: 'erin@example.com', password: 'erin-password' },
    });
    expect(user.status).toBe(201);
    const session = await signIn('erin', 'erin-password');
    let last = 0;
    for (let i = 0; i < 12; i++) {
      last = (
        await api.put('/-/profile/password', {
          headers: writeHeaders(session),
          body: { current_password: `guess-${i}`, new_password: 'erin-password-2' },
        })
      ).status;
      if (last !== 400) break;
    }
    // The sign-in guards stop the guessing (the client address's limit, 429, or the account's lock after GitLab's
    // 10 failures, 403); the session itself stays signed in (never 401, which the UI takes for "signed out").
    expect([403, 429]).toContain(last);
    expect((await api.get('/api/v4/user', { headers: { cookie: session.cookie } })).status).toBe(200);
    const correct = await api.put('/-/profile/password', {
      headers: writeHeaders(session),
      body: { current_password: 'erin-password', new_password: 'erin-password-2' },
    });
    expect([403, 429]).toContain(correct.status);
  });
});
