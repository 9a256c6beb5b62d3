import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { clientEnv, runClient } from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The file the errors point at: five numbered lines. */
const APP = ['const a = 1;', 'const b = 2;', 'const c = 3;', 'const d = 4;', 'export { a, b, c, d };'];

/**
 * Suspect commits from the outside: a real repository pushed with git, a merge request merged with an approval, a
 * Sentry event whose release is the merge commit, and the error read through the API.
 */
describe.each(await databases())('suspect commits of an error (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let project: { id: number; http_url_to_repo: string };
  let key: string;
  let mergeSha: string;
  let featureSha: string;
  let firstSha: string;
  /** The clone the commits were made in, at the merged branch's head. */
  let work: string;
  const base = (v = 4) => `/api/v${v}/projects/${project.id}`;
  const as = (who: string) => ({ token: tokens[who] });

  /** Sends one event whose culprit (last in-app) frame is `src/app.js` at `line`, and returns its error's id. */
  async function errorAt(type: string, release: string | null, line: number): Promise<number> {
    const event = {
      event_id: randomBytes(16).toString('hex'),
      timestamp: new Date().toISOString(),
      platform: 'javascript',
      ...(release !== null && { release }),
      environment: 'production',
      // One error per test case: the frames alone would group them all together.
      fingerprint: [type],
      exception: {
        values: [
          {
            type,
            value: 'boom',
            stacktrace: {
              frames: [
                { filename: 'webpack:///./node_modules/lib/index.js', lineno: 7, in_app: false },
                {
                  filename: './src/app.js',
                  abs_path: 'webpack:///./src/app.js',
                  function: 'run',
                  lineno: line,
                  in_app: true,
                },
                { filename: 'webpack:///./node_modules/react/index.js', lineno: 99, in_app: false },
              ],
            },
          },
        ],
      },
    };
    const sent = await fetch(
      `${s.url}/api/v4/error_tracking/collector/api/${project.id}/store/?sentry_key=${key}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) },
    );
    expect(sent.status).toBe(200);
    const list = await api.get<{ id: number; type: string }[]>(
      `${base()}/error_tracking/errors?per_page=100`,
      as('dev'),
    );
    const found = list.body.find((e) => e.type === type);
    expect(found).toBeDefined();
    return found!.id;
  }

  const suspectsOf = async (errorId: number, who = 'reporter', v = 4) => {
    const r = await api.get<{ suspect_commits: Record<string, unknown>[] }>(
      `${base(v)}/error_tracking/errors/${errorId}`,
      as(who),
    );
    expect(r.status).toBe(200);
    return r.body.suspect_commits;
  };

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium', SVC_OFFERING: 'hosted' } });
    api = http(s.url);
    for (const name of ['dev', 'bob', 'reporter', 'guest']) {
      const u = await createUser(s, name);
      ids[name] = u.id;
      tokens[name] = u.token;
    }
    project = (await api.post(`/api/v4/projects`, { token: tokens.dev, body: { name: 'shop' } })).body;
    for (const [who, level] of [
      ['bob', 30],
      ['reporter', 20],
      ['guest', 10],
    ] as const)
      await api.post(`${base()}/members`, { ...as('dev'), body: { user_id: ids[who], access_level: level } });
    const settings = await api.put(`${base()}/error_tracking/settings`, {
      ...as('dev'),
      body: { active: true, integrated: true },
    });
    expect(settings.status).toBe(200);
    key = (await api.get<{ public_key: string }[]>(`${base()}/error_tracking/client_keys`, as('dev')))
      .body[0]!.public_key;

    // main: the file, committed by someone who is no svc user.
    const first = await pushCommit(
      authUrl(project.http_url_to_repo, 'dev', tokens.dev!),
      'src/app.js',
      `${APP.join('\n')}\n`,
    );
    expect(first.push.code).toBe(0);
    work = first.dir;
    firstSha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();

    // A branch that changes line 3, by dev (their svc e-mail), merged through a merge request bob approved.
    expect((await git(['checkout', '--quiet', '-b', 'fix-c'], work)).code).toBe(0);
    writeFileSync(
      join(work, 'src/app.js'),
      `${APP.map((l, i) => (i === 2 ? 'const c = compute();' : l)).join('\n')}\n`,
    );
    await git(['add', 'src/app.js'], work);
    const commit = await git(
      ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '--quiet', '-m', 'Compute c'],
      work,
    );
    expect(commit.code).toBe(0);
    featureSha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    // A later commit on the branch, elsewhere: the merge request's head is not the commit blamed, so only the merge
    // that brought that commit in names the merge request.
    writeFileSync(join(work, 'CHANGELOG.md'), 'c is computed\n');
    await git(['add', 'CHANGELOG.md'], work);
    const later = [
      '-c',
      'user.name=Dev',
      '-c',
      'user.email=dev@example.com',
      'commit',
      '--quiet',
      '-m',
      'Changelog',
    ];
    expect((await git(later, work)).code).toBe(0);
    const headSha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect((await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/fix-c'], work)).code).toBe(0);
    const mr = await api.post<{ iid: number; sha: string }>(`${base()}/merge_requests`, {
      ...as('dev'),
      body: { source_branch: 'fix-c', target_branch: 'main', title: 'Compute c' },
    });
    expect(mr.status).toBe(201);
    expect(mr.body.iid).toBe(1);
    const approved = await api.post(`${base()}/merge_requests/1/approve`, {
      ...as('bob'),
      body: { sha: headSha },
    });
    expect(approved.status).toBe(201);
    const merged = await api.put<{ state: string; merge_commit_sha: string }>(
      `${base()}/merge_requests/1/merge`,
      as('dev'),
    );
    expect(merged.body.state).toBe('merged');
    mergeSha = merged.body.merge_commit_sha;
    expect(mergeSha).toMatch(/^[0-9a-f]{40}$/);
  });
  afterAll(() => s?.stop());

  it('names the commit that changed the culprit line, its merge request, author and approver (v4 and v5)', async () => {
    const errorId = await errorAt('ChangedLine', mergeSha, 3);
    const expected = {
      id: featureSha,
      short_id: featureSha.slice(0, 8),
      title: 'Compute c',
      message: 'Compute c\n',
      author_name: 'Dev',
      author_email: 'dev@example.com',
      authored_date: expect.any(String),
      suspect_commit_type: 'via stack trace',
      file_path: 'src/app.js',
      line: 3,
      author: { id: ids.dev, username: 'dev' },
      author_on_call: [],
      merge_request: {
        iid: 1,
        title: 'Compute c',
        web_url: expect.stringMatching(/\/shop\/-\/merge_requests\/1$/),
        author: { username: 'dev' },
        approved_by: [{ id: ids.bob, username: 'bob' }],
      },
    };
    const suspects = await suspectsOf(errorId);
    expect(suspects).toHaveLength(1);
    const [v4] = suspects;
    expect(v4).toMatchObject(expected);
    expect(await suspectsOf(errorId, 'reporter', 5)).toEqual([v4]);
    // The list keeps its shape: no suspects there.
    const list = await api.get<Record<string, unknown>[]>(`${base()}/error_tracking/errors`, as('reporter'));
    expect(list.body[0]).not.toHaveProperty('suspect_commits');
  });

  it('finds the suspect of an event a real @sentry/node sent from the file on disk', async () => {
    // The branch's src/app.js calls compute(), which does not exist: importing it throws at line 3.
    const dsn = (await api.get<{ sentry_dsn: string }[]>(`${base()}/error_tracking/client_keys`, as('dev')))
      .body[0]!.sentry_dsn;
    const run = await runClient(
      'node',
      ['node-suspect.mjs', dsn, `shop@${mergeSha}`, join(work, 'src/app.js')],
      {
        env: clientEnv(),
      },
    );
    // The SDK sends its session too.
    expect(run.sends, run.summary).toContainEqual({ types: ['event'], status: 200 });
    const list = await api.get<{ id: number; type: string }[]>(
      `${base()}/error_tracking/errors?per_page=100`,
      as('dev'),
    );
    const error = list.body.find((e) => e.type === 'ReferenceError');
    expect(error).toBeDefined();
    const [suspect] = await suspectsOf(error!.id);
    expect(suspect).toMatchObject({
      id: featureSha,
      file_path: 'src/app.js',
      line: 3,
      merge_request: { iid: 1 },
    });
  });

  it('blames an unchanged line on the older commit, which no merge request merged', async () => {
    const errorId = await errorAt('UnchangedLine', mergeSha, 1);
    expect(await suspectsOf(errorId)).toEqual([
      expect.objectContaining({
        id: firstSha,
        title: 'Add src/app.js',
        author_name: 'Test',
        author: null,
        line: 1,
        merge_request: null,
      }),
    ]);
  });

  it('reads name@sha releases, and finds nothing for a release that names no commit or a line the file lacks', async () => {
    // 12 characters: a shorter abbreviation that happens to be all digits reads as a version, not a commit.
    const named = await errorAt('NamedRelease', `shop@${mergeSha.slice(0, 12)}`, 3);
    expect((await suspectsOf(named)).map((c) => c.id)).toEqual([featureSha]);
    expect(await suspectsOf(await errorAt('UnknownRelease', 'shop@1.2.3', 3))).toEqual([]);
    expect(await suspectsOf(await errorAt('UnknownSha', 'deadbeefdeadbeef', 3))).toEqual([]);
    expect(await suspectsOf(await errorAt('NoRelease', null, 3))).toEqual([]);
    expect(await suspectsOf(await errorAt('PastTheEnd', mergeSha, 400))).toEqual([]);
  });

  it('says when the suspect author is on call now (Premium)', async () => {
    const errorId = await errorAt('OnCall', mergeSha, 3);
    const schedules = `${base()}/incident_management/oncall_schedules`;
    const schedule = await api.post<{ iid: number }>(schedules, {
      ...as('dev'),
      body: { name: 'Primary', timezone: 'UTC' },
    });
    expect(schedule.status).toBe(201);
    const rotation = await api.post(`${schedules}/${schedule.body.iid}/rotations`, {
      ...as('dev'),
      body: {
        name: 'Always dev',
        starts_at: '2020-01-01T00:00',
        length: 1,
        length_unit: 'weeks',
        participants: [{ user_id: ids.dev }],
      },
    });
    expect(rotation.status).toBe(201);
    const [suspect] = await suspectsOf(errorId);
    expect(suspect).toMatchObject({
      author: { username: 'dev' },
      author_on_call: [{ iid: schedule.body.iid, name: 'Primary', group_id: null }],
    });
    await api.delete(`${schedules}/${schedule.body.iid}`, as('dev'));
    expect((await suspectsOf(errorId))[0]).toMatchObject({ author_on_call: [] });
  });

  it('shows suspects only to those who may read the code', async () => {
    const errorId = await errorAt('Permissions', mergeSha, 3);
    // A Guest reads neither the error nor the code.
    expect((await api.get(`${base()}/error_tracking/errors/${errorId}`, as('guest'))).status).toBe(403);
    expect(await suspectsOf(errorId, 'reporter')).toHaveLength(1);
    // With the repository feature disabled, the error is read without them.
    const off = await api.put(`${base()}`, { ...as('dev'), body: { repository_access_level: 'disabled' } });
    expect(off.status).toBe(200);
    expect(await suspectsOf(errorId, 'reporter')).toEqual([]);
    expect(await suspectsOf(errorId, 'dev')).toEqual([]);
    await api.put(`${base()}`, { ...as('dev'), body: { repository_access_level: 'enabled' } });
    expect(await suspectsOf(errorId, 'reporter')).toHaveLength(1);
  });
});
