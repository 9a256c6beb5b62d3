import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ident = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];

/**
 * Issue 11, item 6: merge request approvals as GitLab clients call them (`approvals`, `approve`, `unapprove`,
 * `approval_state`, `approval_rules`), and on Premium a merge request that still needs approvals is not merged.
 */
describe.each(await databases())('merge request approvals (%s, Premium)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let project: { id: number; http_url_to_repo: string };
  let work: string;
  let n = 0;
  const base = () => `/api/v4/projects/${project.id}`;

  /** A new branch with one commit, pushed, and a merge request for it by `author`. */
  async function mergeRequest(author = 'dev') {
    const branch = `feature-${++n}`;
    expect((await git(['fetch', '--quiet', 'origin'], work)).code).toBe(0);
    expect((await git(['checkout', '--quiet', '-B', branch, 'origin/main'], work)).code).toBe(0);
    writeFileSync(join(work, `${branch}.txt`), `${branch}\n`);
    await git(['add', `${branch}.txt`], work);
    expect((await git([...ident, 'commit', '--quiet', '-m', branch], work)).code).toBe(0);
    expect((await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work)).code).toBe(0);
    const mr = await api.post<{ iid: number; sha: string }>(`${base()}/merge_requests`, {
      token: tokens[author],
      body: { source_branch: branch, target_branch: 'main', title: branch },
    });
    expect(mr.status).toBe(201);
    return mr.body;
  }
  const as = (who: string) => ({ token: tokens[who] });

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium' } });
    api = http(s.url);
    for (const name of ['dev', 'bob', 'carol', 'reporter']) {
      const u = await api.post<{ id: number }>('/api/v4/users', {
        token: s.rootToken,
        body: { username: name, name, email: `${name}@example.com`, password: 'password-123' },
      });
      ids[name] = u.body.id;
      tokens[name] = (
        await api.post<{ token: string }>(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
          token: s.rootToken,
          body: { name: 'api', scopes: ['api'] },
        })
      ).body.token;
    }
    project = (await api.post(`/api/v4/projects`, { token: tokens.dev, body: { name: 'reviewed' } })).body;
    for (const [who, level] of [
      ['bob', 30],
      ['carol', 30],
      ['reporter', 20],
    ] as const)
      await api.post(`${base()}/members`, {
        token: tokens.dev,
        body: { user_id: ids[who], access_level: level },
      });
    const first = await pushCommit(authUrl(project.http_url_to_repo, 'dev', tokens.dev!));
    expect(first.push.code).toBe(0);
    work = first.dir;
  });
  afterAll(() => s?.stop());

  it('approves and unapproves; the author and Reporters cannot; a wrong sha is a 409', async () => {
    const mr = await mergeRequest();
    const url = `${base()}/merge_requests/${mr.iid}`;
    expect((await api.get(`${url}/approvals`, as('dev'))).body).toMatchObject({
      iid: mr.iid,
      approved: true,
      approvals_required: 0,
      approvals_left: 0,
      approved_by: [],
      user_has_approved: false,
      user_can_approve: false, // the author, without merge_requests_author_approval
    });
    expect((await api.post(`${url}/approve`, as('dev'))).status).toBe(401);
    expect((await api.post(`${url}/approve`, as('reporter'))).status).toBe(401);
    expect(await api.post(`${url}/approve`, { ...as('bob'), body: { sha: '0'.repeat(40) } })).toMatchObject({
      status: 409,
      body: { message: `SHA does not match HEAD of source branch: ${mr.sha}` },
    });
    const approved = await api.post(`${url}/approve`, { ...as('bob'), body: { sha: mr.sha } });
    expect(approved).toMatchObject({
      status: 201,
      body: {
        approved_by: [{ user: { username: 'bob' } }],
        user_has_approved: true,
        user_can_approve: false,
      },
    });
    expect((await api.post(`${url}/approve`, as('bob'))).status).toBe(401);
    const withdrawn = await api.post(`${url}/unapprove`, as('bob'));
    expect(withdrawn).toMatchObject({ status: 201, body: { approved_by: [], user_has_approved: false } });
    expect((await api.post(`${url}/unapprove`, as('bob'))).status).toBe(404);
    // v5 answers the same.
    expect(
      (await api.get(`/api/v5/projects/${project.id}/merge_requests/${mr.iid}/approvals`, as('bob'))).status,
    ).toBe(200);
  });

  it('refuses to merge until approvals_before_merge are given (Premium), then merges', async () => {
    const set = await api.post(`${base()}/approvals`, { ...as('dev'), body: { approvals_before_merge: 1 } });
    expect(set.status).toBe(201);
    const mr = await mergeRequest();
    const url = `${base()}/merge_requests/${mr.iid}`;
    expect((await api.get(`${url}/approvals`, as('dev'))).body).toMatchObject({
      approved: false,
      approvals_required: 1,
      approvals_left: 1,
    });
    expect(await api.put(`${url}/merge`, as('dev'))).toMatchObject({
      status: 405,
      body: { message: '405 Method Not Allowed' },
    });
    expect((await api.get(url, as('dev'))).body.state).toBe('opened');
    expect((await api.post(`${url}/approve`, as('carol'))).status).toBe(201);
    expect((await api.get(`${url}/approvals`, as('dev'))).body).toMatchObject({
      approved: true,
      approvals_left: 0,
    });
    expect((await api.put(`${url}/merge`, as('dev'))).body.state).toBe('merged');
    await api.post(`${base()}/approvals`, { ...as('dev'), body: { approvals_before_merge: 0 } });
  });

  it('counts approvals per rule: only eligible approvers meet a rule (approval_state, approval_rules)', async () => {
    const rule = await api.post<{ id: number }>(`${base()}/approval_rules`, {
      ...as('dev'),
      body: { name: 'Carol', approvals_required: 1, user_ids: [ids.carol] },
    });
    expect(rule.status).toBe(201);
    const mr = await mergeRequest();
    const url = `${base()}/merge_requests/${mr.iid}`;
    expect((await api.post(`${url}/approve`, as('bob'))).status).toBe(201);
    const state = await api.get(`${url}/approval_state`, as('dev'));
    expect(state.body).toMatchObject({
      approval_rules_overwritten: false,
      rules: [
        {
          id: rule.body.id,
          name: 'Carol',
          approvals_required: 1,
          eligible_approvers: [{ username: 'carol' }],
          approved_by: [],
          approved: false,
        },
      ],
    });
    expect((await api.get(`${url}/approvals`, as('dev'))).body).toMatchObject({
      approved: false,
      approvals_left: 1,
      approval_rules_left: [{ name: 'Carol' }],
      suggested_approvers: [{ username: 'carol' }],
    });
    expect((await api.put(`${url}/merge`, as('dev'))).status).toBe(405);
    expect((await api.post(`${url}/approve`, as('carol'))).status).toBe(201);
    const rules = await api.get(`${url}/approval_rules`, as('reporter'));
    expect(rules.body).toMatchObject([
      { name: 'Carol', approved: true, approved_by: [{ username: 'carol' }] },
    ]);
    expect((await api.put(`${url}/merge`, as('dev'))).body.state).toBe('merged');
    // A merged request takes no more approvals.
    expect((await api.post(`${url}/unapprove`, as('bob'))).status).toBe(201);
    expect((await api.post(`${url}/approve`, as('bob'))).status).toBe(401);
  });
});
