import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const LEVELS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Role = keyof typeof LEVELS | 'admin' | 'anonymous';

/**
 * `GET /projects/:id/users`, `GET /projects/:id/groups`, `GET /projects/:id/storage` and
 * `GET /namespaces/:id/exists`, from outside, on both databases, for every role.
 */
describe.each(await databases())('project users, groups, storage; namespace exists (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let top: number;
  let sub: number;
  let project: number;
  let publicProject: number;
  const users: Record<string, { id: number; token: string }> = {};
  const as = (role: Role) =>
    role === 'admin' ? s.rootToken : role === 'anonymous' ? undefined : users[role]!.token;
  const everyone: Role[] = ['anonymous', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'];

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    top = (
      await api.post('/api/v4/groups', {
        token: s.rootToken,
        body: { name: 'Top', path: 'top', visibility: 'private' },
      })
    ).body.id;
    sub = (
      await api.post('/api/v4/groups', {
        token: s.rootToken,
        body: { name: 'Sub', path: 'sub', parent_id: top, visibility: 'private' },
      })
    ).body.id;
    project = (
      await api.post('/api/v4/projects', {
        token: s.rootToken,
        body: { name: 'app', namespace_id: sub, visibility: 'private' },
      })
    ).body.id;
    // Guest and Reporter are members of the project, Developer of the subgroup, Maintainer and Owner of the top
    // group: the project's users are all of them (inherited included).
    const where: Record<keyof typeof LEVELS, string> = {
      guest: `projects/${project}`,
      reporter: `projects/${project}`,
      developer: `groups/${sub}`,
      maintainer: `groups/${top}`,
      owner: `groups/${top}`,
    };
    for (const [role, level] of Object.entries(LEVELS) as [keyof typeof LEVELS, number][]) {
      users[role] = await createUser(s, `${role}-pu`);
      await api.post(`/api/v4/${where[role]}/members`, {
        token: s.rootToken,
        body: { user_id: users[role]!.id, access_level: level },
      });
    }
    const alice = await createUser(s, 'alice-pu');
    users.alice = alice;
    publicProject = (
      await api.post('/api/v4/projects', {
        token: alice.token,
        body: { name: 'open', visibility: 'public' },
      })
    ).body.id;
  });
  afterAll(() => s?.stop());

  describe('GET /projects/:id/users', () => {
    it('lists members, inherited ones included, to everyone who sees the project', async () => {
      for (const role of everyone) {
        const res = await api.get(`/api/v4/projects/${project}/users`, { token: as(role) });
        // A private project: anonymous callers do not learn that it exists.
        expect([role, res.status]).toEqual([role, role === 'anonymous' ? 404 : 200]);
        if (res.status === 200) {
          expect((res.body as { username: string }[]).map((u) => u.username).sort()).toEqual(
            ['developer-pu', 'guest-pu', 'maintainer-pu', 'owner-pu', 'reporter-pu', 'root'].sort(),
          );
          expect(Object.keys(res.body[0]).sort()).toEqual(
            ['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url'].sort(),
          );
        }
      }
      // root is in the list as the groups' creator (their Owner).
      const outsider = await api.get(`/api/v4/projects/${project}/users`, { token: users.alice!.token });
      expect(outsider.status).toBe(404);
    });

    it('filters with search and skip_users, and pages', async () => {
      const search = await api.get(`/api/v4/projects/${project}/users?search=develop`, {
        token: s.rootToken,
      });
      expect((search.body as { username: string }[]).map((u) => u.username)).toEqual(['developer-pu']);
      const skip = await api.get(
        `/api/v4/projects/${project}/users?skip_users[]=${users.guest!.id}&skip_users[]=${users.owner!.id}`,
        { token: s.rootToken },
      );
      const names = (skip.body as { username: string }[]).map((u) => u.username);
      expect(names).not.toContain('guest-pu');
      expect(names).not.toContain('owner-pu');
      expect(names).toHaveLength(4);
      const one = await api.get(`/api/v4/projects/${project}/users?skip_users=${users.guest!.id}`, {
        token: s.rootToken,
      });
      expect((one.body as unknown[]).length).toBe(5);
      const page = await api.get(`/api/v4/projects/${project}/users?per_page=2&page=2`, {
        token: s.rootToken,
      });
      expect(page.body).toHaveLength(2);
      expect(page.headers.get('x-total')).toBe('6');
    });

    it('a public project’s users are listed to anonymous callers; its owner is one of them', async () => {
      const res = await api.get(`/api/v4/projects/${publicProject}/users`);
      expect(res.status).toBe(200);
      expect((res.body as { username: string }[]).map((u) => u.username)).toEqual(['alice-pu']);
    });
  });

  describe('GET /projects/:id/groups', () => {
    it('lists the ancestor groups the caller may see', async () => {
      for (const role of everyone) {
        const res = await api.get(`/api/v4/projects/${project}/groups`, { token: as(role) });
        expect([role, res.status]).toEqual([role, role === 'anonymous' ? 404 : 200]);
        if (res.status !== 200) continue;
        const paths = (res.body as { full_path: string }[]).map((g) => g.full_path);
        // A project member who is no member of the private groups sees neither of them.
        const expected =
          role === 'guest' || role === 'reporter'
            ? []
            : role === 'developer'
              ? ['top/sub']
              : ['top', 'top/sub'];
        expect([role, paths]).toEqual([role, expected]);
      }
      const res = await api.get(`/api/v4/projects/${project}/groups`, { token: s.rootToken });
      expect(res.body[1]).toEqual({
        id: sub,
        web_url: `${s.url}/groups/top/sub`,
        name: 'Sub',
        avatar_url: null,
        full_name: 'top / sub',
        full_path: 'top/sub',
      });
    });

    it('filters with search and skip_groups; a personal project has none', async () => {
      const search = await api.get(`/api/v4/projects/${project}/groups?search=sub`, { token: s.rootToken });
      expect((search.body as { id: number }[]).map((g) => g.id)).toEqual([sub]);
      const skip = await api.get(`/api/v4/projects/${project}/groups?skip_groups[]=${top}&with_shared=true`, {
        token: s.rootToken,
      });
      expect((skip.body as { id: number }[]).map((g) => g.id)).toEqual([sub]);
      expect((await api.get(`/api/v4/projects/${publicProject}/groups`)).body).toEqual([]);
    });
  });

  describe('GET /projects/:id/storage', () => {
    it('is for admins only (401 anonymous, 403 any member), with GitLab’s fields', async () => {
      for (const role of everyone) {
        const res = await api.get(`/api/v4/projects/${project}/storage`, { token: as(role) });
        expect([role, res.status]).toEqual([role, role === 'admin' ? 200 : role === 'anonymous' ? 401 : 403]);
        if (role !== 'admin') continue;
        expect(res.body).toMatchObject({ project_id: project, repository_storage: 'default' });
        expect(res.body.disk_path).toMatch(/^@hashed\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
        expect(typeof res.body.created_at).toBe('string');
      }
      const missing = await api.get('/api/v4/projects/999999/storage', { token: s.rootToken });
      expect(missing.status).toBe(404);
    });
  });

  describe('GET /namespaces/:id/exists', () => {
    it('tells a signed-in caller whether a path is taken, with a free suggestion', async () => {
      expect((await api.get('/api/v4/namespaces/top/exists')).status).toBe(401);
      for (const role of everyone.filter((r) => r !== 'anonymous')) {
        const res = await api.get('/api/v4/namespaces/top/exists', { token: as(role) });
        expect([role, res.status, res.body]).toEqual([role, 200, { exists: true, suggests: ['top1'] }]);
      }
      await api.post('/api/v4/groups', { token: s.rootToken, body: { name: 'top1', path: 'top1' } });
      expect((await api.get('/api/v4/namespaces/TOP/exists', { token: s.rootToken })).body).toEqual({
        exists: true,
        suggests: ['TOP2'],
      });
      expect((await api.get('/api/v4/namespaces/free-path/exists', { token: s.rootToken })).body).toEqual({
        exists: false,
        suggests: [],
      });
      // A path is one segment: a full path names no namespace's path.
      expect((await api.get('/api/v4/namespaces/top%2Fsub/exists', { token: s.rootToken })).body.exists).toBe(
        false,
      );
      // A user's personal namespace takes its path too.
      expect((await api.get('/api/v4/namespaces/alice-pu/exists', { token: s.rootToken })).body.exists).toBe(
        true,
      );
    });

    it('with parent_id, looks in that namespace only', async () => {
      const inTop = await api.get(`/api/v4/namespaces/sub/exists?parent_id=${top}`, { token: s.rootToken });
      expect(inTop.body).toEqual({ exists: true, suggests: ['sub1'] });
      expect((await api.get('/api/v4/namespaces/sub/exists', { token: s.rootToken })).body.exists).toBe(
        false,
      );
      expect(
        (await api.get(`/api/v4/namespaces/top/exists?parent_id=${sub}`, { token: s.rootToken })).body.exists,
      ).toBe(false);
      expect(
        (await api.get('/api/v4/namespaces/sub/exists?parent_id=999999', { token: s.rootToken })).body,
      ).toEqual({ exists: false, suggests: [] });
    });
  });
});
