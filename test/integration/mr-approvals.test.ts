import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ident = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];

/**
 * Merge request approvals as GitLab clients call them (`approvals`, `approve`, `unapprove`,
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
      const u = await createUser(s, name);
      ids[name] = u.id;
      tokens[name] = u.token;
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
    expect((await api.get(url, as('dev'))).body).toMatchObject({
      state: 'opened',
      detailed_merge_status: 'not_approved',
    });
    expect((await api.post(`${url}/approve`, as('carol'))).status).toBe(201);
    expect((await api.get(url, as('dev'))).body.detailed_merge_status).toBe('mergeable');
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

  it('asks for the password to approve when the project requires it (401 when missing or wrong)', async () => {
    await api.post(`${base()}/approvals`, { ...as('dev'), body: { require_password_to_approve: true } });
    const mr = await mergeRequest();
    const url = `${base()}/merge_requests/${mr.iid}`;
    expect((await api.get(`${url}/approvals`, as('bob'))).body.require_password_to_approve).toBe(true);
    expect((await api.post(`${url}/approve`, as('bob'))).status).toBe(401);
    const wrong = await api.post(`${url}/approve`, { ...as('bob'), body: { approval_password: 'nope' } });
    expect(wrong.status).toBe(401);
    expect((await api.get(`${url}/approvals`, as('bob'))).body.approved_by).toEqual([]);
    const right = await api.post(`${url}/approve`, {
      ...as('bob'),
      body: { approval_password: 'password-123', sha: mr.sha },
    });
    expect(right.status).toBe(201);
    expect(right.body.approved_by).toMatchObject([{ user: { username: 'bob' } }]);
    await api.post(`${base()}/approvals`, { ...as('dev'), body: { require_password_to_approve: false } });
  });

  it("lets a merge request's own rules replace the project's for it, and changes nothing on refusal", async () => {
    const projectRules = (
      await api.get<{ id: number; name: string }[]>(`${base()}/approval_rules`, as('dev'))
    ).body;
    const carolRule = projectRules.find((r) => r.name === 'Carol')!;
    const mr = await mergeRequest();
    const url = `${base()}/merge_requests/${mr.iid}`;
    expect((await api.get(`${url}/approval_rules`, as('dev'))).body).toMatchObject([
      { id: carolRule.id, name: 'Carol', overridden: false, source_rule: { approvals_required: 1 } },
    ]);
    // Refusals first: a Reporter (403), unknown users (400), no name (400); none overwrites the rules.
    const rule = { name: 'Bob', approvals_required: 1, user_ids: [ids.bob] };
    expect((await api.post(`${url}/approval_rules`, { ...as('reporter'), body: rule })).status).toBe(403);
    expect(
      (await api.post(`${url}/approval_rules`, { ...as('dev'), body: { ...rule, user_ids: [999_999] } }))
        .status,
    ).toBe(400);
    expect(
      (await api.post(`${url}/approval_rules`, { ...as('dev'), body: { ...rule, name: 'Carol' } })).body,
    ).toMatchObject({ message: { name: ['has already been taken'] } });
    expect(
      (await api.post(`${url}/approval_rules`, { ...as('dev'), body: { approvals_required: 1 } })).status,
    ).toBe(400);
    expect((await api.get(`${url}/approval_state`, as('dev'))).body.approval_rules_overwritten).toBe(false);

    // Lowering the project rule on this merge request is refused, as GitLab's validation does; nothing changes.
    expect(
      await api.put(`${url}/approval_rules/${carolRule.id}`, {
        ...as('dev'),
        body: { approvals_required: 0 },
      }),
    ).toMatchObject({
      status: 400,
      body: { message: { approvals_required: ['must be greater than or equal to 1'] } },
    });
    expect((await api.get(`${url}/approval_state`, as('dev'))).body.approval_rules_overwritten).toBe(false);
    // Changing the project rule on this merge request changes a copy of it.
    const widened = await api.put<{ id: number }>(`${url}/approval_rules/${carolRule.id}`, {
      ...as('dev'),
      body: { user_ids: [ids.carol, ids.bob] },
    });
    expect(widened).toMatchObject({
      status: 200,
      body: {
        name: 'Carol',
        approvals_required: 1,
        eligible_approvers: [{ username: 'carol' }, { username: 'bob' }],
        overridden: true,
        source_rule: { approvals_required: 1 },
      },
    });
    const added = await api.post(`${url}/approval_rules`, { ...as('dev'), body: rule });
    expect(added).toMatchObject({
      status: 201,
      body: {
        name: 'Bob',
        approvals_required: 1,
        eligible_approvers: [{ username: 'bob' }],
        source_rule: null,
      },
    });
    expect((await api.post(`${url}/approval_rules`, { ...as('dev'), body: rule })).status).toBe(400);
    expect((await api.get(`${url}/approval_state`, as('dev'))).body).toMatchObject({
      approval_rules_overwritten: true,
      rules: [{ name: 'Carol' }, { name: 'Bob', approved: false }],
    });
    expect((await api.get(url, as('dev'))).body.detailed_merge_status).toBe('not_approved');
    expect((await api.put(`${url}/merge`, as('dev'))).status).toBe(405);
    expect((await api.post(`${url}/approve`, as('bob'))).status).toBe(201);
    // The copy of a project rule stays; a rule of the request's own can be removed.
    expect((await api.delete(`${url}/approval_rules/${widened.body.id}`, as('dev'))).status).toBe(403);
    expect((await api.delete(`${url}/approval_rules/${added.body.id}`, as('dev'))).status).toBe(204);
    expect((await api.delete(`${url}/approval_rules/${added.body.id}`, as('dev'))).status).toBe(404);
    // A new copy of the project rule is held to its approvals too.
    expect(
      (
        await api.post(`${url}/approval_rules`, {
          ...as('dev'),
          body: { name: 'ignored', approvals_required: 0, approval_project_rule_id: carolRule.id },
        })
      ).body,
    ).toMatchObject({ message: { approvals_required: ['must be greater than or equal to 1'] } });
    expect(
      (
        await api.post(`${url}/approval_rules`, {
          ...as('dev'),
          body: { name: 'x', approvals_required: 0, approval_project_rule_id: 999_999 },
        })
      ).body,
    ).toMatchObject({ message: { approval_project_rule_id: ['is invalid'] } });
    expect((await api.get(`${url}/approval_rules`, as('dev'))).body).toMatchObject([{ name: 'Carol' }]);
    expect((await api.get(`${base()}/approval_rules/${carolRule.id}`, as('dev'))).body).toMatchObject({
      approvals_required: 1,
    });
    expect((await api.put(`${url}/merge`, as('dev'))).body.state).toBe('merged');
    // A merged request's rules are final.
    expect((await api.delete(`${url}/approval_rules/${added.body.id}`, as('dev'))).status).toBe(403);

    // A project that forbids overriding refuses rules on its merge requests.
    await api.post(`${base()}/approvals`, {
      ...as('dev'),
      body: { disable_overriding_approvers_per_merge_request: true },
    });
    const locked = await mergeRequest();
    expect(
      (await api.post(`${base()}/merge_requests/${locked.iid}/approval_rules`, { ...as('dev'), body: rule }))
        .status,
    ).toBe(403);
  });

  it('copies the project rules once when concurrent changes give a request its own rules', async () => {
    await api.post(`${base()}/approvals`, {
      ...as('dev'),
      body: { disable_overriding_approvers_per_merge_request: false },
    });
    const mr = await mergeRequest();
    const url = `${base()}/merge_requests/${mr.iid}`;
    const names = ['r1', 'r2', 'r3', 'r4', 'r5'];
    const created = await Promise.all(
      [...names, 'r1'].map((name) =>
        api.post(`${url}/approval_rules`, { ...as('dev'), body: { name, approvals_required: 0 } }),
      ),
    );
    // Five names, one of them twice: one of the two is refused.
    expect(created.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 400]);
    const rules = (await api.get<{ name: string }[]>(`${url}/approval_rules`, as('dev'))).body.map(
      (r) => r.name,
    );
    expect(rules.filter((n) => n === 'Carol')).toHaveLength(1);
    expect(rules.filter((n) => n !== 'Carol').sort()).toEqual(names);
  });
});
