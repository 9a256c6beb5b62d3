import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Endpoints GitLab clients call: `members/all` (not to be read as `members/:user_id`, which answers 400),
 * `descendant_groups`, and `namespaces` (settings tools look up parents there).
 */
describe.each(await databases())('endpoints GitLab clients call (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const ids: Record<string, number> = {};
  let userToken: string;

  const post = async (path: string, body: Record<string, unknown>, token = s.rootToken) => {
    const r = await api.post<{ id: number }>(path, { token, body });
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(201);
    return r.body;
  };
  const get = async <T = any>(path: string, token = s.rootToken) => {
    const r = await api.get<T>(path, { token });
    return r;
  };

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    for (const name of ['alice', 'bob', 'carol'])
      ids[name] = (
        await post('/api/v4/users', {
          username: name,
          email: `${name}@example.com`,
          name,
          password: `${name}-password-1`,
        })
      ).id;
    ids.top = (await post('/api/v4/groups', { name: 'top', path: 'top' })).id;
    ids.mid = (await post('/api/v4/groups', { name: 'mid', path: 'mid', parent_id: ids.top })).id;
    ids.leaf = (await post('/api/v4/groups', { name: 'leaf', path: 'leaf', parent_id: ids.mid })).id;
    ids.other = (await post('/api/v4/groups', { name: 'other', path: 'other' })).id;
    ids.project = (await post('/api/v4/projects', { name: 'app', namespace_id: ids.leaf })).id;
    // alice: Developer of top, Maintainer of the project (the higher wins); bob: Reporter of mid; carol: Owner of leaf.
    await post(`/api/v4/groups/${ids.top}/members`, { user_id: ids.alice, access_level: 30 });
    await post(`/api/v4/groups/${ids.mid}/members`, { user_id: ids.bob, access_level: 20 });
    await post(`/api/v4/groups/${ids.leaf}/members`, { user_id: ids.carol, access_level: 50 });
    await post(`/api/v4/projects/${ids.project}/members`, { user_id: ids.alice, access_level: 40 });
    userToken = (
      await api.post<{ token: string }>(`/api/v4/users/${ids.bob}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
  });
  afterAll(async () => s?.stop());

  it('lists direct and inherited members once each, at the highest access level', async () => {
    const all = await get<{ id: number; access_level: number }[]>(
      `/api/v4/projects/${ids.project}/members/all`,
    );
    expect(all.status).toBe(200);
    const levels = Object.fromEntries(all.body.map((m) => [m.id, m.access_level]));
    expect(levels).toMatchObject({ [ids.alice!]: 40, [ids.bob!]: 20, [ids.carol!]: 50 });
    expect(all.headers.get('x-total')).toBe(String(all.body.length));
    // Direct members of the project only: alice (and whoever created it).
    const direct = await get<{ id: number }[]>(`/api/v4/projects/${ids.project}/members`);
    expect(direct.body.map((m) => m.id)).toContain(ids.alice);
    expect(direct.body.map((m) => m.id)).not.toContain(ids.bob);
    // A group's members/all has its ancestors' members, not its descendants'.
    const mid = await get<{ id: number; access_level: number }[]>(`/api/v4/groups/${ids.mid}/members/all`);
    const midIds = mid.body.map((m) => m.id);
    expect(midIds).toEqual(expect.arrayContaining([ids.alice, ids.bob]));
    expect(midIds).not.toContain(ids.carol);
    expect((await get(`/api/v4/groups/${ids.mid}/members/all/${ids.alice}`)).body).toMatchObject({
      id: ids.alice,
      access_level: 30,
    });
    expect((await get(`/api/v4/groups/${ids.mid}/members/all/${ids.carol}`)).status).toBe(404);
    expect((await get(`/api/v4/groups/${ids.mid}/members/all?query=bo`)).body.map((m: any) => m.id)).toEqual([
      ids.bob,
    ]);
    // Visibility rules as for the direct list: an outsider cannot see a private project's members.
    expect((await get(`/api/v4/groups/${ids.other}/members/all`, userToken)).status).toBe(404);
  });

  it("reads owned=true as GitLab: the user's namespace and every project it owns, also through a group", async () => {
    const carol = (
      await api.post<{ token: string }>(`/api/v4/users/${ids.carol}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
    const owned = async (token: string) =>
      (await get<{ id: number }[]>('/api/v4/projects?owned=true', token)).body.map((p) => p.id);
    expect(await owned(carol)).toEqual([ids.project]);
    expect(await owned(userToken)).toEqual([]);
    expect(
      (await get<{ id: number }[]>('/api/v4/projects?membership=true', userToken)).body.map((p) => p.id),
    ).toEqual([ids.project]);
  });

  it("returns whatever PUT /projects and PUT /groups accept, and the caller's permissions on a project", async () => {
    const before = await get(`/api/v4/projects/${ids.project}`);
    expect(before.body).toMatchObject({
      merge_method: 'merge',
      request_access_enabled: true,
      remove_source_branch_after_merge: true,
      only_allow_merge_if_all_discussions_are_resolved: false,
      only_allow_merge_if_pipeline_succeeds: false,
      approvals_before_merge: 0,
      issues_access_level: 'enabled',
      wiki_access_level: 'enabled',
      pages_access_level: 'enabled',
    });
    const settings = {
      merge_method: 'ff',
      request_access_enabled: false,
      remove_source_branch_after_merge: false,
      only_allow_merge_if_all_discussions_are_resolved: true,
      only_allow_merge_if_pipeline_succeeds: true,
      approvals_before_merge: 2,
      wiki_access_level: 'disabled',
      builds_access_level: 'private',
      pages_access_level: 'public',
    };
    const put = await api.put(`/api/v4/projects/${ids.project}`, { token: s.rootToken, body: settings });
    expect(put).toMatchObject({ status: 200, body: settings });
    const after = await get(`/api/v4/projects/${ids.project}`);
    expect(after.body).toMatchObject({ ...settings, issues_access_level: 'enabled' });
    // Lists carry the same fields.
    expect((await get(`/api/v4/groups/${ids.leaf}/projects`)).body[0]).toMatchObject(settings);
    // A second PUT of one access level keeps the others.
    await api.put(`/api/v4/projects/${ids.project}`, {
      token: s.rootToken,
      body: { issues_access_level: 'private' },
    });
    expect((await get(`/api/v4/projects/${ids.project}`)).body).toMatchObject({
      issues_access_level: 'private',
      wiki_access_level: 'disabled',
    });
    // Concurrent changes of different access levels all stay (no read-modify-write lost on PostgreSQL).
    const features = [
      'forking',
      'snippets',
      'analytics',
      'releases',
      'environments',
      'feature_flags',
      'requirements',
    ];
    const puts = await Promise.all(
      features.map((f) =>
        api.put(`/api/v4/projects/${ids.project}`, {
          token: s.rootToken,
          body: { [`${f}_access_level`]: 'private' },
        }),
      ),
    );
    for (const r of puts) expect(r.status).toBe(200);
    const concurrent = (await get(`/api/v4/projects/${ids.project}`)).body;
    for (const f of features) expect(concurrent[`${f}_access_level`], f).toBe('private');
    // What is not a value GitLab takes is a 400 that changes nothing.
    for (const bad of [
      { merge_method: 'squash' },
      { wiki_access_level: 'public' },
      { approvals_before_merge: -1 },
    ])
      expect(
        (await api.put(`/api/v4/projects/${ids.project}`, { token: s.rootToken, body: bad })).status,
      ).toBe(400);
    expect((await get(`/api/v4/projects/${ids.project}`)).body).toMatchObject({ merge_method: 'ff' });
    // The caller's permissions: alice is a Maintainer of the project and a Developer through the top group.
    const alice = (
      await api.post<{ token: string }>(`/api/v4/users/${ids.alice}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
    expect((await get(`/api/v4/projects/${ids.project}`, alice)).body.permissions).toEqual({
      project_access: { access_level: 40, notification_level: 3 },
      group_access: { access_level: 30, notification_level: 3 },
    });
    expect((await get(`/api/v4/projects/${ids.project}`, userToken)).body.permissions).toEqual({
      project_access: null,
      group_access: { access_level: 20, notification_level: 3 },
    });
    // Groups: request_access_enabled.
    const g = await api.put(`/api/v4/groups/${ids.other}`, {
      token: s.rootToken,
      body: { request_access_enabled: false },
    });
    expect(g).toMatchObject({ status: 200, body: { request_access_enabled: false } });
    expect((await get(`/api/v4/groups/${ids.other}`)).body.request_access_enabled).toBe(false);
    expect((await get(`/api/v4/groups/${ids.top}`)).body.request_access_enabled).toBe(true);
  });

  it('lists descendant groups at any depth', async () => {
    const r = await get<{ id: number; full_path: string }[]>(`/api/v4/groups/${ids.top}/descendant_groups`);
    expect(r.status).toBe(200);
    expect(r.body.map((g) => g.full_path)).toEqual(['top/mid', 'top/mid/leaf']);
    expect(
      (await get<{ id: number }[]>(`/api/v4/groups/${ids.mid}/descendant_groups`)).body.map((g) => g.id),
    ).toEqual([ids.leaf]);
    expect((await get<any[]>(`/api/v4/groups/${ids.top}/descendant_groups?search=leaf`)).body).toHaveLength(
      1,
    );
    expect((await get(`/api/v4/groups/top%2Fmid/descendant_groups`)).status).toBe(200);
  });

  it("lists the caller's namespaces (all for admins) and finds one by id or path", async () => {
    const mine = await get<{ full_path: string; kind: string }[]>('/api/v4/namespaces', userToken);
    expect(mine.status).toBe(200);
    expect(mine.body.map((n) => `${n.kind}:${n.full_path}`).sort()).toEqual([
      'group:top/mid',
      'group:top/mid/leaf',
      'user:bob',
    ]);
    const admin = await get<{ full_path: string }[]>('/api/v4/namespaces?per_page=100');
    expect(admin.body.map((n) => n.full_path)).toEqual(
      expect.arrayContaining(['top', 'other', 'alice', 'root']),
    );
    expect(
      (await get<any[]>('/api/v4/namespaces?owned_only=true', userToken)).body.map((n) => n.full_path),
    ).toEqual(['bob']);
    const byPath = await get('/api/v4/namespaces/top%2Fmid', userToken);
    expect(byPath.body).toMatchObject({
      id: ids.mid,
      kind: 'group',
      full_path: 'top/mid',
      parent_id: ids.top,
    });
    expect((await get(`/api/v4/namespaces/${ids.mid}`, userToken)).status).toBe(200);
    expect(await get(`/api/v4/namespaces/${ids.other}`, userToken)).toMatchObject({
      status: 404,
      body: { message: '404 Namespace Not Found' },
    });
    expect((await api.get('/api/v4/namespaces')).status).toBe(401);
  });
});
