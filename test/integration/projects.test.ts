import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Role = keyof typeof LEVELS;

describe.each(await databases())('projects, groups, members and visibility (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  /** username -> api token */
  const tok: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let group: { id: number; full_path: string };
  let project: { id: number; path_with_namespace: string };

  async function user(name: string) {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: name, name, email: `${name}@example.com`, password: `${name}-password` },
    });
    expect(u.status).toBe(201);
    ids[name] = u.body.id;
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    tok[name] = t.body.token;
  }

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    for (const name of ['owner', 'maintainer', 'developer', 'reporter', 'guest', 'outsider', 'groupdev'])
      await user(name);
    const g = await api.post('/api/v4/groups', { token: tok.owner, body: { name: 'Team', path: 'team' } });
    expect(g.status).toBe(201);
    group = g.body;
    const sub = await api.post('/api/v4/groups', {
      token: tok.owner,
      body: { name: 'Sub', path: 'sub', parent_id: group.id },
    });
    expect(sub.body.full_path).toBe('team/sub');
    const p = await api.post('/api/v4/projects', {
      token: tok.owner,
      body: { name: 'Secret App', namespace_id: sub.body.id, visibility: 'private' },
    });
    expect(p.status).toBe(201);
    project = p.body;
    expect(project.path_with_namespace).toBe('team/sub/secret-app');
    for (const role of ['maintainer', 'developer', 'reporter', 'guest'] as Role[]) {
      const m = await api.post(`/api/v4/projects/${project.id}/members`, {
        token: tok.owner,
        body: { user_id: ids[role], access_level: LEVELS[role] },
      });
      expect(m.status).toBe(201);
    }
    // Inherited: a Developer of the top-level group is a Developer of projects in its subgroups.
    const gm = await api.post(`/api/v4/groups/${group.id}/members`, {
      token: tok.owner,
      body: { user_id: ids.groupdev, access_level: 30 },
    });
    expect(gm.status).toBe(201);
  });
  afterAll(() => s?.stop());

  it('finds a project by numeric id and by URL-encoded full path, case-insensitively', async () => {
    const byId = await api.get(`/api/v4/projects/${project.id}`, { token: tok.guest });
    expect(byId.body.path_with_namespace).toBe('team/sub/secret-app');
    const byPath = await api.get('/api/v4/projects/team%2Fsub%2Fsecret-app', { token: tok.guest });
    expect(byPath.body.id).toBe(project.id);
    expect((await api.get('/api/v4/projects/TEAM%2Fsub%2FSecret-App', { token: tok.guest })).body.id).toBe(
      project.id,
    );
    // Unencoded slashes do not match a route (GitLab: 404).
    expect((await api.get('/api/v4/projects/team/sub/secret-app', { token: tok.guest })).status).toBe(404);
  });

  it("lets admins create projects in a user's namespace and lists a user's projects as the caller may see them", async () => {
    const forOwner = (token: string) =>
      api.post(`/api/v4/projects/user/${ids.owner}`, {
        token,
        body: { name: 'Given', visibility: 'private' },
      });
    expect((await forOwner(tok.outsider!)).status).toBe(403);
    const created = await forOwner(s.rootToken);
    expect(created.status).toBe(201);
    expect(created.body.path_with_namespace).toBe('owner/given');
    expect(
      (await api.post('/api/v4/projects/user/99999', { token: s.rootToken, body: { name: 'x' } })).status,
    ).toBe(404);
    const own = await api.get(`/api/v5/users/${ids.owner}/projects`, { token: tok.owner });
    expect(own.body.map((p: { path: string }) => p.path)).toEqual(['given']);
    expect(own.headers.get('x-total')).toBe('1');
    // Private: the outsider sees none of them.
    expect((await api.get(`/api/v4/users/${ids.owner}/projects`, { token: tok.outsider })).body).toEqual([]);
    expect((await api.delete(`/api/v4/projects/${created.body.id}`, { token: tok.owner })).status).toBe(202);
  });

  it('hides private projects and groups from outsiders and anonymous callers with 404, not 403', async () => {
    for (const headers of [{ 'PRIVATE-TOKEN': tok.outsider! }, {}] as Record<string, string>[]) {
      const r = await api.get(`/api/v4/projects/${project.id}`, { headers });
      expect(r).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      const m = await api.get(`/api/v4/projects/${project.id}/members`, { headers });
      expect(m.status).toBe(404);
      const g = await api.get(`/api/v4/groups/${group.id}`, { headers });
      expect(g).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    }
    const list = await api.get('/api/v4/projects', { token: tok.outsider });
    expect(list.body.map((p: { id: number }) => p.id)).not.toContain(project.id);
    // Writes to an invisible project are 404 too: nothing about its existence leaks.
    const put = await api.put(`/api/v4/projects/${project.id}`, {
      token: tok.outsider,
      body: { description: 'x' },
    });
    expect(put.status).toBe(404);
  });

  it('shows internal projects to any signed-in user and public ones to everybody', async () => {
    const internal = await api.post('/api/v4/projects', {
      token: tok.owner,
      body: { name: 'Inside', visibility: 'internal' },
    });
    const pub = await api.post('/api/v4/projects', {
      token: tok.owner,
      body: { name: 'Open', visibility: 'public' },
    });
    expect((await api.get(`/api/v4/projects/${internal.body.id}`, { token: tok.outsider })).status).toBe(200);
    expect((await api.get(`/api/v4/projects/${internal.body.id}`)).status).toBe(404);
    expect((await api.get(`/api/v4/projects/${pub.body.id}`)).status).toBe(200);
    // Outsiders can read but not change a public project.
    expect(
      await api.put(`/api/v4/projects/${pub.body.id}`, { token: tok.outsider, body: { description: 'x' } }),
    ).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
  });

  it('applies the role matrix for updating and deleting projects', async () => {
    const expectations: [string, number][] = [
      ['guest', 403],
      ['reporter', 403],
      ['developer', 403],
      ['groupdev', 403],
      ['maintainer', 200],
      ['owner', 200],
    ];
    for (const [who, status] of expectations) {
      const r = await api.put(`/api/v4/projects/${project.id}`, {
        token: tok[who],
        body: { description: `by ${who}` },
      });
      expect(r.status, who).toBe(status);
    }
    const after = await api.get(`/api/v4/projects/${project.id}`, { token: tok.guest });
    expect(after.body.description).toBe('by owner');
    const victim = await api.post('/api/v4/projects', {
      token: tok.owner,
      body: { name: 'Victim', namespace_id: group.id },
    });
    await api.post(`/api/v4/projects/${victim.body.id}/members`, {
      token: tok.owner,
      body: { user_id: ids.maintainer, access_level: 40 },
    });
    expect((await api.delete(`/api/v4/projects/${victim.body.id}`, { token: tok.maintainer })).status).toBe(
      403,
    );
    expect((await api.delete(`/api/v4/projects/${victim.body.id}`, { token: tok.owner })).status).toBe(202);
    expect((await api.get(`/api/v4/projects/${victim.body.id}`, { token: tok.owner })).status).toBe(404);
  });

  it('applies the role matrix for project members', async () => {
    // Everyone who can see the project can list members.
    const list = await api.get(`/api/v4/projects/${project.id}/members`, { token: tok.guest });
    expect(list.status).toBe(200);
    expect(list.body.map((m: { username: string }) => m.username)).toEqual(
      expect.arrayContaining(['maintainer', 'developer', 'reporter', 'guest']),
    );
    // Developers cannot add members; Maintainers can, but not above their own level.
    const body = { user_id: ids.outsider, access_level: 20 };
    expect(
      (await api.post(`/api/v4/projects/${project.id}/members`, { token: tok.developer, body })).status,
    ).toBe(403);
    expect(
      (
        await api.post(`/api/v4/projects/${project.id}/members`, {
          token: tok.maintainer,
          body: { user_id: ids.outsider, access_level: 50 },
        })
      ).status,
    ).toBe(403);
    expect(
      (await api.post(`/api/v4/projects/${project.id}/members`, { token: tok.maintainer, body })).status,
    ).toBe(201);
    // Duplicate membership: 409.
    expect(
      (await api.post(`/api/v4/projects/${project.id}/members`, { token: tok.maintainer, body })).status,
    ).toBe(409);
    // Bad access level: 400 parameter error, nothing changed.
    const bad = await api.put(`/api/v4/projects/${project.id}/members/${ids.outsider}`, {
      token: tok.maintainer,
      body: { access_level: 35 },
    });
    expect(bad).toMatchObject({ status: 400, body: { error: 'access_level does not have a valid value' } });
    const m = await api.get(`/api/v4/projects/${project.id}/members/${ids.outsider}`, {
      token: tok.maintainer,
    });
    expect(m.body.access_level).toBe(20);
    // The new Reporter now sees the project; removing them hides it again.
    expect((await api.get(`/api/v4/projects/${project.id}`, { token: tok.outsider })).status).toBe(200);
    expect(
      (await api.delete(`/api/v4/projects/${project.id}/members/${ids.outsider}`, { token: tok.maintainer }))
        .status,
    ).toBe(204);
    expect((await api.get(`/api/v4/projects/${project.id}`, { token: tok.outsider })).status).toBe(404);
  });

  it('lets group members inherit access and only group Owners manage group members', async () => {
    expect((await api.get(`/api/v4/projects/${project.id}`, { token: tok.groupdev })).status).toBe(200);
    const mine = await api.get('/api/v4/projects?membership=true', { token: tok.groupdev });
    expect(mine.body.map((p: { id: number }) => p.id)).toContain(project.id);
    const add = await api.post(`/api/v4/groups/${group.id}/members`, {
      token: tok.groupdev,
      body: { user_id: ids.outsider, access_level: 10 },
    });
    expect(add.status).toBe(403);
    // The last Owner of a group cannot be demoted.
    const demote = await api.put(`/api/v4/groups/${group.id}/members/${ids.owner}`, {
      token: tok.owner,
      body: { access_level: 40 },
    });
    expect(demote.status).toBe(403);
  });

  it('returns GitLab error shapes for missing parameters and model validation, and changes nothing', async () => {
    expect(await api.post('/api/v4/groups', { token: tok.owner, body: { name: 'No path' } })).toMatchObject({
      status: 400,
      body: { error: 'path is missing' },
    });
    expect(await api.post('/api/v4/projects', { token: tok.owner, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'name, path are missing, at least one parameter must be provided' },
    });
    expect(
      await api.post('/api/v4/projects', { token: tok.owner, body: { name: 'Bad', visibility: 'secret' } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'visibility does not have a valid value' },
    });
    const dup = await api.post('/api/v4/projects', { token: tok.owner, body: { name: 'Inside' } });
    expect(dup).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    const broken = await fetch(`${s.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': tok.owner!, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toHaveProperty('message');
    // GitLab's `owned` (User#owned_projects): the user's namespace and projects it owns through a group too.
    const count = await api.get('/api/v4/projects?owned=true', { token: tok.owner });
    expect(count.body.map((p: { name: string }) => p.name).sort()).toEqual(['Inside', 'Open', 'Secret App']);
  });

  it('accepts form-encoded bodies and query parameters like GitLab', async () => {
    const form = await api.post('/api/v4/projects', {
      token: tok.outsider,
      raw: 'name=Form+Made&visibility=internal',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form).toMatchObject({ status: 201, body: { name: 'Form Made', visibility: 'internal' } });
    const query = await api.post('/api/v4/projects?name=Query%20Made', { token: tok.outsider });
    expect(query).toMatchObject({ status: 201, body: { path: 'query-made' } });
    // Multipart forms too; a file part in a field that takes none is refused, and nothing is created.
    const multipart = (fields: FormData) =>
      fetch(`${s.url}/api/v4/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': tok.outsider! },
        body: fields,
      });
    const fields = new FormData();
    fields.append('name', 'Multi Part');
    fields.append('description', 'from a form');
    const made = await multipart(fields);
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ path: 'multi-part', description: 'from a form' });
    const withFile = new FormData();
    withFile.append('name', 'With File');
    withFile.append('description', new Blob(['text']), 'a.txt');
    const refused = await multipart(withFile);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: 'description is a file upload, which svc does not accept here',
    });
    expect((await api.get('/api/v4/projects/outsider%2Fwith-file', { token: tok.outsider })).status).toBe(
      404,
    );
    const garbled = await api.post('/api/v4/projects', {
      token: tok.outsider,
      raw: 'not a multipart body',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expect(garbled).toMatchObject({ status: 400, body: { error: 'the multipart body could not be parsed' } });
  });

  it('shows repository_storage to admins only and filters by it for admins', async () => {
    const asAdmin = await api.get(`/api/v4/projects/${project.id}`, { token: s.rootToken });
    expect(asAdmin.body.repository_storage).toBe('default');
    const asOwner = await api.get(`/api/v4/projects/${project.id}`, { token: tok.owner });
    expect(asOwner.body).not.toHaveProperty('repository_storage');
    const none = await api.get('/api/v4/projects?repository_storage=elsewhere', { token: s.rootToken });
    expect(none.body).toEqual([]);
    const all = await api.get('/api/v4/projects?repository_storage=default', { token: s.rootToken });
    expect(all.body.length).toBeGreaterThan(0);
  });
});
