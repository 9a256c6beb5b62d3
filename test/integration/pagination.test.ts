import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('pagination, snippets, settings and features (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    // 16.11: offset pagination on /users still works there (removed in 17.0; see versioning.test.ts).
    s = await startTestServer({ database, env: { SVC_RELEASE: '16.11' } });
    api = http(s.url);
    for (let i = 1; i <= 7; i++) {
      const r = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `p${i}` } });
      expect(r.status).toBe(201);
      const u = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: { username: `u${i}`, name: `User ${i}`, email: `u${i}@example.com`, password: 'password-123' },
      });
      expect(u.status).toBe(201);
    }
  });
  afterAll(() => s?.stop());

  it('sets GitLab offset pagination headers', async () => {
    const r = await api.get('/api/v4/projects?per_page=3&page=2&order_by=id&sort=asc', {
      token: s.rootToken,
    });
    expect(r.body.map((p: { name: string }) => p.name)).toEqual(['p4', 'p5', 'p6']);
    expect(r.headers.get('x-total')).toBe('7');
    expect(r.headers.get('x-total-pages')).toBe('3');
    expect(r.headers.get('x-per-page')).toBe('3');
    expect(r.headers.get('x-page')).toBe('2');
    expect(r.headers.get('x-next-page')).toBe('3');
    expect(r.headers.get('x-prev-page')).toBe('1');
    const link = r.headers.get('link')!;
    for (const rel of ['prev', 'next', 'first', 'last']) expect(link).toContain(`rel="${rel}"`);
    expect(link).toContain(
      `<${s.url}/api/v4/projects?per_page=3&page=3&order_by=id&sort=asc>; rel="next"`.replace(
        'per_page=3&page=3',
        'per_page=3&page=3',
      ),
    );
    const last = await api.get('/api/v4/projects?per_page=3&page=3', { token: s.rootToken });
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('link')).not.toContain('rel="next"');
    // Defaults 20; per_page above 100 is clamped to 100.
    expect((await api.get('/api/v4/projects', { token: s.rootToken })).headers.get('x-per-page')).toBe('20');
    expect(
      (await api.get('/api/v4/projects?per_page=1000', { token: s.rootToken })).headers.get('x-per-page'),
    ).toBe('100');
    expect(await api.get('/api/v4/projects?page=abc', { token: s.rootToken })).toMatchObject({
      status: 400,
      body: { error: 'page is invalid' },
    });
  });

  it('pages projects with keyset pagination (order_by=id) through Link rel="next"', async () => {
    const seen: string[] = [];
    let next: string | null = `/api/v4/projects?pagination=keyset&per_page=3&order_by=id&sort=asc`;
    while (next) {
      const r = await api.get(next, { token: s.rootToken });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-total')).toBeNull();
      seen.push(...r.body.map((p: { name: string }) => p.name));
      const m = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '');
      next = m ? m[1]!.slice(s.url.length) : null;
    }
    expect(seen).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    const bad = await api.get('/api/v4/projects?pagination=keyset&order_by=name', { token: s.rootToken });
    expect(bad).toMatchObject({
      status: 405,
      body: { error: 'Keyset pagination is not yet available for this type of request' },
    });
  });

  it('pages users with cursor keyset pagination in every supported order', async () => {
    for (const [orderBy, sort] of [
      ['id', 'desc'],
      ['username', 'asc'],
      ['name', 'desc'],
    ] as const) {
      const seen: string[] = [];
      let next: string | null = `/api/v4/users?pagination=keyset&per_page=2&order_by=${orderBy}&sort=${sort}`;
      while (next) {
        const r = await api.get(next, { token: s.rootToken });
        expect(r.status).toBe(200);
        seen.push(...r.body.map((u: { username: string }) => u.username));
        const m = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '');
        next = m ? m[1]!.slice(s.url.length) : null;
      }
      const all = (
        await api.get(`/api/v4/users?per_page=100&order_by=${orderBy}&sort=${sort}`, { token: s.rootToken })
      ).body;
      expect(seen).toEqual(all.map((u: { username: string }) => u.username));
      expect(seen).toHaveLength(8);
    }
    expect(
      (await api.get('/api/v4/users?pagination=keyset&cursor=garbage', { token: s.rootToken })).body,
    ).toEqual({
      error: 'cursor is invalid',
    });
  });

  it('serves personal and project snippets with visibility and raw content', async () => {
    const u1 = await api.post('/api/v4/users/2/personal_access_tokens', {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    const t = u1.body.token as string;
    const mine = await api.post('/api/v4/snippets', {
      token: t,
      body: { title: 'Hello', file_name: 'hello.sh', content: 'echo hi\n', visibility: 'private' },
    });
    expect(mine.status).toBe(201);
    expect(mine.body.author.username).toBe('u1');
    expect((await api.get(`/api/v4/snippets/${mine.body.id}/raw`, { token: t })).body).toBe('echo hi\n');
    expect((await api.get(`/api/v4/snippets/${mine.body.id}`)).status).toBe(404);
    expect((await api.get(`/api/v4/snippets/${mine.body.id}`, { token: s.rootToken })).body).toHaveProperty(
      'repository_storage',
    );
    expect(await api.post('/api/v4/snippets', { token: t, body: { title: 'x' } })).toMatchObject({
      status: 400,
      body: { error: 'content is missing' },
    });
    // GitLab's files[] form, with the one file an svc snippet holds.
    const files = await api.post('/api/v4/snippets', {
      token: t,
      body: { title: 'f', files: [{ file_path: 'run.sh', content: 'echo files\n' }] },
    });
    expect(files).toMatchObject({ status: 201, body: { file_name: 'run.sh' } });
    expect((await api.get(`/api/v4/snippets/${files.body.id}/raw`, { token: t })).body).toBe('echo files\n');
    const two = [
      { file_path: 'a', content: 'a' },
      { file_path: 'b', content: 'b' },
    ];
    expect(
      await api.post('/api/v4/snippets', { token: t, body: { title: 'two', files: two } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'files holds more than the one file of an svc snippet' },
    });
    expect(
      await api.post('/api/v4/snippets', {
        token: t,
        body: { title: 'both', content: 'x', files: [{ file_path: 'a', content: 'a' }] },
      }),
    ).toMatchObject({ status: 400, body: { error: 'files, content are mutually exclusive' } });
    const project = await api.post('/api/v4/projects', {
      token: t,
      body: { name: 'snips', visibility: 'public' },
    });
    const ps = await api.post(`/api/v4/projects/${project.body.id}/snippets`, {
      token: t,
      body: { title: 'Project one', content: 'data', visibility: 'public' },
    });
    expect(ps.status).toBe(201);
    expect((await api.get(`/api/v4/projects/${project.body.id}/snippets/${ps.body.id}/raw`)).body).toBe(
      'data',
    );
    const other = await api.post('/api/v4/users/3/personal_access_tokens', {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    expect(
      (await api.put(`/api/v4/snippets/${mine.body.id}`, { token: other.body.token, body: { title: 'x' } }))
        .status,
    ).toBe(404);
    expect(
      (
        await api.delete(`/api/v4/projects/${project.body.id}/snippets/${ps.body.id}`, {
          token: other.body.token,
        })
      ).status,
    ).toBe(403);
    expect((await api.delete(`/api/v4/snippets/${mine.body.id}`, { token: t })).status).toBe(204);
  });

  it('manages application settings and feature flags (admin only)', async () => {
    const put = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { default_project_visibility: 'internal', user_defaults_to_private_profile: true },
    });
    expect(put.body).toMatchObject({
      default_project_visibility: 'internal',
      user_defaults_to_private_profile: true,
    });
    const bad = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { nowhere: 10 } },
    });
    expect(bad.status).toBe(400);
    expect(
      (await api.get('/api/v4/application/settings', { token: s.rootToken })).body
        .repository_storages_weighted,
    ).toEqual({
      default: 100,
    });
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'defaults' } });
    expect(p.body.visibility).toBe('internal');

    const on = await api.post('/api/v4/features/generic_alert_fingerprinting', {
      token: s.rootToken,
      body: { value: true },
    });
    expect(on).toMatchObject({ status: 201, body: { name: 'generic_alert_fingerprinting', state: 'on' } });
    const actor = await api.post('/api/v4/features/other_flag', {
      token: s.rootToken,
      body: { value: 'true', project: p.body.path_with_namespace },
    });
    expect(actor.body).toMatchObject({
      state: 'conditional',
      gates: [
        { key: 'boolean', value: false },
        { key: 'actors', value: [`Project:${p.body.id}`] },
      ],
    });
    const list = await api.get('/api/v4/features', { token: s.rootToken });
    expect(list.body.map((f: { name: string }) => f.name)).toEqual([
      'generic_alert_fingerprinting',
      'other_flag',
    ]);
    const u = await api.post('/api/v4/users/2/personal_access_tokens', {
      token: s.rootToken,
      body: { name: 'f', scopes: ['api'] },
    });
    expect((await api.get('/api/v4/features', { token: u.body.token })).status).toBe(403);
    expect((await api.delete('/api/v4/features/other_flag', { token: s.rootToken })).status).toBe(204);
    expect((await api.delete('/api/v4/features/other_flag', { token: s.rootToken })).status).toBe(404);
  });

  it('accepts private_profile null in v4 (instance default applies) and refuses it in v5', async () => {
    const body = {
      username: 'pp',
      name: 'PP',
      email: 'pp@example.com',
      password: 'password-123',
      private_profile: null,
    };
    const v5 = await api.post('/api/v5/users', { token: s.rootToken, body });
    expect(v5.status).toBe(400);
    expect((await api.get('/api/v4/users?username=pp', { token: s.rootToken })).body).toEqual([]);
    const v4 = await api.post('/api/v4/users', { token: s.rootToken, body });
    expect(v4.status).toBe(201);
    expect(v4.body.private_profile).toBe(true); // the default set in the settings test above
  });
});
