import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const ident = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];
const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

/**
 * The merge request endpoints that act on the repository (GitLab's `merge_ref`, `rebase`) or read who took part
 * (`participants`), and `reset_approvals`, against real repositories with the real git client.
 */
describe.each(await databases())('merge request git actions (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let root: string;
  let work: string;
  let project: { id: number; http_url_to_repo: string; path_with_namespace: string };
  const users: Record<string, { id: number; token: string }> = {};
  const base = () => `/api/v4/projects/${project.id}/merge_requests`;

  /** Commits `content` to `file` on `branch` (from `from`) and pushes it. */
  const commitOn = async (branch: string, file: string, content: string, from = 'origin/main') => {
    expect((await git(['fetch', '--quiet', 'origin'], work)).code).toBe(0);
    expect((await git(['checkout', '--quiet', '-B', branch, from], work)).code).toBe(0);
    writeFileSync(join(work, file), content);
    await git(['add', file], work);
    expect((await git([...ident, 'commit', '--quiet', '-m', `${branch}: ${file}`], work)).code).toBe(0);
    expect((await git(['push', '--quiet', '-f', 'origin', `HEAD:refs/heads/${branch}`], work)).code).toBe(0);
  };
  const remote = async (ref: string) =>
    (await git(['ls-remote', 'origin', ref], work)).stdout.split('\t')[0] || null;
  const open = async (source: string, title = `Merge ${source}`, description = '') => {
    const r = await api.post(base(), {
      token: users.dev!.token,
      body: { source_branch: source, target_branch: 'main', title, description },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.iid as number;
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-mr-git-'));
    s = await startTestServer({
      database,
      env: { SVC_STORAGES: `default=${root}/default,other=${root}/other` },
    });
    api = http(s.url);
    for (const name of ['dev', 'developer', 'reporter', 'maintainer', 'outsider'])
      users[name] = await createUser(s, name);
    project = (
      await api.post('/api/v4/projects', {
        token: users.dev!.token,
        body: { name: 'shop', visibility: 'private' },
      })
    ).body;
    for (const [name, level] of [
      ['developer', 30],
      ['reporter', 20],
      ['maintainer', 40],
    ] as const)
      await api.post(`/api/v4/projects/${project.id}/members`, {
        token: users.dev!.token,
        body: { user_id: users[name]!.id, access_level: level },
      });
    const first = await pushCommit(
      authUrl(project.http_url_to_repo, 'dev', users.dev!.token),
      'README.md',
      'a\nb\nc\n',
    );
    expect(first.push.code).toBe(0);
    work = first.dir;
  });
  afterAll(async () => s?.stop());

  it('merge_ref: writes the merge of source into target at refs/merge-requests/:iid/merge, keeps it up to date', async () => {
    await commitOn('feature', 'feature.txt', 'feature\n');
    const iid = await open('feature');
    const first = await api.get(`${base()}/${iid}/merge_ref`, { token: users.reporter!.token });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const ref = `refs/merge-requests/${iid}/merge`;
    expect(first.body).toEqual({ commit_id: await remote(ref) });
    const parents =
      (await git(['fetch', '--quiet', 'origin', ref], work)).code === 0
        ? (await git(['rev-list', '--parents', '-n', '1', 'FETCH_HEAD'], work)).stdout
            .trim()
            .split(' ')
            .slice(1)
        : [];
    expect(parents).toEqual([await remote('refs/heads/main'), await remote('refs/heads/feature')]);
    // Unchanged branches: the same commit, not a new one.
    const again = await api.get(`${base()}/${iid}/merge_ref`, { token: users.reporter!.token });
    expect(again.body.commit_id).toBe(first.body.commit_id);
    // The target moved: a new merge commit on the new target head.
    await commitOn('main', 'other.txt', 'other\n');
    const moved = await api.get(`${base()}/${iid}/merge_ref`, { token: users.reporter!.token });
    expect(moved.body.commit_id).not.toBe(first.body.commit_id);
    expect(await remote(ref)).toBe(moved.body.commit_id);
    // The ref is svc's: a client cannot push to it.
    const push = await git(['push', '--quiet', 'origin', `HEAD:${ref}`], work);
    expect(push.code).not.toBe(0);
    expect(await remote(ref)).toBe(moved.body.commit_id);
    // Who may not read the merge request: 404.
    expect((await api.get(`${base()}/${iid}/merge_ref`, { token: users.outsider!.token })).status).toBe(404);
  });

  it('merge_ref: 400 with GitLab message when git cannot merge', async () => {
    await commitOn('clash', 'README.md', 'x\ny\nz\n');
    await commitOn('main', 'README.md', 'p\nq\nr\n');
    const iid = await open('clash');
    const r = await api.get(`${base()}/${iid}/merge_ref`, { token: users.dev!.token });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'Merge request is not mergeable' });
    expect(await remote(`refs/merge-requests/${iid}/merge`)).toBeNull();
  });

  it('rebase: replays the source branch onto the target in the background; 202 and rebase_in_progress', async () => {
    await commitOn('topic', 'topic.txt', 'topic\n');
    await commitOn('main', 'later.txt', 'later\n');
    const iid = await open('topic');
    const before = await remote('refs/heads/topic');
    const target = await remote('refs/heads/main');
    const r = await api.put(`${base()}/${iid}/rebase`, {
      token: users.developer!.token,
      body: { skip_ci: true },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(typeof r.body.rebase_in_progress).toBe('boolean');
    const done = await until(async () => {
      const mr = await api.get(`${base()}/${iid}?include_rebase_in_progress=true`, {
        token: users.dev!.token,
      });
      return mr.body.rebase_in_progress === false ? mr.body : null;
    }, 'the rebase to end');
    expect(done.merge_error).toBeNull();
    // The temporary clone under the data directory is gone.
    expect(readdirSync(join(s.dataDir, 'tmp'))).toEqual([]);
    const after = await remote('refs/heads/topic');
    expect(after).not.toBe(before);
    expect(done.sha).toBe(after);
    await git(['fetch', '--quiet', 'origin'], work);
    // The target head is now the parent of the source's one commit; the author kept, the rebaser committer.
    expect((await git(['rev-parse', `${after}^`], work)).stdout.trim()).toBe(target);
    const who = (await git(['log', '-1', '--format=%ae %ce', after!], work)).stdout.trim();
    expect(who).toBe('dev@example.com developer@example.com');
    // A new diff version was recorded, as after a push.
    const versions = await api.get(`${base()}/${iid}/versions`, { token: users.dev!.token });
    expect(versions.body[0].head_commit_sha).toBe(after);
    // Without the parameter, no rebase_in_progress field.
    expect((await api.get(`${base()}/${iid}`, { token: users.dev!.token })).body).not.toHaveProperty(
      'rebase_in_progress',
    );
  });

  it('rebase: a conflict sets merge_error and leaves the branch as it was', async () => {
    await commitOn('conflicting', 'shared.txt', 'mine\n');
    await commitOn('main', 'shared.txt', 'theirs\n');
    const iid = await open('conflicting');
    const before = await remote('refs/heads/conflicting');
    const r = await api.put(`${base()}/${iid}/rebase`, { token: users.dev!.token });
    expect(r.status).toBe(202);
    const done = await until(async () => {
      const mr = await api.get(`${base()}/${iid}?include_rebase_in_progress=true`, {
        token: users.dev!.token,
      });
      return mr.body.rebase_in_progress === false ? mr.body : null;
    }, 'the rebase to end');
    expect(done.merge_error).toBe(REBASE_ERROR);
    expect(await remote('refs/heads/conflicting')).toBe(before);
  });

  it('rebase: who may, and what is refused', async () => {
    await commitOn('guarded', 'guarded.txt', 'g\n');
    const iid = await open('guarded');
    const reporter = await api.put(`${base()}/${iid}/rebase`, { token: users.reporter!.token });
    expect(reporter.status).toBe(403);
    expect(reporter.body).toEqual({ message: '403 Forbidden - Cannot push to source branch' });
    expect((await api.put(`${base()}/${iid}/rebase`, { token: users.outsider!.token })).status).toBe(404);
    expect((await api.put(`${base()}/${iid}/rebase`)).status).toBe(404);
    // A closed merge request cannot be rebased: GitLab's resource lock answer.
    await api.put(`${base()}/${iid}`, { token: users.dev!.token, body: { state_event: 'close' } });
    const closed = await api.put(`${base()}/${iid}/rebase`, { token: users.dev!.token });
    expect(closed.status).toBe(409);
    expect(closed.body).toEqual({ message: '409 Conflict: Resource lock' });
    await api.put(`${base()}/${iid}`, { token: users.dev!.token, body: { state_event: 'reopen' } });
    // The source branch deleted: 403 with GitLab's message.
    expect((await git(['push', '--quiet', 'origin', ':refs/heads/guarded'], work)).code).toBe(0);
    const gone = await api.put(`${base()}/${iid}/rebase`, { token: users.dev!.token });
    expect(gone.status).toBe(403);
    expect(gone.body.message).toBe('403 Forbidden - Source branch does not exist');
  });

  it('rebase and merge_ref respect the read-only repository of a storage move', async () => {
    await commitOn('frozen', 'frozen.txt', 'f\n');
    const iid = await open('frozen');
    const { body: asAdmin } = await api.get(`/api/v4/projects/${project.id}`, { token: s.rootToken });
    await s.server.ctx.jobs.stop(); // hold the worker: the move stays scheduled, the project read-only
    try {
      const move = await api.post(`/api/v4/projects/${project.id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: asAdmin.repository_storage === 'other' ? 'default' : 'other' },
      });
      expect(move.status, JSON.stringify(move.body)).toBe(201);
      const rebase = await api.put(`${base()}/${iid}/rebase`, { token: users.dev!.token });
      expect(rebase.status).toBe(403);
      expect(rebase.body.message).toBe('The repository is temporarily read-only. Please try again later.');
      const ref = await api.get(`${base()}/${iid}/merge_ref`, { token: users.dev!.token });
      expect(ref.status).toBe(403);
    } finally {
      await s.server.ctx.jobs.drain();
      s.server.ctx.jobs.start(200, 2);
    }
    await until(
      async () => (await api.get(`${base()}/${iid}/merge_ref`, { token: users.dev!.token })).status === 200,
      'the merge ref after the move',
    );
  });

  it('participants: note authors, the author, mentioned users who may read the merge request', async () => {
    await commitOn('talk', 'talk.txt', 't\n');
    const iid = await open('talk', 'Talk', 'cc @maintainer and `@developer` in code');
    await api.post(`${base()}/${iid}/notes`, { token: users.reporter!.token, body: { body: 'looks fine' } });
    await api.post(`${base()}/${iid}/notes`, {
      token: users.dev!.token,
      body: { body: 'thanks @reporter, and @outsider (no access) and @nobody-here' },
    });
    const r = await api.get(`${base()}/${iid}/participants`, { token: users.reporter!.token });
    expect(r.status).toBe(200);
    expect(r.body.map((u: { username: string }) => u.username)).toEqual(['reporter', 'dev', 'maintainer']);
    expect(Object.keys(r.body[0]).sort()).toEqual(
      expect.arrayContaining(['id', 'username', 'name', 'state', 'avatar_url', 'web_url']),
    );
    expect(r.headers.get('x-total')).toBe('3');
    expect((await api.get(`${base()}/${iid}/participants`, { token: users.outsider!.token })).status).toBe(
      404,
    );
  });

  it('reset_approvals: only a project access token bot clears the approvals (202); people get 401, and so does a merged request', async () => {
    await commitOn('approved', 'approved.txt', 'ok\n');
    const iid = await open('approved');
    expect((await api.post(`${base()}/${iid}/approve`, { token: users.developer!.token })).status).toBe(201);
    const approvers = async () =>
      (await api.get(`${base()}/${iid}/approvals`, { token: users.dev!.token })).body.approved_by.length;
    expect(await approvers()).toBe(1);
    const developer = await api.put(`${base()}/${iid}/reset_approvals`, { token: users.developer!.token });
    expect(developer.status).toBe(401);
    expect(await approvers()).toBe(1);
    expect((await api.put(`${base()}/${iid}/reset_approvals`, { token: users.outsider!.token })).status).toBe(
      404,
    );
    expect(
      (await api.put(`${base()}/${iid}/reset_approvals`, { token: users.maintainer!.token })).status,
    ).toBe(401);
    expect(await approvers()).toBe(1);
    const bot = await api.post(`/api/v4/projects/${project.id}/access_tokens`, {
      token: users.maintainer!.token,
      body: { name: 'reviewer-bot', scopes: ['api'], access_level: 40 },
    });
    expect(bot.status, JSON.stringify(bot.body)).toBe(201);
    const reset = await api.put(`${base()}/${iid}/reset_approvals`, { token: bot.body.token });
    expect(reset.status).toBe(202);
    expect(await approvers()).toBe(0);
    const merged = await api.put(`${base()}/${iid}/merge`, { token: users.dev!.token });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect((await api.put(`${base()}/${iid}/reset_approvals`, { token: bot.body.token })).status).toBe(401);
  });
});
