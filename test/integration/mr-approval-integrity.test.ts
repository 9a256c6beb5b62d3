import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const as = (name: string) => ['-c', `user.name=${name}`, '-c', `user.email=${name}@example.com`];

/**
 * What keeps an approval meaning "this code was reviewed" (Premium): approvals removed by a push to the source
 * branch (`reset_approvals_on_push`), a merge request's copy of a project rule never below the project rule, and
 * no approval from a user whose commit is in the merge request (`merge_requests_disable_committers_approval`).
 * Pushes are real `git push`es over HTTP.
 */
describe.each(await databases())('merge request approval integrity (%s, Premium)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let project: { id: number; http_url_to_repo: string };
  let work: string;
  let n = 0;
  const base = () => `/api/v4/projects/${project.id}`;
  const tok = (who: string) => ({ token: tokens[who] });
  const settings = (body: Record<string, unknown>) =>
    api.post(`${base()}/approvals`, { ...tok('owner'), body }).then((r) => expect(r.status).toBe(201));

  /** Commits a file as `who` on the checked-out branch and pushes it; returns the new head. */
  async function commitAndPush(branch: string, who = 'dev') {
    writeFileSync(join(work, `${branch}-${++n}.txt`), `${n}\n`);
    await git(['add', '.'], work);
    expect((await git([...as(who), 'commit', '--quiet', '-m', `change ${n}`], work)).code).toBe(0);
    const push = await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work);
    expect(push.code, push.stderr).toBe(0);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  }

  /** A new branch with one commit by dev, and dev's merge request for it. */
  async function mergeRequest() {
    const branch = `topic-${++n}`;
    expect((await git(['fetch', '--quiet', 'origin'], work)).code).toBe(0);
    expect((await git(['checkout', '--quiet', '-B', branch, 'origin/main'], work)).code).toBe(0);
    await commitAndPush(branch);
    const mr = await api.post<{ id: number; iid: number; sha: string }>(`${base()}/merge_requests`, {
      ...tok('dev'),
      body: { source_branch: branch, target_branch: 'main', title: branch },
    });
    expect(mr.status).toBe(201);
    return { ...mr.body, branch, url: `${base()}/merge_requests/${mr.body.iid}` };
  }

  /** The diff versions recorded for a merge request (a push records one when it moves the source branch). */
  const recordedHeads = async (mrId: number) =>
    (
      await s.server.ctx.db.kysely
        .selectFrom('merge_request_diffs')
        .select('head_commit_sha')
        .where('merge_request_id', '=', mrId)
        .execute()
    ).map((v) => v.head_commit_sha);

  const approvedBy = async (url: string) =>
    (
      await api.get<{ approved_by: { user: { username: string } }[] }>(`${url}/approvals`, tok('owner'))
    ).body.approved_by.map((a) => a.user.username);

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium' } });
    api = http(s.url);
    for (const name of ['owner', 'dev', 'alice', 'bob']) {
      const u = await createUser(s, name);
      ids[name] = u.id;
      tokens[name] = u.token;
    }
    project = (await api.post(`/api/v4/projects`, { ...tok('owner'), body: { name: 'guarded' } })).body;
    for (const who of ['dev', 'alice', 'bob'])
      await api.post(`${base()}/members`, { ...tok('owner'), body: { user_id: ids[who], access_level: 30 } });
    const first = await pushCommit(authUrl(project.http_url_to_repo, 'dev', tokens.dev!));
    expect(first.push.code).toBe(0);
    work = first.dir;
    const rule = await api.post(`${base()}/approval_rules`, {
      ...tok('owner'),
      body: { name: 'Alice', approvals_required: 1, user_ids: [ids.alice] },
    });
    expect(rule.status).toBe(201);
  });
  afterAll(() => s?.stop());

  it('removes every approval when the source branch moves (push and force push), with reset_approvals_on_push on', async () => {
    expect((await api.get(`${base()}/approvals`, tok('owner'))).body.reset_approvals_on_push).toBe(true);
    const mr = await mergeRequest();
    expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    expect((await api.post(`${mr.url}/approve`, tok('bob'))).status).toBe(201);
    expect((await api.get(`${mr.url}/approvals`, tok('owner'))).body.approved).toBe(true);

    // A plain push of one more commit.
    const second = await commitAndPush(mr.branch);
    await until(async () => (await recordedHeads(mr.id)).includes(second), 'the push to be recorded');
    await until(async () => (await approvedBy(mr.url)).length === 0, 'the approvals to be removed');
    expect((await api.get(`${mr.url}/approvals`, tok('owner'))).body).toMatchObject({
      approved: false,
      approvals_left: 1,
    });
    expect((await api.put(`${mr.url}/merge`, tok('dev'))).status).toBe(405);

    // Approved again, then the branch is rewritten: deleted and pushed again (svc refuses non-fast-forward
    // updates), which is how a force push reaches it.
    expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    await git(['reset', '--quiet', '--hard', 'HEAD~1'], work);
    expect((await git(['push', '--quiet', 'origin', `:refs/heads/${mr.branch}`], work)).code).toBe(0);
    const rewritten = await commitAndPush(mr.branch);
    await until(
      async () => (await recordedHeads(mr.id)).includes(rewritten),
      'the force push to be recorded',
    );
    await until(async () => (await approvedBy(mr.url)).length === 0, 'the approvals to be removed');
    expect((await api.put(`${mr.url}/merge`, tok('dev'))).status).toBe(405);

    // A push to another branch (the target here) leaves the approvals alone.
    expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    await git(['checkout', '--quiet', '-B', 'main', 'origin/main'], work);
    await commitAndPush('main');
    expect(await approvedBy(mr.url)).toEqual(['alice']);
  });

  it('keeps approvals across pushes with reset_approvals_on_push off', async () => {
    await settings({ reset_approvals_on_push: false });
    try {
      const mr = await mergeRequest();
      expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
      const second = await commitAndPush(mr.branch);
      await until(async () => (await recordedHeads(mr.id)).includes(second), 'the push to be recorded');
      expect(await approvedBy(mr.url)).toEqual(['alice']);
      expect((await api.get(`${mr.url}/approvals`, tok('owner'))).body.approved).toBe(true);
    } finally {
      await settings({ reset_approvals_on_push: true });
    }
  });

  it("refuses to lower a merge request's copy of a project rule below it, or to delete the copy", async () => {
    const mr = await mergeRequest();
    const projectRule = (await api.get<{ id: number }[]>(`${base()}/approval_rules`, tok('owner'))).body[0]!;
    const lowered = await api.put(`${mr.url}/approval_rules/${projectRule.id}`, {
      ...tok('dev'),
      body: { approvals_required: 0 },
    });
    expect(lowered).toMatchObject({
      status: 400,
      body: { message: { approvals_required: ['must be greater than or equal to 1'] } },
    });
    // The refusal changed nothing: the merge request still follows the project's rules.
    expect((await api.get(`${mr.url}/approval_state`, tok('dev'))).body).toMatchObject({
      approval_rules_overwritten: false,
      rules: [{ approvals_required: 1 }],
    });
    expect((await api.delete(`${mr.url}/approval_rules/${projectRule.id}`, tok('dev'))).status).toBe(403);
    expect((await api.get(`${mr.url}/approval_state`, tok('dev'))).body.approval_rules_overwritten).toBe(
      false,
    );

    // Raising it is allowed; its copy cannot then be lowered below the project rule either, nor deleted.
    const raised = await api.put<{ id: number }>(`${mr.url}/approval_rules/${projectRule.id}`, {
      ...tok('dev'),
      body: { approvals_required: 2, user_ids: [ids.alice, ids.bob] },
    });
    expect(raised).toMatchObject({ status: 200, body: { approvals_required: 2, overridden: true } });
    expect(
      (
        await api.put(`${mr.url}/approval_rules/${raised.body.id}`, {
          ...tok('dev'),
          body: { approvals_required: 0 },
        })
      ).body,
    ).toMatchObject({ message: { approvals_required: ['must be greater than or equal to 1'] } });
    expect((await api.delete(`${mr.url}/approval_rules/${raised.body.id}`, tok('dev'))).status).toBe(403);
    // A new copy of the project rule is held to the same minimum.
    const copy = await api.post(`${mr.url}/approval_rules`, {
      ...tok('dev'),
      body: { name: 'copy', approvals_required: 0, approval_project_rule_id: projectRule.id },
    });
    expect(copy).toMatchObject({
      status: 400,
      body: { message: { approvals_required: ['must be greater than or equal to 1'] } },
    });
    // A rule of the merge request's own may still go.
    const own = await api.post<{ id: number }>(`${mr.url}/approval_rules`, {
      ...tok('dev'),
      body: { name: 'Extra', approvals_required: 1, user_ids: [ids.bob] },
    });
    expect(own.status).toBe(201);
    expect((await api.delete(`${mr.url}/approval_rules/${own.body.id}`, tok('dev'))).status).toBe(204);
    expect((await api.put(`${mr.url}/merge`, tok('dev'))).status).toBe(405);
  });

  it("applies the project's rules again once the project forbids overriding them", async () => {
    const mr = await mergeRequest();
    const projectRule = (await api.get<{ id: number }[]>(`${base()}/approval_rules`, tok('owner'))).body[0]!;
    // The author's copy lets bob, not alice, meet the rule.
    await api.put(`${mr.url}/approval_rules/${projectRule.id}`, {
      ...tok('dev'),
      body: { user_ids: [ids.bob] },
    });
    expect((await api.post(`${mr.url}/approve`, tok('bob'))).status).toBe(201);
    expect((await api.get(`${mr.url}/approvals`, tok('owner'))).body.approved).toBe(true);
    await settings({ disable_overriding_approvers_per_merge_request: true });
    try {
      expect((await api.get(`${mr.url}/approval_state`, tok('owner'))).body).toMatchObject({
        approval_rules_overwritten: false,
        rules: [{ name: 'Alice', eligible_approvers: [{ username: 'alice' }], approved: false }],
      });
      expect((await api.put(`${mr.url}/merge`, tok('dev'))).status).toBe(405);
    } finally {
      await settings({ disable_overriding_approvers_per_merge_request: false });
    }
  });

  it('refuses approvals from users who added commits with merge_requests_disable_committers_approval', async () => {
    // bob is both an eligible approver and a committer of the merge request.
    const rule = await api.post<{ id: number }>(`${base()}/approval_rules`, {
      ...tok('owner'),
      body: { name: 'Bob', approvals_required: 1, user_ids: [ids.bob] },
    });
    expect(rule.status).toBe(201);
    try {
      const mr = await mergeRequest();
      await commitAndPush(mr.branch, 'bob');
      // Off (the default): bob may approve.
      expect((await api.get(`${mr.url}/approvals`, tok('bob'))).body.user_can_approve).toBe(true);

      await settings({ merge_requests_disable_committers_approval: true });
      const view = await api.get(`${mr.url}/approvals`, tok('bob'));
      expect(view.body.user_can_approve).toBe(false);
      expect(await api.post(`${mr.url}/approve`, tok('bob'))).toMatchObject({
        status: 401,
        body: { message: '401 Unauthorized' },
      });
      expect(await approvedBy(mr.url)).toEqual([]);
      const state = await api.get(`${mr.url}/approval_state`, tok('owner'));
      expect(state.body.rules.find((r: { name: string }) => r.name === 'Bob')).toMatchObject({
        eligible_approvers: [],
        approved: false,
      });
      // alice committed nothing: she still may.
      expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    } finally {
      await settings({ merge_requests_disable_committers_approval: false });
      await api.delete(`${base()}/approval_rules/${rule.body.id}`, tok('owner'));
    }
  });
});
