import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { createUser } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

interface NoteBody {
  id: number;
  body: string;
  system: boolean;
  author: { username: string } | null;
  noteable_type: string;
  noteable_id: number;
  noteable_iid: number;
  project_id: number;
  type: null;
  internal: boolean;
}

/**
 * Merge request notes (GitLab's notes API) and the system notes svc writes where a change happens: an approvals
 * reset by a real `git push`, approvals, added commits, close, reopen and merge. Both API versions.
 */
describe.each(await databases())('merge request notes (%s, Premium)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  let project: { id: number; http_url_to_repo: string };
  let publicProject: { id: number };
  let work: string;
  let n = 0;
  const base = () => `/api/v4/projects/${project.id}`;
  const tok = (who: string) => ({ token: tokens[who] });

  async function commitAndPush(branch: string, message: string) {
    writeFileSync(join(work, `${branch}-${++n}.txt`), `${n}\n`);
    await git(['add', '.'], work);
    const c = ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com'];
    expect((await git([...c, 'commit', '--quiet', '-m', message], work)).code).toBe(0);
    const push = await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work);
    expect(push.code, push.stderr).toBe(0);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  }

  async function mergeRequest() {
    const branch = `topic-${++n}`;
    expect((await git(['fetch', '--quiet', 'origin'], work)).code).toBe(0);
    expect((await git(['checkout', '--quiet', '-B', branch, 'origin/main'], work)).code).toBe(0);
    await commitAndPush(branch, `first of ${branch}`);
    const mr = await api.post<{ id: number; iid: number }>(`${base()}/merge_requests`, {
      ...tok('dev'),
      body: { source_branch: branch, target_branch: 'main', title: branch },
    });
    expect(mr.status).toBe(201);
    return { ...mr.body, branch, url: `${base()}/merge_requests/${mr.body.iid}` };
  }

  const notesOf = async (url: string, who = 'owner') =>
    (await api.get<NoteBody[]>(`${url}/notes?sort=asc`, tok(who))).body;
  const systemBodies = async (url: string) =>
    (await notesOf(url)).filter((x) => x.system).map((x) => [x.body, x.author?.username ?? null]);

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_TIER: 'premium' } });
    api = http(s.url);
    for (const name of ['owner', 'maint', 'dev', 'reporter', 'guest', 'outsider', 'alice', 'bob']) {
      const u = await createUser(s, name);
      ids[name] = u.id;
      tokens[name] = u.token;
    }
    tokens.admin = s.rootToken;
    project = (await api.post(`/api/v4/projects`, { ...tok('owner'), body: { name: 'noted' } })).body;
    const levels = { maint: 40, dev: 30, reporter: 20, guest: 10, alice: 30, bob: 30 } as const;
    for (const [who, level] of Object.entries(levels))
      expect(
        (
          await api.post(`${base()}/members`, {
            ...tok('owner'),
            body: { user_id: ids[who], access_level: level },
          })
        ).status,
      ).toBe(201);
    const first = await pushCommit(authUrl(project.http_url_to_repo, 'dev', tokens.dev!));
    expect(first.push.code).toBe(0);
    work = first.dir;
    publicProject = (
      await api.post(`/api/v4/projects`, { ...tok('owner'), body: { name: 'open', visibility: 'public' } })
    ).body;
  });
  afterAll(() => s?.stop());

  it('writes "reset approvals from @alice and @bob by pushing to the branch" by the pusher, with the reset', async () => {
    const mr = await mergeRequest();
    expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    expect((await api.post(`${mr.url}/approve`, tok('bob'))).status).toBe(201);
    const head = await commitAndPush(mr.branch, 'second <change>');
    await until(
      async () => (await systemBodies(mr.url)).some(([b]) => String(b).startsWith('reset approvals')),
      'the reset note',
    );
    const approvals = await api.get(`${mr.url}/approvals`, tok('owner'));
    expect(approvals.body.approved_by).toEqual([]);
    const system = await systemBodies(mr.url);
    const version = (
      await api.get<{ id: number; head_commit_sha: string }[]>(`${mr.url}/versions`, tok('owner'))
    ).body[0]!;
    expect(version.head_commit_sha).toBe(head);
    expect(system).toEqual([
      ['approved this merge request', 'alice'],
      ['approved this merge request', 'bob'],
      ['reset approvals from @alice and @bob by pushing to the branch', 'dev'],
      [
        `added 1 commit\n\n<ul><li>${head.slice(0, 8)} - second &lt;change&gt;</li></ul>\n\n` +
          `[Compare with previous version](/owner/noted/-/merge_requests/${mr.iid}/diffs?diff_id=${version.id}&start_sha=${(await git(['rev-parse', 'HEAD~1'], work)).stdout.trim()})`,
        'dev',
      ],
    ]);
    // The entity, as GitLab's.
    const reset = (await notesOf(mr.url)).find((x) => x.body.startsWith('reset'))!;
    expect(reset).toMatchObject({
      type: null,
      attachment: null,
      system: true,
      noteable_type: 'MergeRequest',
      noteable_id: mr.id,
      noteable_iid: mr.iid,
      project_id: project.id,
      resolvable: false,
      confidential: false,
      internal: false,
      imported: false,
      imported_from: 'none',
      commands_changes: {},
      author: { id: ids.dev, username: 'dev' },
    });
    // A push with no approvals to remove writes no reset note.
    await commitAndPush(mr.branch, 'third');
    await until(async () => (await systemBodies(mr.url)).length === 5, 'the commits note');
    expect((await systemBodies(mr.url)).filter(([b]) => String(b).startsWith('reset'))).toHaveLength(1);
  });

  it('notes unapprove, close, reopen and merge by whoever did it', async () => {
    const mr = await mergeRequest();
    expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    expect((await api.post(`${mr.url}/unapprove`, tok('alice'))).status).toBe(201);
    expect((await api.put(mr.url, { ...tok('dev'), body: { state_event: 'close' } })).status).toBe(200);
    expect((await api.put(mr.url, { ...tok('maint'), body: { state_event: 'reopen' } })).status).toBe(200);
    expect((await api.put(mr.url, { ...tok('maint'), body: { title: 'renamed' } })).status).toBe(200);
    expect((await api.put(`${mr.url}/merge`, tok('maint'))).status).toBe(200);
    expect(await systemBodies(mr.url)).toEqual([
      ['approved this merge request', 'alice'],
      ['unapproved this merge request', 'alice'],
      ['closed', 'dev'],
      ['reopened', 'maint'],
      ['merged', 'maint'],
    ]);
  });

  it('lists, gets, creates, edits and deletes comments, in v4 and v5, with pagination and order', async () => {
    const mr = await mergeRequest();
    for (const v of ['v4', 'v5']) {
      const url = `/api/${v}/projects/${project.id}/merge_requests/${mr.iid}/notes`;
      const created = await api.post<NoteBody>(url, { ...tok('reporter'), body: { body: `hello ${v}` } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        body: `hello ${v}`,
        system: false,
        author: { username: 'reporter' },
      });
      const got = await api.get<NoteBody>(`${url}/${created.body.id}`, tok('dev'));
      expect(got.status).toBe(200);
      expect(got.body.body).toBe(`hello ${v}`);
      const edited = await api.put<NoteBody>(`${url}/${created.body.id}`, {
        ...tok('reporter'),
        body: { body: 'edited' },
      });
      expect(edited.status).toBe(200);
      expect(edited.body.body).toBe('edited');
    }
    const url = `${mr.url}/notes`;
    const all = (await api.get<NoteBody[]>(url, tok('owner'))).body;
    // GitLab's default: newest first.
    expect(all.map((x) => x.id)).toEqual([...all.map((x) => x.id)].sort((a, b) => b - a));
    const page = await api.get<NoteBody[]>(
      `${url}?per_page=1&page=2&sort=asc&order_by=updated_at`,
      tok('owner'),
    );
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    expect(page.headers.get('x-total')).toBe(String(all.length));
    expect(page.headers.get('x-page')).toBe('2');
    expect(page.headers.get('link')).toContain('rel="prev"');
    const mine = all.find((x) => !x.system)!;
    expect((await api.delete(`${url}/${mine.id}`, tok('reporter'))).status).toBe(204);
    expect((await api.get(`${url}/${mine.id}`, tok('reporter'))).status).toBe(404);
  });

  it('refuses bad input with a GitLab body and changes nothing', async () => {
    const mr = await mergeRequest();
    const url = `${mr.url}/notes`;
    const before = (await notesOf(mr.url)).length;
    const blank = await api.post(url, { ...tok('dev'), body: { body: '  ' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: `400 Bad request - Note {:note=>["can't be blank"]}` });
    const missing = await api.post(url, { ...tok('dev'), body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('body');
    const long = await api.post(url, { ...tok('dev'), body: { body: 'x'.repeat(1_000_001) } });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}',
    });
    expect((await api.get(`${url}?order_by=title`, tok('dev'))).status).toBe(400);
    const note = (await api.post<NoteBody>(url, { ...tok('dev'), body: { body: 'ok' } })).body;
    const empty = await api.put(`${url}/${note.id}`, { ...tok('dev'), body: { body: '' } });
    expect(empty.status).toBe(400);
    expect((await api.get<NoteBody>(`${url}/${note.id}`, tok('dev'))).body.body).toBe('ok');
    expect((await notesOf(mr.url)).length).toBe(before + 1);
  });

  it('applies GitLab’s rules by role: read and comment from Reporter, edit and delete by the author or Maintainer+', async () => {
    const mr = await mergeRequest();
    const url = `${mr.url}/notes`;
    const byDev = (await api.post<NoteBody>(url, { ...tok('dev'), body: { body: 'by dev' } })).body;
    // Reading and commenting: whoever may read the merge request (Reporter and above in svc).
    for (const who of ['reporter', 'dev', 'maint', 'owner', 'admin'])
      expect((await api.get(url, tok(who))).status, who).toBe(200);
    expect((await api.get(url, tok('guest'))).status).toBe(403);
    expect((await api.post(url, { ...tok('guest'), body: { body: 'x' } })).status).toBe(403);
    // Not a member of a private project: it does not exist for them.
    expect((await api.get(url, tok('outsider'))).status).toBe(404);
    expect((await api.post(url, { ...tok('outsider'), body: { body: 'x' } })).status).toBe(404);
    expect((await api.get(`${url}/${byDev.id}`, tok('outsider'))).status).toBe(404);
    // Anonymous: 401, as GitLab's notes API authenticates first.
    expect((await api.get(url)).status).toBe(401);
    // Another user's comment: Reporter and Developer may not change it; Maintainer, Owner and admin may.
    for (const who of ['reporter', 'alice']) {
      expect((await api.put(`${url}/${byDev.id}`, { ...tok(who), body: { body: 'no' } })).status, who).toBe(
        403,
      );
      expect((await api.delete(`${url}/${byDev.id}`, tok(who))).status, who).toBe(403);
    }
    for (const who of ['maint', 'owner', 'admin']) {
      const r = await api.put<NoteBody>(`${url}/${byDev.id}`, { ...tok(who), body: { body: `by ${who}` } });
      expect(r.status, who).toBe(200);
    }
    expect((await api.delete(`${url}/${byDev.id}`, tok('maint'))).status).toBe(204);
    // System notes: nobody edits or deletes them.
    expect((await api.post(`${mr.url}/approve`, tok('alice'))).status).toBe(201);
    const system = (await notesOf(mr.url)).find((x) => x.system)!;
    for (const who of ['alice', 'owner', 'admin']) {
      expect((await api.put(`${url}/${system.id}`, { ...tok(who), body: { body: 'x' } })).status, who).toBe(
        403,
      );
      expect((await api.delete(`${url}/${system.id}`, tok(who))).status, who).toBe(403);
    }
    // A note of another merge request, or none: 404.
    const other = await mergeRequest();
    const elsewhere = (await api.post<NoteBody>(`${other.url}/notes`, { ...tok('dev'), body: { body: 'y' } }))
      .body;
    expect((await api.get(`${url}/${elsewhere.id}`, tok('dev'))).status).toBe(404);
    expect((await api.put(`${url}/${elsewhere.id}`, { ...tok('dev'), body: { body: 'z' } })).status).toBe(
      404,
    );
    expect((await api.get(`${base()}/merge_requests/9999/notes`, tok('dev'))).status).toBe(404);
    // Deleting the merge request deletes its notes.
    expect((await api.delete(other.url, tok('owner'))).status).toBe(204);
    const left = await s.server.ctx.db.kysely
      .selectFrom('notes')
      .select('id')
      .where('noteable_id', '=', other.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('on a public project a signed-in non-member reads no merge request notes (svc reads merge requests from Reporter)', async () => {
    const url = `/api/v4/projects/${publicProject.id}/merge_requests/1/notes`;
    expect((await api.get(url, tok('outsider'))).status).toBe(403);
    expect((await api.get(url)).status).toBe(401);
  });
});
