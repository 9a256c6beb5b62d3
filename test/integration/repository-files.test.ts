import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { projectWithMembers } from '../helpers/members.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const READ_ONLY = 'The repository is temporarily read-only. Please try again later.';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe.each(await databases())('repository files, branches and commits (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let id: number;
  let path: string;
  let tokens: Record<'guest' | 'reporter' | 'developer' | 'maintainer' | 'outsider', string>;
  let cloneUrl: string;
  const base = () => `/api/v4/projects/${id}/repository`;
  const files = (p: string) => `${base()}/files/${encodeURIComponent(p)}`;
  const clone = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-files-'));
    const c = await git(['clone', '--quiet', cloneUrl, 'c'], dir);
    expect(c.code, c.stderr).toBe(0);
    return join(dir, 'c');
  };

  beforeAll(async () => {
    const storages = mkdtempSync(join(tmpdir(), 'svc-storages-'));
    mkdirSync(join(storages, 'a'));
    s = await startTestServer({
      database,
      env: { SVC_STORAGES: `default=${storages}/a,fast=${storages}/b`, SVC_TIER: 'premium' },
    });
    // New repositories go to "default", so that a move to "fast" has somewhere to go.
    await http(s.url).put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { default: 100, fast: 0 } },
    });
    const p = await projectWithMembers(
      s,
      'files',
      { guest: 10, reporter: 20, developer: 30, maintainer: 40, outsider: 0 },
      database,
    );
    ({ api, id, path } = p);
    tokens = p.tokens as typeof tokens;
    const project = await api.get(`/api/v4/projects/${id}`, { token: s.rootToken });
    cloneUrl = authUrl(project.body.http_url_to_repo, 'root', s.rootToken);
  });
  afterAll(() => s?.stop());

  it('creates the first file of an empty repository, and reads it back in GitLab shapes from real git', async () => {
    const created = await api.post(files('README.md'), {
      token: tokens.maintainer,
      body: { branch: 'main', content: 'hello\nworld\n', commit_message: 'Add README' },
    });
    expect(created).toMatchObject({ status: 201, body: { file_path: 'README.md', branch: 'main' } });

    const work = await clone();
    expect(readFileSync(join(work, 'README.md'), 'utf8')).toBe('hello\nworld\n');
    const head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    // The answer names the new commit (`commit_id`: GitLab's MCP server requires it there).
    expect(created.body.commit_id).toBe(head);
    const blob = (await git(['rev-parse', 'HEAD:README.md'], work)).stdout.trim();
    expect((await git(['log', '-1', '--format=%an <%ae>|%s'], work)).stdout.trim()).toBe(
      `maintainer <maintainer-${database}@example.com>|Add README`,
    );

    const got = await api.get(`${files('README.md')}?ref=main`, { token: tokens.reporter });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      file_name: 'README.md',
      file_path: 'README.md',
      size: 12,
      encoding: 'base64',
      content: b64('hello\nworld\n'),
      content_sha256: createHash('sha256').update('hello\nworld\n').digest('hex'),
      ref: 'main',
      blob_id: blob,
      commit_id: head,
      last_commit_id: head,
      execute_filemode: false,
    });
    expect(got.headers.get('x-gitlab-blob-id')).toBe(blob);
    // HEAD: the same X-Gitlab headers, no body.
    const head2 = await fetch(`${s.url}${files('README.md')}?ref=main`, {
      method: 'HEAD',
      headers: { 'PRIVATE-TOKEN': tokens.reporter },
    });
    expect(head2.status).toBe(200);
    expect(head2.headers.get('x-gitlab-commit-id')).toBe(head);
    expect(head2.headers.get('x-gitlab-last-commit-id')).toBe(head);
    expect(head2.headers.get('x-gitlab-file-path')).toBe('README.md');
    expect(head2.headers.get('x-gitlab-size')).toBe('12');
    expect(await head2.text()).toBe('');
    // Raw, with the default branch when no ref is given; HEAD is a ref too (the MCP server asks for it).
    const raw = await api.get(`${files('README.md')}/raw`, { token: tokens.reporter });
    expect(raw.status).toBe(200);
    expect(raw.body).toBe('hello\nworld\n');
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await api.get(`${files('README.md')}?ref=HEAD`, { token: tokens.reporter })).body.commit_id).toBe(
      head,
    );
    // Blobs by id.
    expect((await api.get(`${base()}/blobs/${blob}`, { token: tokens.reporter })).body).toEqual({
      size: 12,
      encoding: 'base64',
      content: b64('hello\nworld\n'),
      sha: blob,
    });
    expect((await api.get(`${base()}/blobs/${blob}/raw`, { token: tokens.reporter })).body).toBe(
      'hello\nworld\n',
    );
    // A read_repository token reads files (as GitLab allows), not the rest of the repository API.
    const me = await api.get('/api/v4/user', { token: tokens.reporter });
    const scoped = await api.post(`/api/v4/users/${me.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'code', scopes: ['read_repository'] },
    });
    expect((await api.get(`${files('README.md')}?ref=main`, { token: scoped.body.token })).status).toBe(200);
    expect((await api.get(`${files('README.md')}/raw`, { token: scoped.body.token })).status).toBe(200);
    expect((await api.get(`${base()}/tree`, { token: scoped.body.token })).status).toBe(403);
  });

  it('answers bad refs, paths and branches with GitLab 404 bodies', async () => {
    const t = { token: tokens.reporter };
    expect((await api.get(`${files('README.md')}?ref=nope`, t)).body).toEqual({
      message: '404 Commit Not Found',
    });
    expect((await api.get(`${files('missing.txt')}?ref=main`, t)).body).toEqual({
      message: '404 File Not Found',
    });
    expect((await api.get(`${files('README.md')}`, t)).body).toEqual({ error: 'ref is missing' });
    expect((await api.get(`${base()}/branches/nope`, t)).body).toEqual({ message: '404 Branch Not Found' });
    expect((await api.get(`${base()}/commits/nope`, t)).body).toEqual({ message: '404 Commit Not Found' });
    expect((await api.get(`${base()}/commits/${'0'.repeat(40)}/diff`, t)).body).toEqual({
      message: '404 Commit Not Found',
    });
    expect((await api.get(`${base()}/blobs/${'1'.repeat(40)}`, t)).body).toEqual({
      message: '404 Blob Not Found',
    });
    expect((await api.get(`${base()}/tree?ref=nope`, t)).body).toEqual({ message: '404 Tree Not Found' });
    expect((await api.get(`${base()}/compare?from=main&to=nope`, t)).body).toEqual({
      message: '404 Ref Not Found',
    });
    // An option-looking ref is a ref that does not exist, not an option for git.
    expect((await api.get(`${files('README.md')}?ref=--output=/tmp/x`, t)).status).toBe(404);
  });

  it('applies the roles: guests and outsiders do not read private code, developers write branches as git push lets them', async () => {
    const read = `${files('README.md')}?ref=main`;
    expect((await api.get(read, { token: tokens.guest })).status).toBe(403);
    expect((await api.get(read, { token: tokens.outsider })).body).toEqual({
      message: '404 Project Not Found',
    });
    expect((await api.get(read)).status).toBe(404);
    expect((await api.get(`${base()}/tree`, { token: tokens.guest })).status).toBe(403);
    expect((await api.get(`${base()}/branches`, { token: tokens.guest })).status).toBe(403);

    const write = (token: string, branch: string, extra: Record<string, unknown> = {}) =>
      api.post(files('docs/guide.md'), {
        token,
        body: { branch, content: '# Guide\n', commit_message: 'Add the guide', ...extra },
      });
    expect((await write(tokens.reporter, 'main')).status).toBe(403);
    expect((await write(tokens.developer, 'feature', { start_branch: 'nope' })).body).toEqual({
      message: 'You can only create or edit files when you are on a branch',
    });
    const dev = await write(tokens.developer, 'feature', { start_branch: 'main' });
    expect(dev).toMatchObject({ status: 201, body: { file_path: 'docs/guide.md', branch: 'feature' } });
    // A second create of the same path is refused as Gitaly does; so is a file where a directory is.
    expect((await write(tokens.developer, 'feature')).body).toEqual({
      message: 'A file with this name already exists',
    });
    expect(
      (
        await api.post(files('docs'), {
          token: tokens.developer,
          body: { branch: 'feature', content: 'x', commit_message: 'x' },
        })
      ).body,
    ).toEqual({ message: 'A directory with this name already exists' });
    expect(
      (
        await api.post(files('a/../b'), {
          token: tokens.developer,
          body: { branch: 'feature', content: 'x', commit_message: 'x' },
        })
      ).body,
    ).toEqual({ message: 'Path cannot include directory traversal' });

    // Branch entity: protection and can_push per caller.
    const asDev = await api.get(`${base()}/branches`, { token: tokens.developer });
    expect(asDev.status).toBe(200);
    expect(asDev.headers.get('x-total')).toBe('2');
    expect(asDev.body.map((b: { name: string }) => b.name)).toEqual(['feature', 'main']);
    expect(asDev.body[1]).toMatchObject({
      name: 'main',
      protected: false,
      default: true,
      merged: false,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      web_url: `${s.url}/${path}/-/tree/main`,
    });
    expect(asDev.body[0]).toMatchObject({
      name: 'feature',
      protected: false,
      default: false,
      can_push: true,
      developers_can_push: false,
    });
    const asMaintainer = await api.get(`${base()}/branches/main`, { token: tokens.maintainer });
    expect(asMaintainer.body).toMatchObject({ can_push: true, commit: { title: 'Add README' } });
  });

  it('updates with an optimistic check, deletes, and keeps binary content and modes', async () => {
    const t = tokens.developer;
    const current = (await api.get(`${files('docs/guide.md')}?ref=feature`, { token: t })).body;
    const stale = await api.put(files('docs/guide.md'), {
      token: t,
      body: {
        branch: 'feature',
        content: 'stale',
        commit_message: 'Stale edit',
        last_commit_id: (await api.get(`${base()}/commits/main`, { token: t })).body.id,
      },
    });
    expect(stale).toMatchObject({
      status: 400,
      body: { message: 'You are attempting to update a file that has changed since you started editing it.' },
    });
    const updated = await api.put(files('docs/guide.md'), {
      token: t,
      body: {
        branch: 'feature',
        content: b64('# Guide, v2\n'),
        encoding: 'base64',
        commit_message: 'Edit the guide',
        last_commit_id: current.last_commit_id,
        // python-gitlab's `save()` sends the optional fields it has no value for as null.
        start_branch: null,
        execute_filemode: null,
        author_name: 'Ghost Writer',
        author_email: 'ghost@example.com',
      },
    });
    expect(updated).toMatchObject({ status: 200, body: { file_path: 'docs/guide.md', branch: 'feature' } });
    const after = await api.get(`${base()}/commits/feature`, { token: t });
    expect(after.body).toMatchObject({
      title: 'Edit the guide',
      author_name: 'Ghost Writer',
      author_email: 'ghost@example.com',
      committer_name: 'developer',
      stats: { additions: 1, deletions: 1, total: 2 },
      project_id: id,
      status: null,
      last_pipeline: null,
    });
    expect(
      (
        await api.put(files('none.md'), {
          token: t,
          body: { branch: 'feature', content: 'x', commit_message: 'x' },
        })
      ).body,
    ).toEqual({ message: "A file with this name doesn't exist" });

    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 0]);
    expect(
      (
        await api.post(files('bin/tool'), {
          token: t,
          body: {
            branch: 'feature',
            content: b64(bytes),
            encoding: 'base64',
            execute_filemode: true,
            commit_message: 'Add a tool',
          },
        })
      ).status,
    ).toBe(201);
    const tool = await api.get(`${files('bin/tool')}?ref=feature`, { token: t });
    expect(Buffer.from(tool.body.content, 'base64')).toEqual(bytes);
    expect(tool.body.execute_filemode).toBe(true);
    const raw = await fetch(`${s.url}${files('bin/tool')}/raw?ref=feature`, {
      headers: { 'PRIVATE-TOKEN': t },
    });
    expect(raw.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await raw.arrayBuffer())).toEqual(bytes);

    // DELETE takes its parameters in the query string, as python-gitlab sends them.
    const del = await api.delete(
      `${files('bin/tool')}?branch=feature&commit_message=${encodeURIComponent('Remove the tool')}`,
      {
        token: t,
      },
    );
    expect(del.status).toBe(204);
    expect((await api.get(`${files('bin/tool')}?ref=feature`, { token: t })).status).toBe(404);
    const work = await clone();
    expect((await git(['checkout', '--quiet', 'feature'], work)).code).toBe(0);
    expect(readFileSync(join(work, 'docs/guide.md'), 'utf8')).toBe('# Guide, v2\n');
    expect((await git(['log', '--format=%s', '-3'], work)).stdout.split('\n').slice(0, 3)).toEqual([
      'Remove the tool',
      'Add a tool',
      'Edit the guide',
    ]);
  });

  it('commits several actions at once, and lists, shows, diffs and compares commits', async () => {
    const t = tokens.developer;
    const body = {
      branch: 'multi',
      start_branch: 'feature',
      commit_message: 'Many changes\n\nWith a body.',
      actions: [
        { action: 'create', file_path: 'src/a.txt', content: 'a\n' },
        { action: 'create', file_path: 'src/b.sh', content: b64('echo b\n'), encoding: 'base64' },
        { action: 'update', file_path: 'README.md', content: 'hello\nthere\n' },
        { action: 'move', file_path: 'guide.md', previous_path: 'docs/guide.md' },
        { action: 'chmod', file_path: 'src/b.sh', execute_filemode: true },
      ],
    };
    // Refused before anything: a caller who may not push (403 here, as GitLab's commits API), bad actions (400).
    expect(
      (
        await api.post(`${base()}/commits`, {
          token: tokens.reporter,
          body: { ...body, branch: 'main', start_branch: undefined },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await api.post(`${base()}/commits`, {
          token: t,
          body: { ...body, actions: [{ action: 'rename', file_path: 'x' }] },
        })
      ).body,
    ).toEqual({
      message: '400 Bad request - actions[0][action] must be one of: create, update, move, delete, chmod',
    });
    expect((await api.post(`${base()}/commits`, { token: t, body: { ...body, actions: [] } })).body).toEqual({
      message: '400 Bad request - Provide at least one action, or set allow_empty to true',
    });
    expect(
      (await api.post(`${base()}/commits`, { token: t, body: { ...body, commit_message: '' } })).body,
    ).toEqual({
      message: '400 Bad request - commit_message is required',
    });
    // One failing action refuses the whole commit.
    const failing = await api.post(`${base()}/commits`, {
      token: t,
      body: { ...body, actions: [...body.actions, { action: 'delete', file_path: 'nothing-here' }] },
    });
    expect(failing.body).toEqual({ message: "A file with this name doesn't exist" });
    expect((await api.get(`${base()}/branches/multi`, { token: t })).status).toBe(404);

    const made = await api.post(`${base()}/commits`, { token: t, body });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      title: 'Many changes',
      // Stored as given (as Gitaly does): no newline is added.
      message: 'Many changes\n\nWith a body.',
      committer_email: `developer-${database}@example.com`,
      stats: { additions: 3, deletions: 1, total: 4 },
      project_id: id,
    });
    expect(made.body.short_id).toBe(made.body.id.slice(0, 8));
    const work = await clone();
    expect((await git(['checkout', '--quiet', 'multi'], work)).code).toBe(0);
    expect((await git(['rev-parse', 'HEAD'], work)).stdout.trim()).toBe(made.body.id);
    expect(readFileSync(join(work, 'guide.md'), 'utf8')).toBe('# Guide, v2\n');
    expect(statSync(join(work, 'src/b.sh')).mode & 0o111).not.toBe(0);
    expect((await git(['ls-files'], work)).stdout.split('\n').filter(Boolean).sort()).toEqual([
      'README.md',
      'guide.md',
      'src/a.txt',
      'src/b.sh',
    ]);

    // Tree: root, a folder, recursive; trees first; keyset pages.
    const root = await api.get(`${base()}/tree?ref=multi`, { token: t });
    expect(root.body.map((e: { path: string; type: string }) => `${e.type}:${e.path}`)).toEqual([
      'tree:src',
      'blob:README.md',
      'blob:guide.md',
    ]);
    expect(root.body[0]).toMatchObject({ name: 'src', mode: '040000' });
    const src = await api.get(`${base()}/tree?ref=multi&path=src`, { token: t });
    expect(src.body.map((e: { path: string; mode: string }) => `${e.path}:${e.mode}`)).toEqual([
      'src/a.txt:100644',
      'src/b.sh:100755',
    ]);
    const all = await api.get(`${base()}/tree?ref=multi&recursive=true&pagination=none`, { token: t });
    expect(all.body).toHaveLength(5);
    const first = await api.get(`${base()}/tree?ref=multi&recursive=true&pagination=keyset&per_page=2`, {
      token: t,
    });
    expect(first.body).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
    const second = await api.get(next.replace(s.url, ''), { token: t });
    expect(second.body[0].id).toBe(all.body[2].id);
    expect((await api.get(`${base()}/tree?ref=multi&path=nowhere`, { token: t })).status).toBe(404);
    expect((await api.get(`${base()}/tree?pagination=none`, { token: t })).body).toEqual({
      error: 'pagination cannot be "none" unless "recursive" is true',
    });

    // Commits: newest first, paged without a total, by path, by date.
    const list = await api.get(`${base()}/commits?ref_name=multi&per_page=2`, { token: t });
    expect(list.body.map((c: { title: string }) => c.title)).toEqual(['Many changes', 'Remove the tool']);
    expect(list.headers.get('x-next-page')).toBe('2');
    expect(list.headers.get('x-total')).toBeNull();
    const byPath = await api.get(`${base()}/commits?ref_name=multi&path=README.md`, { token: t });
    expect(byPath.body.map((c: { title: string }) => c.title)).toEqual(['Many changes', 'Add README']);
    expect(byPath.headers.get('x-next-page')).toBe('');
    const future = await api.get(`${base()}/commits?ref_name=multi&since=2999-01-01T00:00:00Z`, { token: t });
    expect(future.body).toEqual([]);
    expect((await api.get(`${base()}/commits?ref_name=nope`, { token: t })).body).toEqual([]);
    const byAuthor = await api.get(`${base()}/commits?ref_name=multi&author=GHOST`, { token: t });
    expect(byAuthor.body.map((c: { title: string }) => c.title)).toEqual(['Edit the guide']);
    // `all`: every branch, so main's commits and multi's.
    const every = await api.get(`${base()}/commits?all=true&per_page=100`, { token: t });
    expect(every.body.map((c: { title: string }) => c.title)).toContain('Many changes');
    const noStats = await api.get(`${base()}/commits/${made.body.id}?stats=false`, { token: t });
    expect(noStats.body).not.toHaveProperty('stats');

    const diff = await api.get(`${base()}/commits/${made.body.id}/diff`, { token: t });
    expect(diff.headers.get('x-total')).toBe('4');
    const byPathDiff = Object.fromEntries(diff.body.map((d: { new_path: string }) => [d.new_path, d]));
    expect(byPathDiff['guide.md']).toMatchObject({ old_path: 'docs/guide.md', renamed_file: true });
    expect(byPathDiff['src/b.sh']).toMatchObject({ new_file: true, b_mode: '100755' });
    expect(byPathDiff['README.md'].diff).toContain('+there');

    const cmp = await api.get(`${base()}/compare?from=main&to=multi`, { token: t });
    expect(cmp.status).toBe(200);
    expect(cmp.body.commits.map((c: { title: string }) => c.title)).toEqual([
      'Add the guide',
      'Edit the guide',
      'Add a tool',
      'Remove the tool',
      'Many changes',
    ]);
    expect(cmp.body.commit.id).toBe(made.body.id);
    expect(cmp.body).toMatchObject({ compare_timeout: false, compare_same_ref: false });
    expect(cmp.body.diffs.map((d: { new_path: string }) => d.new_path).sort()).toEqual([
      'README.md',
      'guide.md',
      'src/a.txt',
      'src/b.sh',
    ]);
    const same = await api.get(`${base()}/compare?from=multi&to=multi`, { token: t });
    expect(same.body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });
  });

  it('creates and deletes branches with GitLab answers', async () => {
    const t = tokens.developer;
    const made = await api.post(`${base()}/branches`, {
      token: t,
      body: { branch: 'topic/one', ref: 'feature' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'topic/one', protected: false, can_push: true, merged: false });
    const feature = (await api.get(`${base()}/branches/feature`, { token: t })).body;
    expect(made.body.commit.id).toBe(feature.commit.id);
    expect(
      (await api.get(`${base()}/branches/${encodeURIComponent('topic/one')}`, { token: t })).status,
    ).toBe(200);
    expect(
      (await api.post(`${base()}/branches`, { token: t, body: { branch: 'topic/one', ref: 'main' } })).body,
    ).toEqual({
      message: 'Branch already exists',
    });
    expect(
      (await api.post(`${base()}/branches`, { token: t, body: { branch: 'bad..name', ref: 'main' } })).body,
    ).toEqual({
      message: 'Branch name is invalid',
    });
    expect(
      (await api.post(`${base()}/branches`, { token: t, body: { branch: 'x', ref: 'nope' } })).body,
    ).toEqual({
      message: "Failed to create branch 'x': invalid reference name 'nope'",
    });
    expect(
      (await api.post(`${base()}/branches`, { token: tokens.reporter, body: { branch: 'r', ref: 'main' } }))
        .status,
    ).toBe(403);
    const search = await api.get(`${base()}/branches?search=^TOPIC`, { token: t });
    expect(search.body.map((b: { name: string }) => b.name)).toEqual(['topic/one']);

    expect((await api.delete(`${base()}/branches/main`, { token: tokens.maintainer })).body).toEqual({
      message: 'The default branch of a project cannot be deleted.',
    });
    expect((await api.delete(`${base()}/branches/nope`, { token: t })).body).toEqual({
      message: '404 Branch Not Found',
    });
    expect((await api.delete(`${base()}/branches/topic%2Fone`, { token: tokens.reporter })).status).toBe(403);
    expect((await api.delete(`${base()}/branches/topic%2Fone`, { token: t })).status).toBe(204);
    expect((await api.get(`${base()}/branches/topic%2Fone`, { token: t })).status).toBe(404);
  });

  it('writes go through the push path: merge request versions, read-only during a storage move, bounded size', async () => {
    const t = tokens.developer;
    const mr = await api.post(`/api/v4/projects/${id}/merge_requests`, {
      token: t,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Guide' },
    });
    expect(mr.status).toBe(201);
    expect(
      (await api.get(`/api/v4/projects/${id}/merge_requests/${mr.body.iid}/versions`, { token: t })).body,
    ).toHaveLength(1);
    await api.post(files('more.md'), {
      token: t,
      body: { branch: 'feature', content: 'more\n', commit_message: 'More' },
    });
    // A commit through the API is a push to the source branch: a new diff version, as after git push.
    expect(
      (await api.get(`/api/v4/projects/${id}/merge_requests/${mr.body.iid}/versions`, { token: t })).body,
    ).toHaveLength(2);

    const big = 'x'.repeat(17 * 1024 * 1024);
    const tooLarge = await api.post(files('big.txt'), {
      token: t,
      body: { branch: 'feature', content: big, commit_message: 'Big' },
    });
    expect(tooLarge.status).toBe(413);
    // A few MiB are fine (the API's usual 1 MiB body limit does not apply to content writes).
    const fine = await api.post(files('big.txt'), {
      token: t,
      body: {
        branch: 'feature',
        content: b64('y'.repeat(3 * 1024 * 1024)),
        encoding: 'base64',
        commit_message: 'Big',
      },
    });
    expect(fine.status).toBe(201);

    await s.server.ctx.jobs.stop(); // the move stays scheduled: the repository is read-only
    try {
      const move = await api.post(`/api/v4/projects/${id}/repository_storage_moves`, {
        token: s.rootToken,
        body: { destination_storage_name: 'fast' },
      });
      expect(move.status, JSON.stringify(move.body)).toBe(201);
      const refused = await api.post(files('during.md'), {
        token: tokens.maintainer,
        body: { branch: 'main', content: 'x', commit_message: 'During' },
      });
      expect(refused).toMatchObject({ status: 403, body: { message: READ_ONLY } });
      expect(
        (await api.post(`${base()}/branches`, { token: t, body: { branch: 'during', ref: 'main' } })).body,
      ).toEqual({
        message: READ_ONLY,
      });
      expect((await api.delete(`${base()}/branches/feature`, { token: t })).body).toEqual({
        message: READ_ONLY,
      });
      // Reads go on.
      expect((await api.get(`${files('README.md')}?ref=main`, { token: t })).status).toBe(200);
      await s.server.ctx.jobs.drain();
    } finally {
      s.server.ctx.jobs.start(200, 2);
    }
    // No branch is protected (svc has no protection settings, and git push lets a Developer update any branch), so
    // the API lets a Developer write the default branch too.
    const after = await api.post(files('after.md'), {
      token: tokens.developer,
      body: { branch: 'main', content: 'after\n', commit_message: 'After the move' },
    });
    expect(after.status).toBe(201);
  });
});
