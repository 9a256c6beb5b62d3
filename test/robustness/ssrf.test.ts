import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_STREAM_JOB } from '../../src/audit/audit.service.js';
import { databases } from '../helpers/databases.js';
import { type FakeSentry, startFakeSentry } from '../helpers/fake-sentry.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A loopback listener that must never be reached: it records every request. */
async function trap() {
  const seen: { method: string; url: string }[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '' });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A request with the path sent exactly as written (fetch would normalise `..` and `%2e%2e` away). */
function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { ...headers, ...(body && { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += String(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Spellings of loopback, private and metadata addresses that WHATWG URL parsing keeps pointing there. */
const localHosts = (port: number) => [
  `http://[::ffff:127.0.0.1]:${port}`,
  `http://[::ffff:7f00:1]:${port}`,
  `http://[0:0:0:0:0:ffff:7f00:1]:${port}`,
  `http://[::127.0.0.1]:${port}`,
  `http://[::ffff:0:127.0.0.1]:${port}`,
  `http://2130706433:${port}`,
  `http://0x7f.1:${port}`,
  `http://0177.0.0.1:${port}`,
  `http://127.1:${port}`,
  `http://0.0.0.0:${port}`,
  `http://localhost:${port}`,
  'http://[::ffff:169.254.169.254]',
  'http://[::ffff:a9fe:a9fe]',
  'http://[0:0:0:0:0:ffff:a9fe:a9fe]',
  'http://169.254.169.254',
  'http://[::ffff:10.0.0.1]',
  'http://[::ffff:192.168.0.1]',
  'http://[fd00::1]',
];

const BLOCKED = 'requests to the local network are not allowed';

describe.each(await databases())('outbound requests: SSRF, path parameters, CSRF (%s)', (database) => {
  let s: TestServer;
  let sentry: FakeSentry;
  let hole: Awaited<ReturnType<typeof trap>>;
  let api: ReturnType<typeof http>;
  let projectId: number;
  let projectPath: string;

  const allowLocal = (value: boolean) =>
    api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: value },
    });

  beforeAll(async () => {
    [s, sentry, hole] = await Promise.all([
      startTestServer({ database, env: { SVC_OUTBOUND_TIMEOUT_MS: '2000' } }),
      startFakeSentry(),
      trap(),
    ]);
    api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'outbound' } });
    projectId = p.body.id;
    projectPath = p.body.path_with_namespace;
  });
  afterAll(async () => {
    await s?.stop();
    await sentry?.stop();
    await hole?.close();
  });

  it('refuses local spellings in the Connect action, the Sentry settings and audit destinations; nothing reaches loopback', async () => {
    await allowLocal(false);
    const settingsBefore = await api.get(`/api/v4/projects/${projectId}/error_tracking/settings`, {
      token: s.rootToken,
    });
    for (const host of localHosts(hole.port)) {
      const connect = await api.get(
        `/${projectPath}/-/error_tracking/projects.json?api_host=${encodeURIComponent(host)}&token=secret-token`,
        { token: s.rootToken },
      );
      expect(connect, host).toMatchObject({
        status: 400,
        body: { message: `Error when connecting to Sentry: ${BLOCKED}` },
      });
      const saved = await api.put(`/api/v4/projects/${projectId}/error_tracking/settings`, {
        token: s.rootToken,
        body: { active: false, integrated: false, api_host: host, token: 'secret-token' },
      });
      expect(saved, host).toMatchObject({
        status: 400,
        body: { message: { api_host: [`is blocked: ${BLOCKED}`] } },
      });
      const dest = await api.post('/api/v4/admin/audit_events/streaming/destinations', {
        token: s.rootToken,
        body: { destination_url: `${host}/events` },
      });
      expect(dest, host).toMatchObject({
        status: 400,
        body: { message: { destination_url: [`is blocked: ${BLOCKED}`] } },
      });
    }
    expect(hole.seen).toEqual([]);
    // Nothing stored.
    expect(
      await api.get(`/api/v4/projects/${projectId}/error_tracking/settings`, { token: s.rootToken }),
    ).toMatchObject({ status: settingsBefore.status, body: settingsBefore.body });
    expect(
      (await api.get('/api/v4/admin/audit_events/streaming/destinations', { token: s.rootToken })).body,
    ).toEqual([]);
    expect((await api.get('/-/health')).status).toBe(200);
  });

  it('records a refused delivery when a stored audit destination points at loopback; nothing reaches it', async () => {
    await allowLocal(true);
    const dest = await api.post('/api/v4/admin/audit_events/streaming/destinations', {
      token: s.rootToken,
      body: { destination_url: `http://[::ffff:127.0.0.1]:${hole.port}/events` },
    });
    expect(dest.status).toBe(201);
    await allowLocal(false);
    const ctx = s.server.ctx;
    await ctx.jobs.stop(); // the test drives the worker
    try {
      await ctx.db.kysely.deleteFrom('jobs').execute();
      await ctx.jobs.enqueue(AUDIT_STREAM_JOB, {
        destinationId: dest.body.id,
        event: {
          id: 1,
          event_name: 'repository_download_operation',
          entity_id: projectId,
          entity_type: 'Project',
        },
      });
      await ctx.jobs.drain();
      const jobs = await ctx.jobs.pending();
      expect(jobs).toHaveLength(1);
      expect(jobs[0]!.lastError).toContain(BLOCKED);
      expect(jobs[0]!.lastError).not.toContain(dest.body.verification_token);
      expect(hole.seen).toEqual([]);
    } finally {
      await ctx.db.kysely.deleteFrom('jobs').execute();
      await api.delete(`/api/v4/admin/audit_events/streaming/destinations/${dest.body.id}`, {
        token: s.rootToken,
      });
      ctx.jobs.start(200, 1);
    }
  });

  it('validates every path parameter of Sentry API calls: no request leaves with a bad one', async () => {
    await allowLocal(true);
    const saved = await api.put(`/api/v4/projects/${projectId}/error_tracking/settings`, {
      token: s.rootToken,
      body: {
        active: true,
        integrated: false,
        api_host: sentry.url,
        token: sentry.token,
        project: { slug: 'backend', name: 'Backend', organization_slug: 'acme', organization_name: 'Acme' },
      },
    });
    expect(saved.status).toBe(200);
    const before = sentry.requests.length;
    const auth = { 'PRIVATE-TOKEN': s.rootToken };
    const base = `/api/v4/projects/${projectId}/error_tracking/errors`;
    for (const id of [
      '..',
      '%2e%2e',
      '.',
      '..%2F..',
      '1001%2F..%2F..',
      '1001%3Fx%3D1',
      'abc',
      '-1',
      '0',
      '1e3',
      '%20',
      '1001%23',
    ]) {
      for (const [method, path, body] of [
        ['GET', `${base}/${id}`, undefined],
        ['GET', `${base}/${id}/stack_trace`, undefined],
        ['PUT', `${base}/${id}`, JSON.stringify({ status: 'resolved' })],
      ] as const) {
        const r = await rawRequest(s.url, method, path, auth, body);
        expect(r, `${method} ${path}`).toMatchObject({ status: 400, body: { error: 'error_id is invalid' } });
      }
    }
    expect(sentry.requests.slice(before)).toEqual([]);
    // Slugs outside Sentry's rules are refused before they become part of the stored API URL.
    for (const [org, slug] of [
      ['..', 'backend'],
      ['acme', '..'],
      ['acme', 'a/b'],
      ['acme', '%2e%2e'],
      ['acme', 'a?b'],
      ['123', 'backend'],
    ]) {
      const r = await api.put(`/api/v4/projects/${projectId}/error_tracking/settings`, {
        token: s.rootToken,
        body: { project: { slug, name: 'x', organization_slug: org, organization_name: 'x' } },
      });
      expect(r, `${org}/${slug}`).toMatchObject({
        status: 400,
        body: { message: { project: [expect.any(String)] } },
      });
    }
    expect(
      (await api.get(`/api/v4/projects/${projectId}/error_tracking/settings`, { token: s.rootToken })).body,
    ).toMatchObject({ api_url: `${sentry.url}/api/0/projects/acme/backend/` });
    // A stored API URL that is not a project URL (an older row) is not followed either.
    await s.server.ctx.db.kysely
      .updateTable('error_tracking_settings')
      .set({ api_url: `${sentry.url}/api/0/projects/acme/%2e%2e/` })
      .where('project_id', '=', projectId)
      .execute();
    const list = await api.get(base, { token: s.rootToken });
    expect(list).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Error Tracking is not configured' },
    });
    expect(sentry.requests.slice(before)).toEqual([]);
    // The valid forms still work.
    await s.server.ctx.db.kysely
      .updateTable('error_tracking_settings')
      .set({ api_url: `${sentry.url}/api/0/projects/acme/backend/` })
      .where('project_id', '=', projectId)
      .execute();
    expect((await api.get(`${base}/1001`, { token: s.rootToken })).status).toBe(200);
    expect(sentry.requests.at(-1)?.path).toBe('/api/0/issues/1001/');
    expect((await api.get('/-/health')).status).toBe(200);
  });

  it('refuses the Connect action to a session cookie without the CSRF token (a cross-site request)', async () => {
    await allowLocal(true);
    const signIn = await fetch(`${s.url}/-/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'root', password: s.rootPassword }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };
    const before = sentry.requests.length;
    const connect = (q: string, headers: Record<string, string>) =>
      api.get(`/${projectPath}/-/error_tracking/projects.json?${q}`, { headers: { cookie, ...headers } });
    const crossSite = {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
      referer: 'https://evil.example/',
    };
    for (const q of [
      `api_host=${encodeURIComponent(sentry.url)}&token=********`, // the stored token
      `api_host=${encodeURIComponent(sentry.url)}&token=${sentry.token}`,
    ]) {
      for (const headers of [crossSite, { ...crossSite, 'x-csrf-token': 'wrong' }, { 'x-csrf-token': '' }]) {
        expect(await connect(q, headers)).toMatchObject({
          status: 403,
          body: { message: '403 Forbidden - CSRF token is missing or invalid' },
        });
      }
    }
    expect(sentry.requests.slice(before)).toEqual([]);
    // The UI's own request carries the token and works.
    const ok = await connect(`api_host=${encodeURIComponent(sentry.url)}&token=********`, {
      'x-csrf-token': csrf,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.projects).toHaveLength(2);
    expect((await api.get('/-/health')).status).toBe(200);
  });
});
