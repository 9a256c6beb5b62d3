import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../../src/app.js';
import type { AppContext } from '../../src/app-context.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createDb, type Db, migrate } from '../../src/db/db.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Sends one raw HTTP/1.1 request and returns the status line and body. */
function raw(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => {
      data += String(d);
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(request);
  });
}

// Credentials in logged URLs, whatever the spelling of the parameter name.
describe('request logging never shows credentials', () => {
  const token = 'svcpat-logging-secret-token-0011';
  const lines: string[] = [];
  let dir: string;
  let db: Db;
  let ctx: AppContext;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const config = loadConfig({
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'root-password-1',
      SVC_ROOT_TOKEN: token,
      // A line per request (the access log; by default answered requests write none), so every URL is logged.
      SVC_ACCESS_LOG: 'true',
    });
    db = createDb(config);
    await migrate(db);
    ctx = createContext(config, db);
    await ctx.users.bootstrap({ rootPassword: config.rootPassword, rootToken: config.rootToken });
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp(ctx, { logger: { ...(loggerOptions('info') as object), stream } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('masks percent-encoded and other credential parameter names (private%5Ftoken authenticates, as in GitLab)', async () => {
    // Rack decodes parameter names, so GitLab accepts `private%5Ftoken`; svc does too, and must not log it.
    const encoded = await app.inject({ url: `/api/v4/user?private%5Ftoken=${token}` });
    expect(encoded.statusCode).toBe(200);
    expect(encoded.json().username).toBe('root');
    const urls = [
      `/api/v4/user?private%5ftoken=${token}`,
      `/api/v4/user?%70rivate_token=${token}`,
      `/api/v4/user?access%5Ftoken=${token}`,
      `/api/v4/user?a=1&PRIVATE_TOKEN=${token}`,
      `/api/v4/user?job_token=${token}`,
      `/api/v4/user?password=${token}`,
      `/api/v4/user?private_token%=${token}`,
      `/api/v4/user?private%255Ftoken=${token}`,
      `/api/v4/user?x=1;private_token=${token}`,
      `/api/v4/user?q=${token}`,
      `/api/v4/user?q=${encodeURIComponent(`https://u:${token}@example.com/`)}`,
      `/api/1/envelope/?sentry_key=${token}&sentry_version=7`,
      `/api/1/store/?sentry%5Fkey=${token}&sentry_secret=${token}`,
      `/root/p/-/error_tracking/projects.json?api_host=https://sentry.example.com&%74oken=${token}`,
    ];
    for (const url of urls) {
      const r = await app.inject({ url });
      expect(r.statusCode).toBeGreaterThanOrEqual(200);
      expect(r.statusCode).toBeLessThan(500);
    }
    // An absolute-form request target with userinfo, and a bad URL, from a raw socket.
    const abs = await raw(
      port,
      `GET http://root:${token}@127.0.0.1:${port}/api/v4/user?private%5Ftoken=${token} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(abs.status).toBeGreaterThan(0);
    const bad = await raw(
      port,
      `GET /api/v4/%ZZ?private%5Ftoken=${token} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    const health = await app.inject({ url: '/-/health' });
    expect(health.json()).toEqual({ status: 'ok' });

    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(urls.length);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(all).not.toContain(token);
    expect(all).not.toContain(encodeURIComponent(token));
    expect(all).toContain('private%5Ftoken=[REDACTED]');
  });
});

// Security headers on the UI and the API; /-/metrics only for the monitoring allowlist.
describe('security headers and the metrics allowlist', () => {
  let s: TestServer;
  let restricted: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
    restricted = await startTestServer({ env: { SVC_METRICS_ALLOWLIST: '10.0.0.0/8, fd00::/8' } });
  });
  afterAll(async () => {
    await s?.stop();
    await restricted?.stop();
  });

  it('sends nosniff everywhere, frame denial and a CSP on UI pages and API answers', async () => {
    const api = http(s.url);
    for (const path of ['/api/v4/user', '/api/v4/version', '/-/health', '/nope/-/x', '/api/v4/projects']) {
      const r = await api.get(path, { token: path === '/api/v4/projects' ? s.rootToken : undefined });
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
    // Git smart HTTP answers outside Fastify's reply: still nosniff.
    const git = await api.get('/root/nothing.git/info/refs?service=git-upload-pack');
    expect(git.status).toBe(401);
    expect(git.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await api.get('/-/ui/alerts');
    if (page.status === 200) {
      // The UI is built: its HTML carries the UI policy.
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('answers /-/metrics to loopback by default and 404 outside the allowlist', async () => {
    const open = await http(s.url).get('/-/metrics');
    expect(open.status).toBe(200);
    expect(String(open.body)).toContain('svc_http_requests_total');
    const closed = await http(restricted.url).get('/-/metrics');
    expect(closed).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    expect(String(closed.body)).not.toContain('svc_http_requests_total');
    // Other spellings of the path reach the same guard or nothing.
    for (const path of ['/-/metrics/', '/-/metrics?x=1', '/-/%6detrics', '//-/metrics']) {
      const r = await http(restricted.url).get(path);
      // 404, or the UI's index page for a path outside `/-/` (`//-/metrics`): never the metrics.
      if (r.status !== 404) expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(JSON.stringify(r.body)).not.toContain('svc_http_requests_total');
    }
    expect((await http(restricted.url).get('/-/health')).body).toEqual({ status: 'ok' });
    // An IPv4-mapped block admits the IPv4 client it maps.
    const mapped = await startTestServer({ env: { SVC_METRICS_ALLOWLIST: '::ffff:127.0.0.1/128' } });
    try {
      expect((await http(mapped.url).get('/-/metrics')).status).toBe(200);
    } finally {
      await mapped.stop();
    }
  });
});

/** Signs in through the web endpoint; returns status, body and the session cookie (if any). */
async function signIn(base: string, login: string, password: string) {
  const r = await http(base).post('/-/session', { body: { login, password } });
  const cookie = (r.headers.get('set-cookie') ?? '').split(';')[0] || null;
  return { ...r, cookie };
}

/** A git smart HTTP request with Basic credentials (git's first request of a clone). */
function gitBasic(base: string, login: string, password: string) {
  const basic = Buffer.from(`${login}:${password}`).toString('base64');
  return http(base).get('/root/nothing.git/info/refs?service=git-upload-pack', {
    headers: { authorization: `Basic ${basic}` },
  });
}

const INVALID = { status: 401, body: { message: '401 Unauthorized - Invalid login or password.' } };
const LOCKED = { status: 401, body: { message: '401 Unauthorized - Your account is locked.' } };

// Password guessing, sessions after a password change, Sudo to a blocked user.
describe.each(await databases())('password guessing and sessions (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let n = 0;

  /** A fresh user with a password; returns its id and login. */
  async function user(): Promise<{ id: number; login: string; password: string }> {
    n += 1;
    const login = `guess${n}`;
    const password = `right-password-${n}`;
    const r = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: login, name: login, email: `${login}@example.com`, password },
    });
    expect(r.status).toBe(201);
    return { id: r.body.id, login, password };
  }

  async function sessionsOf(userId: number): Promise<number> {
    const rows = await s.server.ctx.db.kysely
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', userId)
      .execute();
    return rows.length;
  }

  beforeAll(async () => {
    // The per-address limit is tested on its own server below; here it stays out of the way.
    s = await startTestServer({ database, env: { SVC_LOGIN_FAILURES_PER_IP: '100000' } });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it('locks an account after 10 failed attempts (web and git together) without telling if a password is right', async () => {
    const u = await user();
    for (let i = 0; i < 5; i++) expect(await signIn(s.url, u.login, `wrong-${i}`)).toMatchObject(INVALID);
    for (let i = 0; i < 4; i++) {
      expect(await gitBasic(s.url, u.login, `wrong-git-${i}`)).toMatchObject({
        status: 401,
        body: 'HTTP Basic: Access denied\n',
      });
    }
    // The 10th failure locks.
    expect(await signIn(s.url, u.login, 'wrong-last')).toMatchObject(LOCKED);
    // Locked: the right password gets the same answer as a wrong one, and no session.
    const right = await signIn(s.url, u.login, u.password);
    expect(right).toMatchObject(LOCKED);
    expect(right.cookie).toBeNull();
    expect(await signIn(s.url, u.login, 'wrong-again')).toMatchObject(LOCKED);
    expect(await signIn(s.url, `${u.login}@example.com`, u.password)).toMatchObject(LOCKED);
    expect(await gitBasic(s.url, u.login, u.password)).toMatchObject({ status: 401 });
    expect(await sessionsOf(u.id)).toBe(0);

    // Ten minutes later the lock has run out.
    s.clock.advance(11 * 60_000);
    expect(await gitBasic(s.url, u.login, u.password)).toMatchObject({
      status: 404,
      body: 'The project you were looking for could not be found.\n',
    });
    const ok = await signIn(s.url, u.login, u.password);
    expect(ok.status).toBe(200);
    expect(ok.cookie).not.toBeNull();
    // A success clears the count: nine more failures do not lock.
    for (let i = 0; i < 9; i++) expect(await signIn(s.url, u.login, `wrong-${i}`)).toMatchObject(INVALID);
    expect((await signIn(s.url, u.login, u.password)).status).toBe(200);
    expect((await api.get('/-/health')).body).toEqual({ status: 'ok' });
  });

  it('keeps concurrent guesses within the limit', async () => {
    const u = await user();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => signIn(s.url, u.login, `parallel-wrong-${i}`)),
    );
    for (const a of answers) expect([INVALID.body.message, LOCKED.body.message]).toContain(a.body.message);
    // Only the first nine were checked and called wrong; the tenth locked; the rest were refused unchecked.
    expect(answers.filter((a) => a.body.message === INVALID.body.message)).toHaveLength(9);
    expect(await signIn(s.url, u.login, u.password)).toMatchObject(LOCKED);
    const row = await s.server.ctx.db.kysely
      .selectFrom('users')
      .select(['failed_attempts', 'locked_at'])
      .where('id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(row.locked_at).not.toBeNull();
  });

  it('ends every session of a user whose password an admin changes; keeps the admin’s own current one', async () => {
    const u = await user();
    const a = await signIn(s.url, u.login, u.password);
    const b = await signIn(s.url, u.login, u.password);
    for (const c of [a.cookie!, b.cookie!]) {
      expect((await api.get('/api/v4/user', { headers: { cookie: c } })).body.username).toBe(u.login);
    }
    const changed = await api.put(`/api/v4/users/${u.id}`, {
      token: s.rootToken,
      body: { password: 'brand-new-password' },
    });
    expect(changed.status).toBe(200);
    for (const c of [a.cookie!, b.cookie!]) {
      expect(await api.get('/api/v4/user', { headers: { cookie: c } })).toMatchObject({
        status: 401,
        body: { message: '401 Unauthorized' },
      });
    }
    expect(await sessionsOf(u.id)).toBe(0);
    expect(await signIn(s.url, u.login, u.password)).toMatchObject(INVALID);
    expect((await signIn(s.url, u.login, 'brand-new-password')).status).toBe(200);

    // An admin changing their own password in the UI stays signed in there; their other sessions end.
    const admin = await user();
    await api.put(`/api/v4/users/${admin.id}`, { token: s.rootToken, body: { admin: true } });
    const here = await signIn(s.url, admin.login, admin.password);
    const elsewhere = await signIn(s.url, admin.login, admin.password);
    const self = await api.put(`/api/v4/users/${admin.id}`, {
      headers: { cookie: here.cookie!, 'x-csrf-token': here.body.csrf_token },
      body: { password: 'admin-new-password' },
    });
    expect(self.status).toBe(200);
    expect((await api.get('/api/v4/user', { headers: { cookie: here.cookie! } })).status).toBe(200);
    expect((await api.get('/api/v4/user', { headers: { cookie: elsewhere.cookie! } })).status).toBe(401);
  });

  it('refuses Sudo to a blocked user, to non-admins and from sessions (GitLab sudo! rules)', async () => {
    const target = await user();
    const sudoToken = await api.post('/api/v4/users/1/personal_access_tokens', {
      token: s.rootToken,
      body: { name: 'sudo', scopes: ['api', 'sudo'] },
    });
    expect(
      (await api.get('/api/v4/user', { token: sudoToken.body.token, headers: { Sudo: target.login } })).body
        .username,
    ).toBe(target.login);
    expect((await api.post(`/api/v4/users/${target.id}/block`, { token: s.rootToken })).status).toBe(201);
    for (const via of [{ headers: { Sudo: target.login } }, { headers: { Sudo: String(target.id) } }]) {
      expect(await api.get('/api/v4/user', { token: sudoToken.body.token, ...via })).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden - Your account has been blocked.' },
      });
    }
    expect(await api.get(`/api/v4/user?sudo=${target.login}`, { token: sudoToken.body.token })).toMatchObject(
      {
        status: 403,
      },
    );
    // A write as the blocked user stores nothing.
    const write = await api.post('/api/v4/projects', {
      token: sudoToken.body.token,
      headers: { Sudo: target.login },
      body: { name: 'as-blocked' },
    });
    expect(write).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Your account has been blocked.' },
    });
    expect((await api.get('/api/v4/projects?search=as-blocked', { token: s.rootToken })).body).toEqual([]);

    // A non-admin with a sudo-scoped token.
    const plain = await user();
    const t = await api.post(`/api/v4/users/${plain.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'sudo', scopes: ['api', 'sudo'] },
    });
    expect(await api.get('/api/v4/user', { token: t.body.token, headers: { Sudo: 'root' } })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Must be admin to use sudo' },
    });
    // A web session cannot use Sudo.
    const session = await signIn(s.url, 'root', s.rootPassword);
    expect(
      await api.get('/api/v4/user', { headers: { cookie: session.cookie!, Sudo: plain.login } }),
    ).toMatchObject({
      status: 403,
      body: {
        message: '403 Forbidden - Must be authenticated using an OAuth or Personal Access Token to use sudo',
      },
    });
    expect((await api.get('/-/health')).body).toEqual({ status: 'ok' });
  });
});

describe('per-address limit on failed sign-ins', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_LOGIN_FAILURES_PER_IP: '3' } });
  });
  afterAll(() => s?.stop());

  it('refuses password attempts from an address after its failures, for any login, on the web and git', async () => {
    for (const login of ['nobody-1', 'nobody-2', 'root']) {
      expect(await signIn(s.url, login, 'wrong-password')).toMatchObject(INVALID);
    }
    const limited = await signIn(s.url, 'root', s.rootPassword);
    expect(limited).toMatchObject({ status: 429, body: { message: '429 Too Many Requests - Retry later' } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.cookie).toBeNull();
    expect(await gitBasic(s.url, 'root', s.rootPassword)).toMatchObject({ status: 401 });
    // Tokens are not passwords: they keep working, and the account itself is not locked.
    expect((await http(s.url).get('/api/v4/user', { token: s.rootToken })).body.username).toBe('root');
    const row = await s.server.ctx.db.kysely
      .selectFrom('users')
      .select('locked_at')
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    expect(row.locked_at).toBeNull();
    expect((await http(s.url).get('/-/health')).body).toEqual({ status: 'ok' });
  });
});
