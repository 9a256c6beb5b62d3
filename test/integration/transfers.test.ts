import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const READ_ONLY = 'The repository is temporarily read-only. Please try again later.';
const failed = (reason: string) => `Failed to transfer project {:new_namespace=>[${JSON.stringify(reason)}]}`;

/**
 * Transfers (GitLab's `PUT /projects/:id/transfer`, `POST /groups/:id/transfer`): the full paths change, the
 * repositories stay where they are on disk (by id), and the old paths keep working for the API and git until
 * something else takes them.
 */
describe.each(await databases())('transfers (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let root: string;
  let owner: { id: number; token: string };
  let other: { id: number; token: string };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
    s = await startTestServer({
      database,
      env: { SVC_STORAGES: `default=${root}/default,other=${root}/other` },
    });
    api = http(s.url);
    owner = await createUser(s, 'owner');
    other = await createUser(s, 'other');
  });
  afterAll(async () => s?.stop());

  const created = async <T = any>(path: string, token: string, body: Record<string, unknown>) => {
    const r = await api.post<T>(path, { token, body });
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(201);
    return r.body;
  };
  const onDisk = (id: number) =>
    ['default', 'other'].some((storage) => existsSync(join(root, storage, relativePath('project', id))));

  it('moves a project to a group: new path, same repository, old path redirects for the API and git', async () => {
    const group = await created('/api/v4/groups', owner.token, { name: 'Team', path: 'team' });
    const p = await created('/api/v4/projects', owner.token, { name: 'app', visibility: 'public' });
    const { dir, push } = await pushCommit(authUrl(p.http_url_to_repo, 'owner', owner.token));
    expect(push.code).toBe(0);
    const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim();

    const moved = await api.put(`/api/v4/projects/${p.id}/transfer`, {
      token: owner.token,
      body: { namespace: 'team' },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({
      id: p.id,
      path_with_namespace: 'team/app',
      namespace: { id: group.id, full_path: 'team' },
    });
    // The group is private (the default): the project's visibility follows it down, as in GitLab.
    expect(moved.body.visibility).toBe(group.visibility);
    expect(onDisk(p.id)).toBe(true);

    // The old path finds the project (API), and git fetches and pushes by the old URL.
    const byOld = await api.get(`/api/v4/projects/${encodeURIComponent('owner/app')}`, {
      token: owner.token,
    });
    expect(byOld.status).toBe(200);
    expect(byOld.body).toMatchObject({ id: p.id, path_with_namespace: 'team/app' });
    const oldUrl = authUrl(p.http_url_to_repo, 'owner', owner.token);
    expect((await git(['ls-remote', oldUrl, 'refs/heads/main'], dir)).stdout).toContain(head);
    expect((await git(['push', '--quiet', oldUrl, 'HEAD:refs/heads/by-old-url'], dir)).code).toBe(0);
    const newUrl = authUrl(moved.body.http_url_to_repo, 'owner', owner.token);
    expect((await git(['ls-remote', newUrl, 'refs/heads/by-old-url'], dir)).stdout).toContain(head);

    // Another project taking the old path ends the redirect.
    const again = await created('/api/v4/projects', owner.token, { name: 'app' });
    expect(again.path_with_namespace).toBe('owner/app');
    const byPath = await api.get(`/api/v4/projects/${encodeURIComponent('owner/app')}`, {
      token: owner.token,
    });
    expect(byPath.body.id).toBe(again.id);
  });

  it('transfers by namespace id, to the owner namespace back, and a clash is a 400 that changes nothing', async () => {
    const group = await created('/api/v4/groups', owner.token, { name: 'Clash', path: 'clash' });
    const a = await created('/api/v4/projects', owner.token, { name: 'dup' });
    await created('/api/v4/projects', owner.token, { name: 'dup', namespace_id: group.id });
    const clash = await api.put(`/api/v4/projects/${a.id}/transfer`, {
      token: owner.token,
      body: { namespace: group.id },
    });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({
      message: failed('Project with same name or path in target namespace already exists'),
    });
    expect((await api.get(`/api/v4/projects/${a.id}`, { token: owner.token })).body.path_with_namespace).toBe(
      'owner/dup',
    );
    const same = await api.put(`/api/v4/projects/${a.id}/transfer`, {
      token: owner.token,
      body: { namespace: 'owner' },
    });
    expect(same.status).toBe(400);
    expect(same.body.message).toBe(failed('Project is already in this namespace.'));
    const nowhere = await api.put(`/api/v4/projects/${a.id}/transfer`, {
      token: owner.token,
      body: { namespace: 'no-such-namespace' },
    });
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.message).toBe('404 Namespace Not Found');
    // Another user's namespace is not the caller's to see.
    const foreign = await api.put(`/api/v4/projects/${a.id}/transfer`, {
      token: owner.token,
      body: { namespace: 'other' },
    });
    expect(foreign.status).toBe(404);
  });

  it('asks Owner of the project and Maintainer of the target group', async () => {
    const target = await created('/api/v4/groups', other.token, { name: 'Theirs', path: 'theirs' });
    const p = await created('/api/v4/projects', owner.token, { name: 'guarded' });
    const dev = await createUser(s, 'dev-t');
    await api.post(`/api/v4/projects/${p.id}/members`, {
      token: owner.token,
      body: { user_id: dev.id, access_level: 40 },
    });
    // A Maintainer of the project may not transfer it.
    const maintainer = await api.put(`/api/v4/projects/${p.id}/transfer`, {
      token: dev.token,
      body: { namespace: 'dev-t' },
    });
    expect(maintainer.status).toBe(403);
    const anonymous = await api.put(`/api/v4/projects/${p.id}/transfer`, { body: { namespace: 'theirs' } });
    expect(anonymous.status).toBe(404);
    // The owner is a Developer of the target group: not enough to create projects there.
    await api.post(`/api/v4/groups/${target.id}/members`, {
      token: other.token,
      body: { user_id: owner.id, access_level: 30 },
    });
    const developer = await api.put(`/api/v4/projects/${p.id}/transfer`, {
      token: owner.token,
      body: { namespace: 'theirs' },
    });
    expect(developer.status).toBe(400);
    expect(developer.body.message).toBe(
      failed("You don't have permission to transfer projects into that namespace."),
    );
    await api.put(`/api/v4/groups/${target.id}/members/${owner.id}`, {
      token: other.token,
      body: { access_level: 40 },
    });
    const ok = await api.put(`/api/v4/projects/${p.id}/transfer`, {
      token: owner.token,
      body: { namespace: 'theirs' },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.path_with_namespace).toBe('theirs/guarded');
    // An admin transfers anywhere, into another user's namespace too.
    const back = await api.put(`/api/v4/projects/${p.id}/transfer`, {
      token: s.rootToken,
      body: { namespace: 'other' },
    });
    expect(back.status).toBe(200);
    expect(back.body.path_with_namespace).toBe('other/guarded');
  });

  it('refuses to transfer a project whose repository is being moved', async () => {
    const group = await created('/api/v4/groups', owner.token, { name: 'Busy', path: 'busy' });
    const p = await created('/api/v4/projects', owner.token, { name: 'moving' });
    const { body: asAdmin } = await api.get(`/api/v4/projects/${p.id}`, { token: s.rootToken });
    await s.server.ctx.jobs.stop(); // hold the worker: the move stays scheduled, the project read-only
    try {
      const move = await api.post(`/api/v4/projects/${p.id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: asAdmin.repository_storage === 'other' ? 'default' : 'other' },
      });
      expect(move.status, JSON.stringify(move.body)).toBe(201);
      const refused = await api.put(`/api/v4/projects/${p.id}/transfer`, {
        token: owner.token,
        body: { namespace: group.id },
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ message: READ_ONLY });
      const groupRefused = await api.post(`/api/v4/groups/${group.id}/transfer`, { token: owner.token });
      expect(groupRefused.status).toBe(400); // already a root group: checked first, as GitLab
    } finally {
      await s.server.ctx.jobs.drain();
      s.server.ctx.jobs.start(200, 2);
    }
    expect((await api.get(`/api/v4/projects/${p.id}`, { token: owner.token })).body.path_with_namespace).toBe(
      'owner/moving',
    );
  });

  it('moves a group with its subgroups and projects; every old path redirects', async () => {
    const top = await created('/api/v4/groups', owner.token, {
      name: 'Top',
      path: 'top',
      visibility: 'public',
    });
    const sub = await created('/api/v4/groups', owner.token, {
      name: 'Sub',
      path: 'sub',
      parent_id: top.id,
      visibility: 'public',
    });
    const deep = await created('/api/v4/groups', owner.token, {
      name: 'Deep',
      path: 'deep',
      parent_id: sub.id,
    });
    const p = await created('/api/v4/projects', owner.token, {
      name: 'svc',
      namespace_id: deep.id,
      visibility: 'private',
    });
    const q = await created('/api/v4/projects', owner.token, {
      name: 'web',
      namespace_id: sub.id,
      visibility: 'public',
    });
    const { dir } = await pushCommit(authUrl(q.http_url_to_repo, 'owner', owner.token));
    const dest = await created('/api/v4/groups', owner.token, {
      name: 'Dest',
      path: 'dest',
      visibility: 'internal',
    });

    const moved = await api.post(`/api/v4/groups/${sub.id}/transfer`, {
      token: owner.token,
      body: { group_id: dest.id },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(201);
    expect(moved.body).toMatchObject({ id: sub.id, full_path: 'dest/sub', parent_id: dest.id });
    // More open than the new parent: lowered to it (groups and projects), as GitLab.
    expect(moved.body.visibility).toBe('internal');
    const deepNow = await api.get(`/api/v4/groups/${deep.id}`, { token: owner.token });
    expect(deepNow.body.full_path).toBe('dest/sub/deep');
    const pNow = await api.get(`/api/v4/projects/${p.id}`, { token: owner.token });
    expect(pNow.body.path_with_namespace).toBe('dest/sub/deep/svc');
    const qNow = await api.get(`/api/v4/projects/${encodeURIComponent('top/sub/web')}`, {
      token: owner.token,
    });
    expect(qNow.status).toBe(200);
    expect(qNow.body).toMatchObject({
      id: q.id,
      path_with_namespace: 'dest/sub/web',
      visibility: 'internal',
    });
    expect(onDisk(q.id)).toBe(true);
    const oldUrl = authUrl(q.http_url_to_repo, 'owner', owner.token);
    expect((await git(['ls-remote', oldUrl, 'refs/heads/main'], dir)).code).toBe(0);
    // GitLab's API finds groups by their current path only.
    expect((await api.get('/api/v4/groups/top%2Fsub', { token: owner.token })).status).toBe(404);

    // To the top level (no group_id); then a clash and a move below itself are refused.
    const up = await api.post(`/api/v4/groups/${deep.id}/transfer`, { token: owner.token });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({ full_path: 'deep', parent_id: null });
    const rootAgain = await api.post(`/api/v4/groups/${deep.id}/transfer`, { token: owner.token });
    expect(rootAgain.body).toEqual({ message: 'Transfer failed: Group is already a root group.' });
    const into = await api.post(`/api/v4/groups/${sub.id}/transfer`, {
      token: owner.token,
      body: { group_id: dest.id },
    });
    expect(into.body.message).toBe('Transfer failed: Group is already associated to the parent group.');
    const below = await created('/api/v4/groups', owner.token, {
      name: 'Below',
      path: 'below',
      parent_id: sub.id,
    });
    const loop = await api.post(`/api/v4/groups/${sub.id}/transfer`, {
      token: owner.token,
      body: { group_id: below.id },
    });
    expect(loop.status).toBe(400);
    expect(loop.body.message).toBe('Transfer failed: Cannot transfer group to one of its subgroup.');
    await created('/api/v4/groups', owner.token, { name: 'Sub', path: 'sub', parent_id: top.id });
    const clash = await api.post(`/api/v4/groups/${sub.id}/transfer`, {
      token: owner.token,
      body: { group_id: top.id },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.message).toBe(
      'Transfer failed: The parent group already has a subgroup or a project with the same path.',
    );
    // The new top/sub took the path: the old project path no longer redirects.
    expect(
      (await api.get(`/api/v4/projects/${encodeURIComponent('top/sub/web')}`, { token: owner.token })).status,
    ).toBe(404);
  });

  it('a renamed project (new path) is found by its old path too, as GitLab', async () => {
    const p = await created('/api/v4/projects', owner.token, { name: 'before' });
    const renamed = await api.put(`/api/v4/projects/${p.id}`, {
      token: owner.token,
      body: { path: 'after' },
    });
    expect(renamed.body.path_with_namespace).toBe('owner/after');
    const byOld = await api.get(`/api/v4/projects/${encodeURIComponent('owner/before')}`, {
      token: owner.token,
    });
    expect(byOld.status).toBe(200);
    expect(byOld.body.id).toBe(p.id);
  });

  it("changes a group's path (Owner): its subgroups and projects follow, old paths redirect, a taken path changes nothing", async () => {
    const g = await created('/api/v4/groups', owner.token, { name: 'Web', path: 'web' });
    const sub = await created('/api/v4/groups', owner.token, { name: 'Api', path: 'api', parent_id: g.id });
    const p = await created('/api/v4/projects', owner.token, { name: 'site', namespace_id: sub.id });
    const { push } = await pushCommit(authUrl(p.http_url_to_repo, 'owner', owner.token));
    expect(push.code).toBe(0);
    await created('/api/v4/groups', other.token, { name: 'Taken', path: 'taken' });
    await api.post(`/api/v4/groups/${g.id}/members`, {
      token: owner.token,
      body: { user_id: other.id, access_level: 40 },
    });

    const maintainer = await api.put(`/api/v4/groups/${g.id}`, {
      token: other.token,
      body: { path: 'web2' },
    });
    expect(maintainer.status).toBe(403);
    const taken = await api.put(`/api/v4/groups/${g.id}`, {
      token: owner.token,
      body: { path: 'taken', name: 'X' },
    });
    expect(taken).toMatchObject({ status: 400, body: { message: { path: ['has already been taken'] } } });
    const bad = await api.put(`/api/v4/groups/${g.id}`, { token: owner.token, body: { path: '-bad path' } });
    expect(bad.status).toBe(400);
    expect((await api.get(`/api/v4/groups/${g.id}`, { token: owner.token })).body).toMatchObject({
      full_path: 'web',
      name: 'Web',
    });

    const moved = await api.put(`/api/v4/groups/${g.id}`, { token: owner.token, body: { path: 'www' } });
    expect(moved).toMatchObject({ status: 200, body: { path: 'www', full_path: 'www' } });
    expect((await api.get(`/api/v4/groups/${sub.id}`, { token: owner.token })).body.full_path).toBe(
      'www/api',
    );
    const project = await api.get(`/api/v4/projects/${p.id}`, { token: owner.token });
    expect(project.body.path_with_namespace).toBe('www/api/site');
    const byOld = await api.get(`/api/v4/projects/${encodeURIComponent('web/api/site')}`, {
      token: owner.token,
    });
    expect(byOld.body.id).toBe(p.id);
    const clone = mkdtempSync(join(tmpdir(), 'svc-clone-'));
    const byOldUrl = await git(
      ['clone', '--quiet', authUrl(p.http_url_to_repo, 'owner', owner.token), 'c'],
      clone,
    );
    expect(byOldUrl.code, byOldUrl.stderr).toBe(0);
  });

  it('asks Owner of the group and Maintainer of the new parent', async () => {
    const mine = await created('/api/v4/groups', owner.token, { name: 'Mine', path: 'mine' });
    const theirs = await created('/api/v4/groups', other.token, { name: 'Other side', path: 'other-side' });
    await api.post(`/api/v4/groups/${theirs.id}/members`, {
      token: other.token,
      body: { user_id: owner.id, access_level: 30 },
    });
    const developer = await api.post(`/api/v4/groups/${mine.id}/transfer`, {
      token: owner.token,
      body: { group_id: theirs.id },
    });
    expect(developer.status).toBe(400);
    expect(developer.body.message).toBe("Transfer failed: You don't have enough permissions.");
    await api.post(`/api/v4/groups/${mine.id}/members`, {
      token: owner.token,
      body: { user_id: other.id, access_level: 40 },
    });
    const notOwner = await api.post(`/api/v4/groups/${mine.id}/transfer`, {
      token: other.token,
      body: { group_id: theirs.id },
    });
    expect(notOwner.status).toBe(403);
    expect((await api.post(`/api/v4/groups/${mine.id}/transfer`, { body: {} })).status).toBe(401);
    const hidden = await api.post(`/api/v4/groups/${mine.id}/transfer`, {
      token: owner.token,
      body: { group_id: 999999 },
    });
    expect(hidden.status).toBe(404);
    expect((await api.get(`/api/v4/groups/${mine.id}`, { token: owner.token })).body.full_path).toBe('mine');
  });
});
