import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const READ_ONLY = 'The repository is temporarily read-only. Please try again later.';

describe.each(await databases())('repositories and storage moves (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let storages: string;
  let n = 0;

  beforeAll(async () => {
    storages = mkdtempSync(join(tmpdir(), 'svc-storages-'));
    mkdirSync(join(storages, 'a'));
    // "alias" is a symlink to "a": a different configured path, the same directory.
    symlinkSync(join(storages, 'a'), join(storages, 'alias'));
    s = await startTestServer({
      database,
      env: {
        SVC_STORAGES: `default=${storages}/a,fast=${storages}/b,alias=${storages}/alias`,
        SVC_TIER: 'premium',
      },
    });
    api = http(s.url);
    // Keep new repositories off "alias" so only explicit requests use it.
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { default: 100, fast: 0, alias: 0 } },
    });
  });
  afterAll(() => s?.stop());

  async function project(extra: Record<string, unknown> = {}) {
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: `repo-${++n}`, visibility: 'private', ...extra },
    });
    expect(p.status).toBe(201);
    return p.body as {
      id: number;
      http_url_to_repo: string;
      repository_storage: string;
      path_with_namespace: string;
    };
  }
  const url = (p: { http_url_to_repo: string }) => authUrl(p.http_url_to_repo, 'root', s.rootToken);
  const moves = async (path: string) => (await api.get(path, { token: s.rootToken })).body as any[];

  it('creates a bare repository on the weighted storage; clone, push and archive work over real git', async () => {
    const p = await project();
    expect(p.repository_storage).toBe('default');
    const { push } = await pushCommit(url(p));
    expect(push.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'svc-clone-'));
    expect((await git(['clone', '--quiet', url(p), 'c'], dir)).code).toBe(0);
    expect(existsSync(join(dir, 'c', 'README.md'))).toBe(true);
    // Anonymous clone of a private project is refused; a public one works.
    expect((await git(['clone', '--quiet', p.http_url_to_repo, 'anon'], dir)).code).not.toBe(0);
    const archive = await fetch(`${s.url}/api/v4/projects/${p.id}/repository/archive`, {
      headers: { 'PRIVATE-TOKEN': s.rootToken },
    });
    expect(archive.status).toBe(200);
    expect(archive.headers.get('content-type')).toBe('application/gzip');
    expect((await archive.arrayBuffer()).byteLength).toBeGreaterThan(50);
    // The format as a suffix, as python-gitlab asks (`repository_archive(format="tar.gz")`); svc makes only tar.gz.
    const suffixed = await fetch(`${s.url}/api/v4/projects/${p.id}/repository/archive.tar.gz`, {
      headers: { 'PRIVATE-TOKEN': s.rootToken },
    });
    expect(suffixed.status).toBe(200);
    expect(suffixed.headers.get('content-type')).toBe('application/gzip');
    expect(new Uint8Array(await suffixed.arrayBuffer()).subarray(0, 2)).toEqual(new Uint8Array([0x1f, 0x8b]));
    const zip = await fetch(`${s.url}/api/v4/projects/${p.id}/repository/archive.zip`, {
      headers: { 'PRIVATE-TOKEN': s.rootToken },
    });
    expect(zip.status).toBe(404);
    await zip.arrayBuffer();
    // Weights: with default at 0, new projects go to fast.
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { default: 0, fast: 100, alias: 0 } },
    });
    expect((await project()).repository_storage).toBe('fast');
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { default: 100, fast: 0, alias: 0 } },
    });
  });

  it('moves a project: read-only while scheduled, verified copy, switched, source removed, writable after', async () => {
    const p = await project();
    const first = await pushCommit(url(p));
    expect(first.push.code).toBe(0);
    await s.server.ctx.jobs.stop(); // hold the worker so the move stays scheduled while we look
    try {
      const m = await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: 'fast' },
      });
      expect(m).toMatchObject({
        status: 201,
        body: {
          state: 'scheduled',
          source_storage_name: 'default',
          destination_storage_name: 'fast',
          project: { id: p.id },
        },
      });
      // Pushes are refused with the message git shows; reads and clones keep working.
      await git(
        ['-c', 'user.name=T', '-c', 'user.email=t@x', 'commit', '--quiet', '--allow-empty', '-m', 'during'],
        first.dir,
      );
      const refused = await git(['push', 'origin', 'HEAD:main'], first.dir);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(READ_ONLY);
      const dir = mkdtempSync(join(tmpdir(), 'svc-clone-'));
      expect((await git(['clone', '--quiet', url(p), 'c'], dir)).code).toBe(0);
      // A second move is refused.
      const again = await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: 'fast' },
      });
      expect(again).toMatchObject({
        status: 400,
        body: { message: { project: ['is read-only'] } },
      });
      // API writes to content are refused too.
      expect(await api.delete(`/api/v4/projects/${p.id}`, { token: s.rootToken })).toMatchObject({
        status: 403,
        body: { message: READ_ONLY },
      });
      await s.server.ctx.jobs.drain();
    } finally {
      s.server.ctx.jobs.start(200, 2);
    }
    const [move] = await moves(`/api/v4/projects/${p.id}/repository_storage_moves`);
    expect(move).toMatchObject({ state: 'finished', error_message: null });
    expect((await api.get(`/api/v4/projects/${p.id}`, { token: s.rootToken })).body.repository_storage).toBe(
      'fast',
    );
    const rel = s.server.ctx.git.path('project', p.id, 'default');
    expect(existsSync(rel)).toBe(false);
    expect(existsSync(s.server.ctx.git.path('project', p.id, 'fast'))).toBe(true);
    // The refused commit can now be pushed; a fresh clone from the new storage has both commits.
    expect((await git(['push', '--quiet', 'origin', 'HEAD:main'], first.dir)).code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'svc-clone-'));
    expect((await git(['clone', '--quiet', url(p), 'c'], dir)).code).toBe(0);
    expect((await git(['rev-list', '--count', 'HEAD'], join(dir, 'c'))).stdout.trim()).toBe('2');
    expect(
      (await api.get(`/api/v4/projects/${p.id}/repository_storage_moves/${move.id}`, { token: s.rootToken }))
        .body.state,
    ).toBe('finished');
  });

  it('refuses bad requests clearly: unknown storages, same storage, same directory, non-admins', async () => {
    const p = await project();
    const path = `/api/v4/projects/${p.id}/repository_storage_moves`;
    expect(
      await api.post(path, { token: s.rootToken, body: { destination_storage_name: 'nowhere' } }),
    ).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/destination_storage_name does not have a valid value/) },
    });
    expect(
      (await api.post(path, { token: s.rootToken, body: { destination_storage_name: 'default' } })).status,
    ).toBe(400);
    const same = await api.post(path, { token: s.rootToken, body: { destination_storage_name: 'alias' } });
    expect(same).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/resolve to the same directory/) },
    });
    expect(existsSync(s.server.ctx.git.path('project', p.id, 'default'))).toBe(true);
    expect(
      (
        await api.post('/api/v4/project_repository_storage_moves', {
          token: s.rootToken,
          body: { source_storage_name: 'nowhere' },
        })
      ).status,
    ).toBe(400);
    const user = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: `mover${n}`, name: 'm', email: `mover${n}@x.com`, password: 'password-123' },
    });
    const t = await api.post(`/api/v4/users/${user.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    expect((await api.get('/api/v4/project_repository_storage_moves', { token: t.body.token })).status).toBe(
      403,
    );
    expect(
      (await api.post(path, { token: t.body.token, body: { destination_storage_name: 'fast' } })).status,
    ).toBe(403);
    // Private-Token in any case works for admins.
    expect(
      (
        await api.get('/api/v4/project_repository_storage_moves', {
          headers: { 'Private-Token': s.rootToken },
        })
      ).status,
    ).toBe(200);
    // A non-admin may not change repository_storage through PUT /projects either; nothing changes.
    const put = await api.put(`/api/v4/projects/${p.id}`, {
      token: t.body.token,
      body: { repository_storage: 'fast', description: 'x' },
    });
    expect([403, 404]).toContain(put.status);
    expect((await api.get(`/api/v4/projects/${p.id}`, { token: s.rootToken })).body).toMatchObject({
      description: '',
      repository_storage: 'default',
    });
  });

  it('fails a move whose copy cannot be made, leaves the source intact and writable, and a rescheduled move succeeds', async () => {
    const p = await project();
    expect((await pushCommit(url(p))).push.code).toBe(0);
    const target = s.server.ctx.git.path('project', p.id, 'fast');
    // A file where the destination directory must go makes the copy fail.
    mkdirSync(join(target, '..'), { recursive: true });
    const { writeFileSync, rmSync } = await import('node:fs');
    writeFileSync(target, 'in the way');
    const m = await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
      token: s.rootToken,
      body: { destination_storage_name: 'fast' },
    });
    await s.server.ctx.jobs.drain();
    const failed = (
      await api.get(`/api/v4/projects/${p.id}/repository_storage_moves/${m.body.id}`, { token: s.rootToken })
    ).body;
    expect(failed.state).toBe('failed');
    expect(failed.error_message).toMatch(/copy failed/);
    expect((await api.get(`/api/v4/projects/${p.id}`, { token: s.rootToken })).body.repository_storage).toBe(
      'default',
    );
    expect((await pushCommit(url(p), 'second.txt')).push.code).toBe(0);
    rmSync(target, { force: true });
    const again = await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
      token: s.rootToken,
      body: { destination_storage_name: 'fast' },
    });
    expect(again.status).toBe(201);
    await s.server.ctx.jobs.drain();
    expect(
      (
        await api.get(`/api/v4/projects/${p.id}/repository_storage_moves/${again.body.id}`, {
          token: s.rootToken,
        })
      ).body.state,
    ).toBe('finished');
  });

  it('moves a whole storage in bulk (202) for projects, snippets and groups; nothing is left on the old one', async () => {
    const ps = [await project(), await project(), await project()];
    for (const p of ps) expect((await pushCommit(url(p))).push.code).toBe(0);
    const snippet = await api.post('/api/v4/snippets', {
      token: s.rootToken,
      body: { title: 'S', content: 'snippet body', visibility: 'public' },
    });
    const group = await api.post('/api/v4/groups', {
      token: s.rootToken,
      body: { name: `G${n}`, path: `g${n}` },
    });
    for (const type of ['project', 'snippet', 'group']) {
      const r = await api.post(`/api/v4/${type}_repository_storage_moves`, {
        token: s.rootToken,
        body: { source_storage_name: 'default', destination_storage_name: 'fast' },
      });
      expect(r.status, type).toBe(202);
    }
    await s.server.ctx.jobs.drain();
    expect(
      (await api.get('/api/v4/projects?repository_storage=default&per_page=100', { token: s.rootToken }))
        .body,
    ).toEqual([]);
    for (const type of ['project', 'snippet', 'group']) {
      const list = await moves(`/api/v4/${type}_repository_storage_moves?per_page=100`);
      expect(list.length, type).toBeGreaterThan(0);
      expect(
        list.every((m) => m.state === 'finished' || m.state === 'failed'),
        type,
      ).toBe(true);
    }
    expect(
      (await api.get(`/api/v4/snippets/${snippet.body.id}`, { token: s.rootToken })).body.repository_storage,
    ).toBe('fast');
    const snippetRepo = s.server.ctx.git.path('snippet', snippet.body.id, 'fast');
    expect((await git(['show', 'main:snippet.txt'], snippetRepo)).stdout).toBe('snippet body');
    const groupMoves = await moves(`/api/v4/groups/${group.body.id}/repository_storage_moves`);
    expect(groupMoves[0]).toMatchObject({ state: 'finished', group: { id: group.body.id } });
    // Newest first, paginated.
    const page = await api.get('/api/v4/project_repository_storage_moves?per_page=2', { token: s.rootToken });
    expect(page.headers.get('x-per-page')).toBe('2');
    expect(page.body[0].id).toBeGreaterThan(page.body[1].id);
    for (const p of ps) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-clone-'));
      expect((await git(['clone', '--quiet', url(p), 'c'], dir)).code).toBe(0);
    }
  });
});

describe('storage move offering and tier rules', () => {
  it('refuses project and snippet moves on the hosted offering and group moves on Free', async () => {
    const hosted = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
    const free = await startTestServer();
    try {
      const h = await http(hosted.url).get('/api/v4/project_repository_storage_moves', {
        token: hosted.rootToken,
      });
      expect(h).toMatchObject({ status: 403, body: { message: expect.stringMatching(/self-managed/) } });
      const g = await http(free.url).get('/api/v4/group_repository_storage_moves', { token: free.rootToken });
      expect(g).toMatchObject({
        status: 403,
        body: { message: expect.stringMatching(/Premium or Ultimate/) },
      });
      expect(
        (await http(free.url).get('/api/v4/snippet_repository_storage_moves', { token: free.rootToken }))
          .status,
      ).toBe(200);
    } finally {
      await hosted.stop();
      await free.stop();
    }
  });
});
