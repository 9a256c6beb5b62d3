import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { GroupDeletionRepository } from '../../src/groups/group-deletion.repository.js';
import { databases } from '../helpers/databases.js';
import { authUrl, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/**
 * Deleting a group with projects or subgroups: GitLab answers 202 (not 400) and deletes the
 * group with its content in the background; svc does it with a durable job, and removes the repositories only
 * after their rows are gone.
 */
describe.each(await databases())('deleting a group with its content (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-group-delete-'));
    s = await startTestServer({
      database,
      env: { SVC_STORAGES: `default=${root}/default,other=${root}/other`, SVC_TIER: 'premium' },
    });
    api = http(s.url);
  });
  afterAll(async () => s?.stop());

  const post = async <T = { id: number }>(path: string, body: Record<string, unknown>) => {
    const r = await api.post<T>(path, { token: s.rootToken, body });
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(201);
    return r.body;
  };
  const onDisk = (kind: 'group' | 'project' | 'snippet', id: number) =>
    ['default', 'other'].some((storage) => existsSync(join(root, storage, relativePath(kind, id))));

  async function tree(name: string) {
    const group = await post(`/api/v4/groups`, { name, path: name });
    const sub = await post(`/api/v4/groups`, { name: `${name}-sub`, path: 'sub', parent_id: group.id });
    const a = await post<{ id: number; http_url_to_repo: string }>('/api/v4/projects', {
      name: 'a',
      namespace_id: group.id,
    });
    const b = await post<{ id: number; http_url_to_repo: string }>('/api/v4/projects', {
      name: 'b',
      namespace_id: sub.id,
    });
    for (const p of [a, b])
      expect((await pushCommit(authUrl(p.http_url_to_repo, 'root', s.rootToken))).push.code).toBe(0);
    const snippet = await post(`/api/v4/projects/${a.id}/snippets`, {
      title: 'snip',
      file_name: 'a.txt',
      content: 'x',
      visibility: 'private',
    });
    const user = await post('/api/v4/users', {
      username: `${name}-member`,
      email: `${name}@example.com`,
      name: 'M',
      password: 'member-password-1',
    });
    await post(`/api/v4/groups/${sub.id}/members`, { user_id: user.id, access_level: 30 });
    await post(`/api/v4/projects/${b.id}/members`, { user_id: user.id, access_level: 40 });
    return { group, sub, a, b, snippet, user };
  }

  it('answers 202 and deletes subgroups, projects, snippets, memberships and every repository', async () => {
    const t = await tree('doomed');
    const repos = [
      ['group', t.group.id],
      ['group', t.sub.id],
      ['project', t.a.id],
      ['project', t.b.id],
      ['snippet', t.snippet.id],
    ] as const;
    for (const [kind, id] of repos) expect(onDisk(kind, id), `${kind} ${id}`).toBe(true);

    const del = await api.delete(`/api/v4/groups/${t.group.id}`, { token: s.rootToken });
    expect(del).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    await until(
      async () => (await api.get(`/api/v4/groups/${t.group.id}`, { token: s.rootToken })).status === 404,
      () => 'the group to be deleted',
    );
    for (const path of [
      `groups/${t.sub.id}`,
      `projects/${t.a.id}`,
      `projects/${t.b.id}`,
      `snippets/${t.snippet.id}`,
    ])
      expect((await api.get(`/api/v4/${path}`, { token: s.rootToken })).status, path).toBe(404);
    const memberships = await s.server.ctx.db.kysely
      .selectFrom('members')
      .select('id')
      .where('user_id', '=', t.user.id)
      .execute();
    expect(memberships).toEqual([]);
    await until(
      async () => repos.every(([kind, id]) => !onDisk(kind, id)),
      () => 'the repositories to be removed',
    );
    // A second DELETE of the same group is a 404; the user survives.
    expect((await api.delete(`/api/v4/groups/${t.group.id}`, { token: s.rootToken })).status).toBe(404);
    expect((await api.get(`/api/v4/users/${t.user.id}`, { token: s.rootToken })).status).toBe(200);
  });

  it('waits while a repository in the group is being moved, then deletes it all', async () => {
    const t = await tree('moving');
    await s.server.ctx.jobs.stop(); // hold the worker: the move stays scheduled, the project read-only
    try {
      const { body: b } = await api.get(`/api/v4/projects/${t.b.id}`, { token: s.rootToken });
      const move = await api.post(`/api/v4/projects/${t.b.id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: b.repository_storage === 'other' ? 'default' : 'other' },
      });
      expect(move.status, JSON.stringify(move.body)).toBe(201);
      const deletion = new GroupDeletionRepository(s.server.ctx.db.kysely, s.server.ctx.db.dialect);
      expect(await deletion.deleteTree(t.group.id, async () => undefined)).toBe('busy');
      expect((await api.get(`/api/v4/projects/${t.b.id}`, { token: s.rootToken })).status).toBe(200);
      expect((await api.delete(`/api/v4/groups/${t.group.id}`, { token: s.rootToken })).status).toBe(202);
    } finally {
      await s.server.ctx.jobs.drain();
      s.server.ctx.jobs.start(200, 2);
    }
    await until(
      async () => (await api.get(`/api/v4/groups/${t.group.id}`, { token: s.rootToken })).status === 404,
      () => 'the group to be deleted after the move',
    );
    await until(
      async () => !onDisk('project', t.b.id) && !onDisk('project', t.a.id),
      () => 'the moved repository to be removed',
    );
  });

  it('refuses anyone below Owner and changes nothing', async () => {
    const t = await tree('kept');
    const token = await api.post<{ token: string }>(`/api/v4/users/${t.user.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    // The user is a Maintainer of project b and a Developer of the subgroup: not an Owner of either group.
    for (const id of [t.group.id, t.sub.id]) {
      const r = await api.delete(`/api/v4/groups/${id}`, { token: token.body.token });
      expect([403, 404]).toContain(r.status);
    }
    expect((await api.get(`/api/v4/groups/${t.sub.id}`, { token: s.rootToken })).status).toBe(200);
    expect(onDisk('project', t.b.id)).toBe(true);
  });
});
