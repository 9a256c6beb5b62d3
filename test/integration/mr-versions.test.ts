import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const ident = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];

interface Version {
  id: number;
  head_commit_sha: string;
  base_commit_sha: string;
  start_commit_sha: string;
  merge_request_id: number;
  state: string;
  real_size: string;
  patch_id_sha: string | null;
}

/**
 * Merge request diff versions (`GET .../versions`, `.../versions/:version_id`) as GitLab keeps
 * them: one when the merge request is opened and one per push that moves its source branch, each readable after
 * a force push has dropped its commits from every branch.
 */
describe.each(await databases())('merge request diff versions (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let token: string;
  let project: { id: number; http_url_to_repo: string };
  let work: string;
  const base = () => `/api/v4/projects/${project.id}`;

  async function commit(file: string, content: string) {
    writeFileSync(join(work, file), content);
    await git(['add', file], work);
    expect((await git([...ident, 'commit', '--quiet', '-m', `Change ${file}`], work)).code).toBe(0);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  }
  const push = async () => {
    const r = await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/topic'], work);
    expect(r.code, r.stderr).toBe(0);
  };

  /** The versions recorded in the database, without asking the API (which records the current diff when read). */
  const stored = (mrId: number) =>
    s.server.ctx.db.kysely
      .selectFrom('merge_request_diffs')
      .select(['number', 'head_commit_sha'])
      .where('merge_request_id', '=', mrId)
      .orderBy('number')
      .execute();

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    token = s.rootToken;
    project = (await api.post(`/api/v4/projects`, { token, body: { name: 'versioned' } })).body;
    const first = await pushCommit(authUrl(project.http_url_to_repo, 'root', token));
    expect(first.push.code).toBe(0);
    work = first.dir;
  });
  afterAll(() => s?.stop());

  it('records a version at creation and one per push; older versions keep their commits and diffs', async () => {
    const main = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    await git(['checkout', '--quiet', '-b', 'topic'], work);
    const a = await commit('a.txt', 'a\n');
    await push();
    const created = await api.post<{ id: number; iid: number }>(`${base()}/merge_requests`, {
      token,
      body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' },
    });
    expect(created.status).toBe(201);
    const url = `${base()}/merge_requests/${created.body.iid}`;
    expect(await stored(created.body.id)).toEqual([{ number: 1, head_commit_sha: a }]);

    // A push records a version by itself (nobody reads the API meanwhile).
    const b = await commit('b.txt', 'b\n');
    await push();
    await until(async () => (await stored(created.body.id)).length === 2, 'the push to record a version');
    expect((await stored(created.body.id))[1]!.head_commit_sha).toBe(b);

    // The branch is rewritten (deleted and pushed again: svc's repositories refuse non-fast-forward pushes, as
    // `git init --shared` sets): b is on no branch any more, its version still reads.
    await git(['reset', '--quiet', '--hard', a], work);
    const c = await commit('c.txt', 'c\n');
    expect((await git(['push', '--quiet', 'origin', ':refs/heads/topic'], work)).code).toBe(0);
    await push();
    await until(
      async () => (await stored(created.body.id)).length === 3,
      'the force push to record a version',
    );

    const list = await api.get<Version[]>(`${url}/versions`, { token });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('3');
    expect(list.body.map((v) => v.head_commit_sha)).toEqual([c, b, a]); // newest first
    for (const v of list.body) {
      expect(v).toMatchObject({
        merge_request_id: created.body.id,
        base_commit_sha: main,
        start_commit_sha: main,
        state: 'collected',
      });
      expect(v.patch_id_sha).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(list.body.map((v) => v.real_size)).toEqual(['2', '2', '1']);

    // git gc would drop b (on no branch) if svc did not keep it.
    const repoPath = (
      await s.server.ctx.db.kysely
        .selectFrom('projects')
        .select('repository_storage')
        .where('id', '=', project.id)
        .executeTakeFirstOrThrow()
    ).repository_storage;
    const dir = s.server.ctx.git.path('project', project.id, repoPath);
    expect((await git(['reflog', 'expire', '--expire=now', '--all'], dir)).code).toBe(0);
    expect((await git(['gc', '--quiet', '--prune=now'], dir)).code).toBe(0);

    const old = await api.get<Version & { commits: { id: string }[]; diffs: { new_path: string }[] }>(
      `${url}/versions/${list.body[1]!.id}`,
      { token },
    );
    expect(old.status).toBe(200);
    expect(old.body.commits.map((x) => x.id)).toEqual([b, a]);
    expect(old.body.diffs.map((d) => d.new_path).sort()).toEqual(['a.txt', 'b.txt']);
    const v5 = await api.get(`/api/v5/projects/${project.id}/merge_requests/${created.body.iid}/versions`, {
      token,
    });
    expect(v5.status).toBe(200);

    // The kept refs are svc's: clients neither see them nor push to them.
    const remote = await git(['ls-remote', 'origin'], work);
    expect(remote.stdout).not.toContain('keep-around');
    const del = await git(['push', 'origin', `:refs/keep-around/${b}`], work);
    expect(`${del.stdout}${del.stderr}`).not.toMatch(/\[deleted\]/);
    expect((await api.get(`${url}/versions/${list.body[1]!.id}`, { token })).status).toBe(200);
  });

  it('answers 404 for a version of another merge request, and reads nothing for a stranger', async () => {
    await git(['checkout', '--quiet', '-B', 'other', 'main'], work);
    await commit('o.txt', 'o\n');
    expect((await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/other'], work)).code).toBe(0);
    const mr = await api.post<{ iid: number }>(`${base()}/merge_requests`, {
      token,
      body: { source_branch: 'other', target_branch: 'main', title: 'Other' },
    });
    const mine = await api.get<Version[]>(`${base()}/merge_requests/${mr.body.iid}/versions`, { token });
    expect(mine.body).toHaveLength(1);
    const firstMr = await api.get<Version[]>(`${base()}/merge_requests/1/versions`, { token });
    expect(
      (await api.get(`${base()}/merge_requests/${mr.body.iid}/versions/${firstMr.body[0]!.id}`, { token }))
        .status,
    ).toBe(404);
    expect((await api.get(`${base()}/merge_requests/${mr.body.iid}/versions/99999`, { token })).status).toBe(
      404,
    );
    // A private project's merge requests are not there for anonymous callers.
    expect((await api.get(`${base()}/merge_requests/${mr.body.iid}/versions`)).status).toBe(404);
  });
});
