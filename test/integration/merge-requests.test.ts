import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const cases = (await databases()).flatMap((db) =>
  (['16.11', '17.0', '18.0'] as const).map((release) => [db, release] as const),
);

const ident = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];

describe.each(cases)('merge requests (%s, release %s)', (database, release) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let token: string;
  let reporterToken: string;
  let outsiderToken: string;
  let project: { id: number; path_with_namespace: string; http_url_to_repo: string };
  let work: string;
  const base = () => `/api/v4/projects/${project.id}`;
  const v5 = () => `/api/v5/projects/${project.id}`;

  /** Commits `content` to `file` on `branch` (created from `from`) in the work tree and pushes it. */
  const commitOn = async (branch: string, file: string, content: string, from = 'origin/main') => {
    expect((await git(['fetch', '--quiet', 'origin'], work)).code).toBe(0);
    expect((await git(['checkout', '--quiet', '-B', branch, from], work)).code).toBe(0);
    writeFileSync(join(work, file), content);
    await git(['add', file], work);
    expect((await git([...ident, 'commit', '--quiet', '-m', `${branch}: ${file}`], work)).code).toBe(0);
    expect((await git(['push', '--quiet', '-f', 'origin', `HEAD:refs/heads/${branch}`], work)).code).toBe(0);
  };
  const remoteHead = async (branch: string) =>
    (await git(['ls-remote', 'origin', `refs/heads/${branch}`], work)).stdout.split('\t')[0];

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_RELEASE: release } });
    api = http(s.url);
    const user = async (username: string) => {
      const u = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: { username, name: username, email: `${username}@example.com`, password: 'password-123' },
      });
      const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 'api', scopes: ['api'] },
      });
      return { id: u.body.id as number, token: t.body.token as string };
    };
    const dev = await user('dev');
    const reporter = await user('reporter');
    const outsider = await user('outsider');
    token = dev.token;
    reporterToken = reporter.token;
    outsiderToken = outsider.token;
    project = (await api.post('/api/v4/projects', { token, body: { name: 'shop' } })).body;
    await api.post(`${base()}/members`, { token, body: { user_id: reporter.id, access_level: 20 } });
    const first = await pushCommit(
      authUrl(project.http_url_to_repo, 'dev', token),
      'README.md',
      'one\ntwo\n',
    );
    expect(first.push.code).toBe(0);
    work = first.dir;
  });
  afterAll(() => s?.stop());

  it('creates a merge request with v4 and v5 shapes, and computes mergeability from git', async () => {
    await commitOn('feature', 'feature.txt', 'new feature\n');
    const created = await api.post(`${base()}/merge_requests`, {
      token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add the feature', description: 'why' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      state: 'opened',
      draft: false,
      merged_by: null,
      merge_user: null,
      merge_status: 'can_be_merged',
      detailed_merge_status: 'mergeable',
      has_conflicts: false,
      sha: await remoteHead('feature'),
      author: { username: 'dev' },
      references: { full: `${project.path_with_namespace}!1` },
    });
    expect(created.body.diff_refs.start_sha).toBe(await remoteHead('main'));
    // v4 responses carry deprecated fields: signalled.
    expect(created.headers.get('deprecation')).toMatch(/^@\d+$/);

    const v4 = await api.get(`${base()}/merge_requests/1`, { token });
    expect(v4.body).toHaveProperty('merged_by', null);
    expect(v4.body).toHaveProperty('merge_status', 'can_be_merged');
    const v5Mr = await api.get(`${v5()}/merge_requests/1`, { token });
    expect(v5Mr.status).toBe(200);
    expect(v5Mr.body).not.toHaveProperty('merged_by');
    expect(v5Mr.body).not.toHaveProperty('merge_status');
    expect(v5Mr.body).toMatchObject({ merge_user: null, detailed_merge_status: 'mergeable' });
    expect(v5Mr.headers.get('deprecation')).toBeNull();

    const list = await api.get(`${v5()}/merge_requests?state=opened`, { token: reporterToken });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body[0]).not.toHaveProperty('merged_by');
  });

  it('rejects bad input clearly and changes nothing', async () => {
    const post = (body: Record<string, unknown>, t = token) =>
      api.post(`${base()}/merge_requests`, { token: t, body });
    const missing = await post({ source_branch: 'feature', target_branch: 'main' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/title/);
    const same = await post({ source_branch: 'main', target_branch: 'main', title: 'x' });
    expect(same.status).toBe(400);
    expect(same.body.message).toHaveProperty('branch_conflict');
    const nowhere = await post({ source_branch: 'nope', target_branch: 'main', title: 'x' });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.message).toEqual({ source_branch: ['is invalid'] });
    const duplicate = await post({ source_branch: 'feature', target_branch: 'main', title: 'again' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toMatch(/!1/);
    // Reporters read but do not create; outsiders do not see the private project.
    expect(
      (await post({ source_branch: 'feature', target_branch: 'main', title: 'r' }, reporterToken)).status,
    ).toBe(403);
    expect((await api.get(`${base()}/merge_requests/1`, { token: outsiderToken })).status).toBe(404);
    expect((await api.get(`${base()}/merge_requests/99`, { token })).body).toEqual({
      message: '404 Merge Request Not Found',
    });
    // Updates are validated the same way and change nothing when refused.
    expect((await api.put(`${base()}/merge_requests/1`, { token, body: { title: ' ' } })).body).toEqual({
      message: { title: ["can't be blank"] },
    });
    expect(
      (await api.put(`${base()}/merge_requests/1`, { token, body: { target_branch: 'nope' } })).body,
    ).toEqual({ message: { target_branch: ['is invalid'] } });
    expect((await api.get(`${base()}/merge_requests/1`, { token })).body).toMatchObject({
      title: 'Add the feature',
      target_branch: 'main',
    });
    expect((await api.get(`${base()}/merge_requests`, { token })).headers.get('x-total')).toBe('1');
  });

  it('lists diffs (paginated, GitLab Diff objects); /changes is v4 only', async () => {
    await commitOn('feature', 'more.txt', 'more\n', 'origin/feature');
    const page1 = await api.get(`${base()}/merge_requests/1/diffs?per_page=1`, { token });
    expect(page1.status).toBe(200);
    expect(page1.headers.get('x-total')).toBe('2');
    expect(page1.headers.get('x-next-page')).toBe('2');
    expect(page1.body).toEqual([
      {
        diff: '@@ -0,0 +1 @@\n+new feature\n',
        collapsed: false,
        too_large: false,
        new_path: 'feature.txt',
        old_path: 'feature.txt',
        a_mode: '0',
        b_mode: '100644',
        new_file: true,
        renamed_file: false,
        deleted_file: false,
        generated_file: false,
      },
    ]);
    const page2 = await api.get(`${v5()}/merge_requests/1/diffs?per_page=1&page=2`, { token });
    expect(page2.body.map((d: { new_path: string }) => d.new_path)).toEqual(['more.txt']);

    const changes = await api.get(`${base()}/merge_requests/1/changes`, { token });
    expect(changes.status).toBe(200);
    expect(changes.body).toMatchObject({ iid: 1, changes_count: '2', overflow: false });
    expect(changes.body.changes).toHaveLength(2);
    expect(changes.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(changes.headers.get('link')).toContain('mr_changes_endpoint');
    expect((await api.get(`${v5()}/merge_requests/1/changes`, { token })).status).toBe(404);
  });

  it('merges with a real merge commit on the target branch', async () => {
    const before = await remoteHead('main');
    const source = await remoteHead('feature');
    const stale = await api.put(`${base()}/merge_requests/1/merge`, { token, body: { sha: before } });
    expect(stale.status).toBe(409);
    expect(await remoteHead('main')).toBe(before);

    const commits = await api.get(`${v5()}/merge_requests/1/commits`, { token });
    expect(commits.status).toBe(200);
    expect(commits.body.map((c: { title: string }) => c.title)).toEqual([
      'feature: more.txt',
      'feature: feature.txt',
    ]);
    expect(commits.body[0]).toMatchObject({ id: source, short_id: source?.slice(0, 8), author_name: 'Dev' });

    const merged = await api.put(`${base()}/merge_requests/1/merge`, { token, body: { sha: source } });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({
      state: 'merged',
      merged_by: { username: 'dev' },
      merge_user: { username: 'dev' },
      detailed_merge_status: 'not_open',
      sha: source,
    });
    const commit = merged.body.merge_commit_sha as string;
    expect(await remoteHead('main')).toBe(commit);
    await git(['fetch', '--quiet', 'origin'], work);
    const parents = (await git(['rev-list', '--parents', '-n', '1', commit], work)).stdout.trim().split(' ');
    expect(parents.slice(1)).toEqual([before, source]);
    expect((await git(['show', `${commit}:feature.txt`], work)).stdout).toBe('new feature\n');
    expect((await git(['log', '-1', '--format=%an %s', commit], work)).stdout).toMatch(
      /^dev Merge branch 'feature'/,
    );

    const v5Mr = await api.get(`${v5()}/merge_requests/1`, { token });
    expect(v5Mr.body).toMatchObject({ state: 'merged', merge_user: { username: 'dev' } });
    expect(v5Mr.body).not.toHaveProperty('merged_by');
    // The diff of a merged request stays what was merged.
    expect((await api.get(`${base()}/merge_requests/1/diffs`, { token })).body).toHaveLength(2);
    expect((await api.put(`${base()}/merge_requests/1/merge`, { token })).status).toBe(405);
    // A merged request cannot be reopened or retargeted.
    expect(
      (await api.put(`${base()}/merge_requests/1`, { token, body: { state_event: 'reopen' } })).body,
    ).toEqual({ message: '405 Method Not Allowed' });
    expect((await api.get(`${base()}/merge_requests/1`, { token })).body.state).toBe('merged');
  });

  it('refuses to merge conflicting branches and leaves the target untouched', async () => {
    await commitOn('clash', 'README.md', 'one\nTWO from clash\n');
    await commitOn('main', 'README.md', 'one\ntwo from main\n');
    const mr = await api.post(`${base()}/merge_requests`, {
      token,
      body: { source_branch: 'clash', target_branch: 'main', title: 'Clash' },
    });
    expect(mr.body).toMatchObject({
      detailed_merge_status: 'conflict',
      merge_status: 'cannot_be_merged',
      has_conflicts: true,
    });
    const v5Mr = await api.get(`${v5()}/merge_requests/${mr.body.iid}`, { token });
    expect(v5Mr.body.detailed_merge_status).toBe('conflict');
    const head = await remoteHead('main');
    const refused = await api.put(`${base()}/merge_requests/${mr.body.iid}/merge`, { token });
    expect(refused.status).toBe(406);
    expect(refused.body.message).toMatch(/conflict/);
    expect(await remoteHead('main')).toBe(head);
    expect((await api.get(`${base()}/merge_requests/${mr.body.iid}`, { token })).body.state).toBe('opened');

    // Closing and reopening; a closed request is not open.
    const closed = await api.put(`${base()}/merge_requests/${mr.body.iid}`, {
      token,
      body: { state_event: 'close' },
    });
    expect(closed.body).toMatchObject({
      state: 'closed',
      detailed_merge_status: 'not_open',
      closed_by: { username: 'dev' },
    });
    const reopened = await api.put(`${base()}/merge_requests/${mr.body.iid}`, {
      token,
      body: { state_event: 'reopen' },
    });
    expect(reopened.body).toMatchObject({
      state: 'opened',
      closed_by: null,
      detailed_merge_status: 'conflict',
    });
  });

  it('cannot merge a branch without a common history', async () => {
    expect((await git(['checkout', '--quiet', '--orphan', 'island'], work)).code).toBe(0);
    writeFileSync(join(work, 'island.txt'), 'alone\n');
    await git(['add', 'island.txt'], work);
    expect((await git([...ident, 'commit', '--quiet', '-m', 'island'], work)).code).toBe(0);
    expect((await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/island'], work)).code).toBe(0);
    const mr = await api.post(`${base()}/merge_requests`, {
      token,
      body: { source_branch: 'island', target_branch: 'main', title: 'Island' },
    });
    expect(mr.status).toBe(201);
    expect(mr.body.detailed_merge_status).toBe('conflict');
    expect((await api.put(`${base()}/merge_requests/${mr.body.iid}/merge`, { token })).status).toBe(406);
    await api.put(`${base()}/merge_requests/${mr.body.iid}`, { token, body: { state_event: 'close' } });
  });

  it('reports drafts as draft_status and does not merge them; removes the source branch on request', async () => {
    await commitOn('wip', 'wip.txt', 'wip\n');
    const mr = await api.post(`${base()}/merge_requests`, {
      token,
      body: {
        source_branch: 'wip',
        target_branch: 'main',
        title: 'Draft: not yet',
        remove_source_branch: true,
      },
    });
    expect(mr.body).toMatchObject({
      draft: true,
      detailed_merge_status: 'draft_status',
      force_remove_source_branch: true,
    });
    expect((await api.put(`${base()}/merge_requests/${mr.body.iid}/merge`, { token })).status).toBe(406);
    const ready = await api.put(`${base()}/merge_requests/${mr.body.iid}`, {
      token,
      body: { title: 'Ready' },
    });
    expect(ready.body).toMatchObject({ draft: false, detailed_merge_status: 'mergeable' });
    const merged = await api.put(`${v5()}/merge_requests/${mr.body.iid}/merge`, { token });
    expect(merged.status).toBe(200);
    expect(merged.body).not.toHaveProperty('merged_by');
    expect(await remoteHead('wip')).toBe('');
  });
});

describe.each(cases)('approvals and managed licenses (%s, release %s)', (database, release) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let token: string;
  let devToken: string;
  let devId: number;
  let projectId: number;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_RELEASE: release } });
    api = http(s.url);
    token = s.rootToken;
    projectId = (await api.post('/api/v4/projects', { token, body: { name: 'rules' } })).body.id;
    const u = await api.post('/api/v4/users', {
      token,
      body: { username: 'dev', name: 'Dev', email: 'dev@example.com', password: 'password-123' },
    });
    devId = u.body.id;
    devToken = (
      await api.post(`/api/v4/users/${devId}/personal_access_tokens`, {
        token,
        body: { name: 'a', scopes: ['api'] },
      })
    ).body.token;
    await api.post(`/api/v4/projects/${projectId}/members`, {
      token,
      body: { user_id: devId, access_level: 30 },
    });
  });
  afterAll(() => s?.stop());

  it('shows approvers and approver_groups as empty arrays in v4 only', async () => {
    const v4 = await api.get(`/api/v4/projects/${projectId}/approvals`, { token: devToken });
    expect(v4.status).toBe(200);
    expect(v4.body).toMatchObject({
      approvers: [],
      approver_groups: [],
      approvals_before_merge: 0,
      reset_approvals_on_push: true,
    });
    expect(v4.headers.get('link')).toContain('approvals_approvers_fields');
    const v5 = await api.get(`/api/v5/projects/${projectId}/approvals`, { token: devToken });
    expect(v5.status).toBe(200);
    expect(v5.body).not.toHaveProperty('approvers');
    expect(v5.body).not.toHaveProperty('approver_groups');
    expect(v5.body).toHaveProperty('reset_approvals_on_push', true);

    expect(
      (
        await api.post(`/api/v4/projects/${projectId}/approvals`, {
          token: devToken,
          body: { reset_approvals_on_push: false },
        })
      ).status,
    ).toBe(403);
    const changed = await api.post(`/api/v5/projects/${projectId}/approvals`, {
      token,
      body: { reset_approvals_on_push: false, merge_requests_author_approval: true },
    });
    expect(changed.status).toBe(201);
    expect(
      (
        await api.post(`/api/v4/projects/${projectId}/approvals`, {
          token,
          body: { approvals_before_merge: -1 },
        })
      ).status,
    ).toBe(400);
    expect((await api.get(`/api/v4/projects/${projectId}/approvals`, { token })).body).toMatchObject({
      reset_approvals_on_push: false,
      merge_requests_author_approval: true,
      approvers: [],
    });
  });

  it('manages project-level approval rules in both versions', async () => {
    const path = (v: 4 | 5) => `/api/v${v}/projects/${projectId}/approval_rules`;
    const created = await api.post(path(5), {
      token,
      body: { name: 'Security', approvals_required: 2, user_ids: [devId] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Security',
      rule_type: 'regular',
      approvals_required: 2,
      users: [{ id: devId, username: 'dev' }],
      eligible_approvers: [{ id: devId }],
      groups: [],
    });
    const id = created.body.id;
    expect(
      (await api.post(path(4), { token, body: { name: 'Security', approvals_required: 1 } })).body,
    ).toEqual({
      message: { name: ['has already been taken'] },
    });
    expect((await api.post(path(4), { token, body: { name: 'x' } })).body).toEqual({
      error: 'approvals_required is missing',
    });
    expect(
      (await api.post(path(4), { token, body: { name: 'y', approvals_required: 1, user_ids: [9999] } }))
        .status,
    ).toBe(400);
    expect(
      (await api.post(path(4), { token: devToken, body: { name: 'z', approvals_required: 1 } })).status,
    ).toBe(403);
    expect((await api.post(path(4), { token, body: { name: 'n', approvals_required: -1 } })).status).toBe(
      400,
    );
    expect(
      (await api.post(path(5), { token, body: { name: 'g', approvals_required: 1, group_ids: [9999] } }))
        .body,
    ).toEqual({ message: { group_ids: ['group 9999 does not exist'] } });
    expect((await api.get(path(4), { token: devToken })).body).toHaveLength(1);

    const updated = await api.put(`${path(4)}/${id}`, {
      token,
      body: { approvals_required: 1, user_ids: [] },
    });
    expect(updated.body).toMatchObject({ approvals_required: 1, users: [] });
    expect((await api.get(`${path(5)}/${id}`, { token })).body.approvals_required).toBe(1);
    expect((await api.delete(`${path(5)}/${id}`, { token })).status).toBe(204);
    expect((await api.get(`${path(4)}/${id}`, { token })).body).toEqual({
      message: '404 Approval Rule Not Found',
    });
  });

  it('serves managed licenses in v4 only, deprecated', async () => {
    const path = `/api/v4/projects/${projectId}/managed_licenses`;
    const created = await api.post(path, { token, body: { name: 'MIT', approval_status: 'allowed' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'MIT', approval_status: 'allowed' });
    expect(created.headers.get('link')).toContain('managed_licenses_api');
    // GitLab's older status name is accepted; a bad one is refused.
    expect(
      (await api.post(path, { token, body: { name: 'GPL', approval_status: 'blacklisted' } })).body,
    ).toMatchObject({
      approval_status: 'denied',
    });
    expect((await api.post(path, { token, body: { name: 'X', approval_status: 'maybe' } })).body).toEqual({
      error: 'approval_status does not have a valid value',
    });
    expect((await api.post(path, { token, body: { name: 'MIT', approval_status: 'denied' } })).status).toBe(
      409,
    );
    expect((await api.post(path, { token, body: { name: ' ', approval_status: 'denied' } })).body).toEqual({
      message: { name: ["can't be blank"] },
    });
    const list = await api.get(path, { token: devToken });
    expect(list.body.map((l: { name: string }) => l.name)).toEqual(['MIT', 'GPL']);
    expect((await api.get(`${path}/MIT`, { token })).body.id).toBe(created.body.id);
    expect((await api.delete(`${path}/MIT`, { token: devToken })).status).toBe(403);
    expect((await api.delete(`${path}/MIT`, { token })).status).toBe(204);
    expect((await api.get(path, { token })).body).toHaveLength(1);

    const v5 = await api.get(`/api/v5/projects/${projectId}/managed_licenses`, { token });
    expect(v5.status).toBe(404);
  });
});
