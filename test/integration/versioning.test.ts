import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { backoffMs } from '../../src/jobs/queue.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const RELEASES = ['16.11', '17.0', '18.0'] as const;
const DATABASES = await databases();
/** Every release on every database of the run. */
const cases = <R extends string>(releases: readonly R[]) =>
  releases.flatMap((release) => DATABASES.map((db) => [release, db] as const));

describe.each(cases(RELEASES))('release %s: gated behaviour and deprecation signals (%s)', (release, db) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const before17 = release === '16.11';

  beforeAll(async () => {
    s = await startTestServer({ database: db, env: { SVC_RELEASE: release } });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it('reports the release in /version', async () => {
    const v = await api.get('/api/v4/version', { token: s.rootToken });
    expect(v.body).toMatchObject({ release, version: `${release}.0` });
  });

  it('offset pagination on /users: deprecated before 17.0, refused from 17.0; keyset always works', async () => {
    const offset = await api.get('/api/v4/users?per_page=5', { token: s.rootToken });
    if (before17) {
      expect(offset.status).toBe(200);
      expect(offset.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(offset.headers.get('sunset')).toBe(new Date('2024-05-16T00:00:00Z').toUTCString());
      expect(offset.headers.get('link')).toMatch(/deprecations\/users_offset_pagination>; rel="deprecation"/);
    } else {
      // No page beyond the first: the first keyset page, so lookups by username keep working in every client.
      expect(offset.status).toBe(200);
      expect(offset.headers.get('deprecation')).toBeNull();
      await api.post('/api/v4/users', {
        token: s.rootToken,
        body: { username: 'second', name: 'S', email: 'second@example.com', password: 'second-password-1' },
      });
      const first = await api.get('/api/v4/users?per_page=1', { token: s.rootToken });
      expect(first.body).toHaveLength(1);
      expect(first.headers.get('link')).toMatch(/pagination=keyset.*rel="next"/);
      const lookup = await api.get('/api/v4/users?username=root', { token: s.rootToken });
      expect(lookup.body).toMatchObject([{ username: 'root' }]);
      expect((await api.get('/api/v4/users?page=1&search=roo', { token: s.rootToken })).status).toBe(200);
      const page2 = await api.get('/api/v4/users?page=2&per_page=5', { token: s.rootToken });
      expect(page2.status).toBe(405);
      expect(page2.body.error).toMatch(/removed from \/users in 17\.0: use keyset pagination/);
    }
    const keyset = await api.get('/api/v4/users?pagination=keyset&per_page=5', { token: s.rootToken });
    expect(keyset.status).toBe(200);
    expect(keyset.headers.get('deprecation')).toBeNull();
    const metrics = await (await fetch(`${s.url}/-/metrics`)).text();
    expect(metrics.includes('svc_deprecated_usage_total{deprecation="users_offset_pagination"} 1')).toBe(
      before17,
    );
  });

  it('private_profile null: accepted in v4 with a deprecation signal, 400 in v5', async () => {
    const body = (n: string) => ({
      username: n,
      name: n,
      email: `${n}@example.com`,
      password: 'password-123',
      private_profile: null,
    });
    const v4 = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: body(`v4user${release.replace('.', '')}`),
    });
    expect(v4.status).toBe(201);
    expect(v4.headers.get('deprecation')).toMatch(/^@\d+$/);
    const v5 = await api.post('/api/v5/users', {
      token: s.rootToken,
      body: body(`v5user${release.replace('.', '')}`),
    });
    expect(v5.status).toBe(400);
    const ok = await api.post('/api/v5/users', {
      token: s.rootToken,
      body: { ...body('v5ok'), private_profile: false },
    });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('deprecation')).toBeNull();
  });

  it('geo_sites in v4 and v5; geo_nodes in v4 only, with deprecation headers', async () => {
    const site = await api.post('/api/v4/geo_sites', {
      token: s.rootToken,
      body: { name: `secondary-${release}`, url: 'https://geo2.example.com/' },
    });
    expect(site.status).toBe(201);
    expect(site.headers.get('deprecation')).toBeNull();
    expect((await api.get(`/api/v5/geo_sites/${site.body.id}`, { token: s.rootToken })).body.name).toBe(
      `secondary-${release}`,
    );
    const nodes = await api.get('/api/v4/geo_nodes', { token: s.rootToken });
    expect(nodes.status).toBe(200);
    expect(nodes.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(nodes.body.map((n: { id: number }) => n.id)).toContain(site.body.id);
    expect(await api.get('/api/v5/geo_nodes', { token: s.rootToken })).toMatchObject({ status: 404 });
    expect(
      (
        await api.get('/api/v4/geo_sites', {
          token: (
            await api.post('/api/v4/users/1/personal_access_tokens', {
              token: s.rootToken,
              body: { name: 'r', scopes: ['read_api'] },
            })
          ).body.token,
        })
      ).status,
    ).toBe(200);
    expect(
      (await api.post('/api/v4/geo_sites', { token: s.rootToken, body: { name: 'no-url' } })).status,
    ).toBe(400);
  });

  it('sign_in_text and help_text: accepted before 17.0, refused from 17.0 pointing at the Appearance API', async () => {
    const r = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { sign_in_text: 'Welcome' },
    });
    if (before17) {
      expect(r.status).toBe(200);
      expect(r.body.sign_in_text).toBe('Welcome');
      expect(r.headers.get('deprecation')).toMatch(/^@\d+$/);
    } else {
      expect(r).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/removed in 17\.0: use the description of the Appearance API/) },
      });
      expect((await api.get('/api/v4/application/settings', { token: s.rootToken })).body).not.toHaveProperty(
        'sign_in_text',
      );
    }
    const appearance = await api.put('/api/v4/application/appearance', {
      token: s.rootToken,
      body: { description: 'Welcome' },
    });
    expect(appearance.body.description).toBe('Welcome');
  });

  it('the deprecations API lists the catalog with what applies at this release', async () => {
    const all = await api.get('/api/v4/deprecations', { token: s.rootToken });
    expect(all.body.instance_release).toBe(release);
    const byId = Object.fromEntries(all.body.deprecations.map((d: { id: string }) => [d.id, d]));
    expect(byId.users_offset_pagination.applies).toBe(!before17);
    expect(byId.runner_registration_token_api.applies).toBe(release === '18.0');
    expect(byId.geo_nodes_api.applies).toBe(false);
    const filtered = await api.get('/api/v4/deprecations?release=17.0&breaking=true', { token: s.rootToken });
    expect(
      filtered.body.deprecations.every(
        (d: { removal: string; breaking: boolean }) => d.removal === '17.0' && d.breaking,
      ),
    ).toBe(true);
    expect((await api.get('/api/v4/deprecations')).status).toBe(401);
  });
});

describe('SVC_SHARED_RUNNERS_REGISTRATION_TOKEN', () => {
  it('is honoured before 18.0 and refused at start-up from 18.0, naming the replacement', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-token-'));
    expect(
      loadConfig({ SVC_DATA_DIR: dir, SVC_RELEASE: '17.0', SVC_SHARED_RUNNERS_REGISTRATION_TOKEN: 'abc' })
        .sharedRunnersRegistrationToken,
    ).toBe('abc');
    expect(() =>
      loadConfig({ SVC_DATA_DIR: dir, SVC_RELEASE: '18.0', SVC_SHARED_RUNNERS_REGISTRATION_TOKEN: 'abc' }),
    ).toThrow(ConfigError);
    expect(() =>
      loadConfig({ SVC_DATA_DIR: dir, SVC_RELEASE: '18.0', SVC_SHARED_RUNNERS_REGISTRATION_TOKEN: 'abc' }),
    ).toThrow(/removed in 18\.0.*POST \/api\/v4\/user\/runners/);
  });
});

/** A loopback HTTP destination that records what it receives and can fail on demand. */
async function destination() {
  const received: { body: Record<string, unknown>; token: string | undefined }[] = [];
  const state = { failNext: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => {
      body += String(c);
    });
    req.on('end', () => {
      if (state.failNext > 0) {
        state.failNext--;
        res.writeHead(500).end();
        return;
      }
      received.push({
        body: JSON.parse(body),
        token: req.headers['x-svc-event-streaming-token'] as string | undefined,
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/events`,
    received,
    state,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe.each(cases(['16.11', '17.0']))('audit events for repository downloads at %s (%s)', (release, db) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let dest: Awaited<ReturnType<typeof destination>>;
  beforeAll(async () => {
    s = await startTestServer({ database: db, env: { SVC_RELEASE: release } });
    api = http(s.url);
    dest = await destination();
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { allow_local_requests_from_web_hooks_and_services: true },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await dest?.close();
  });

  it('stores and streams downloads as the release requires; a failing destination gets the event on retry', async () => {
    const d = await api.post('/api/v4/admin/audit_events/streaming/destinations', {
      token: s.rootToken,
      body: { destination_url: dest.url },
    });
    expect(d.status).toBe(201);
    expect(d.body.verification_token).toMatch(/^[0-9a-f]{24}$/);
    await s.server.ctx.jobs.stop(); // the test drives the worker
    const pub = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'open', visibility: 'public' },
    });
    const priv = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'closed', visibility: 'private' },
    });
    // Empty repositories have no archive; give them a commit through the snippet-free plumbing.
    for (const p of [pub.body, priv.body]) {
      const path = s.server.ctx.git.path('project', p.id, p.repository_storage);
      await s.server.ctx.git.git.commitFile(path, 'main', { name: 'a.txt', content: 'a' }, 'init', {
        name: 't',
        email: 't@x',
      });
    }
    dest.state.failNext = 1;
    for (const p of [pub.body, priv.body]) {
      const r = await fetch(`${s.url}/api/v4/projects/${p.id}/repository/archive`, {
        headers: { 'PRIVATE-TOKEN': s.rootToken },
      });
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    }
    await s.server.ctx.jobs.drain();
    // One delivery failed: its job is back in the queue with a backoff; let the backoff pass and run it.
    const retried = (await s.server.ctx.jobs.pending()).filter((j) => j.lastError !== null);
    expect(retried).toMatchObject([{ state: 'pending', attempts: 1 }]);
    s.clock.advance(backoffMs(1));
    await s.server.ctx.jobs.drain();
    const names = dest.received.map((r) => `${r.body.entity_id}:${r.body.event_name}`).sort();
    const publicName =
      release === '16.11' ? 'repository_download_operation' : 'public_repository_download_operation';
    expect(names).toEqual(
      [`${pub.body.id}:${publicName}`, `${priv.body.id}:repository_download_operation`].sort(),
    );
    expect(dest.received.every((r) => r.token === d.body.verification_token)).toBe(true);
    const stored = await api.get('/api/v4/audit_events', { token: s.rootToken });
    const storedFor = (id: number) => stored.body.filter((e: { entity_id: number }) => e.entity_id === id);
    expect(storedFor(priv.body.id).map((e: { event_name: string }) => e.event_name)).toEqual([
      'repository_download_operation',
    ]);
    expect(storedFor(pub.body.id)).toHaveLength(release === '16.11' ? 1 : 0);
    const projectEvents = await api.get(`/api/v4/projects/${priv.body.id}/audit_events`, {
      token: s.rootToken,
    });
    expect(projectEvents.body).toHaveLength(1);
    s.server.ctx.jobs.start(200, 2);
  });

  it('pages audit events with keyset pagination, newest first', async () => {
    const first = await api.get('/api/v4/audit_events?per_page=1', { token: s.rootToken });
    expect(first.body).toHaveLength(1);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '');
    if (next) {
      const second = await api.get(next[1]!.slice(s.url.length), { token: s.rootToken });
      expect(second.body[0].id).toBeLessThan(first.body[0].id);
    }
    expect((await api.get('/api/v4/audit_events')).status).toBe(401);
  });
});

describe.each(DATABASES)('Geo resync after a storage move (spec rule 9, %s)', (db) => {
  it('records that the moved repository needs a resync on every secondary site', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-geo-'));
    const s = await startTestServer({
      database: db,
      env: { SVC_STORAGES: `default=${dir}/a,fast=${dir}/b` },
    });
    try {
      const api = http(s.url);
      const site = await api.post('/api/v4/geo_sites', {
        token: s.rootToken,
        body: { name: 'dr', url: 'https://dr.example.com' },
      });
      const p = await api.post('/api/v4/projects', {
        token: s.rootToken,
        body: { name: 'moved', repository_storage: 'default' },
      });
      await api.post(`/api/v4/projects/${p.body.id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: 'fast' },
      });
      await s.server.ctx.jobs.drain();
      const status = await api.get(`/api/v4/geo_sites/${site.body.id}/status`, { token: s.rootToken });
      expect(status.body).toMatchObject({
        geo_node_id: site.body.id,
        repositories_pending_resync_count: 1,
        pending_resyncs: [{ type: 'project', id: p.body.id, reason: 'repository storage move' }],
      });
    } finally {
      await s.stop();
    }
  });
});
