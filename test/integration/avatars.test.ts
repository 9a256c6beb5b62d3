import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identiconPng } from '../../src/avatars/identicon.js';
import { loadConfig } from '../../src/config.js';
import { createBackupService } from '../../src/context.js';
import { start } from '../../src/server.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { svc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

const run = promisify(execFile);

/** A real PNG (the identicon renderer's), and a JPEG header: images by their first bytes. */
const PNG = identiconPng('0123456789abcdef0123456789abcdef');
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(64, 7)]);

describe.each(await databases())('avatars (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let alice: { id: number; token: string };

  /** A multipart request: `fields` as text parts, `file` as the `avatar` file part. */
  const multipart = (
    method: string,
    path: string,
    token: string,
    fields: Record<string, string>,
    file?: { name: string; data: Buffer },
  ) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (file) form.append('avatar', new Blob([file.data]), file.name);
    return fetch(`${s.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': token }, body: form });
  };
  /** GETs an avatar URL: its status, type and bytes. */
  const image = async (url: string, token?: string) => {
    const res = await fetch(url, { headers: token ? { 'PRIVATE-TOKEN': token } : {} });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      bytes: Buffer.from(await res.arrayBuffer()),
    };
  };

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'alice-password' },
    });
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    alice = { id: u.body.id, token: t.body.token };
  });
  afterAll(() => s?.stop());

  it('gives every user an avatar_url: an identicon svc serves, the same image every time', async () => {
    const me = await api.get('/api/v4/user', { token: alice.token });
    expect(me.body.avatar_url).toMatch(new RegExp(`^${s.url}/-/identicon/[0-9a-f]{32}\\.png$`));
    const listed = await api.get('/api/v4/users?username=alice', { token: s.rootToken });
    expect(listed.body[0].avatar_url).toBe(me.body.avatar_url);
    // The root user's differs (another id).
    const root = await api.get('/api/v4/user', { token: s.rootToken });
    expect(root.body.avatar_url).not.toBe(me.body.avatar_url);
    const first = await image(me.body.avatar_url);
    expect(first).toMatchObject({ status: 200, type: 'image/png' });
    expect(first.bytes.subarray(0, 8)).toEqual(PNG.subarray(0, 8));
    expect((await image(me.body.avatar_url)).bytes).toEqual(first.bytes);
    // Anonymous callers get it too (users' avatars are public); a name that is no identicon's is 404.
    expect((await image(`${s.url}/-/identicon/nothex.png`)).status).toBe(404);
    // A user namespace shows its owner's avatar; a project in it embeds that namespace.
    const ns = await api.get('/api/v4/namespaces/alice', { token: alice.token });
    expect(ns.body.avatar_url).toBe(me.body.avatar_url);
  });

  it("takes a user's avatar as a multipart upload, serves it back byte for byte, and removes it", async () => {
    const put = await multipart(
      'PUT',
      `/users/${alice.id}`,
      s.rootToken,
      { bio: 'hi' },
      { name: 'Me.PNG', data: PNG },
    );
    expect(put.status).toBe(200);
    const body = (await put.json()) as { bio: string; avatar_url: string };
    expect(body.bio).toBe('hi');
    expect(body.avatar_url).toBe(`${s.url}/uploads/-/system/user/avatar/${alice.id}/Me.png`);
    const got = await image(body.avatar_url);
    expect(got).toMatchObject({ status: 200, type: 'image/png' });
    expect(got.bytes.equals(PNG)).toBe(true);
    // The namespace follows.
    expect((await api.get('/api/v4/namespaces/alice', { token: alice.token })).body.avatar_url).toBe(
      body.avatar_url,
    );
    // PUT /user/avatar: one's own, answered with GitLab's Avatar entity.
    const own = await multipart('PUT', '/user/avatar', alice.token, {}, { name: 'photo.jpg', data: JPEG });
    expect(own.status).toBe(200);
    const ownBody = (await own.json()) as { avatar_url: string };
    expect(ownBody).toEqual({ avatar_url: `${s.url}/uploads/-/system/user/avatar/${alice.id}/photo.jpg` });
    const jpeg = await image(ownBody.avatar_url);
    expect(jpeg).toMatchObject({ status: 200, type: 'image/jpeg' });
    expect(jpeg.bytes.equals(JPEG)).toBe(true);
    // The replaced file is no longer served.
    expect((await image(body.avatar_url)).status).toBe(404);
    expect((await multipart('PUT', '/user/avatar', alice.token, { avatar: '' })).status).toBe(400);
    // `avatar=` removes it: the identicon is back, never null.
    const removed = await api.put(`/api/v4/users/${alice.id}`, { token: s.rootToken, body: { avatar: '' } });
    expect(removed.status).toBe(200);
    expect(removed.body.avatar_url).toMatch(/\/-\/identicon\/[0-9a-f]{32}\.png$/);
    expect((await image(ownBody.avatar_url)).status).toBe(404);
    // A user created with an avatar has it from the start.
    const made = await multipart(
      'POST',
      '/users',
      s.rootToken,
      { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'bob-password' },
      { name: 'bob.png', data: PNG },
    );
    expect(made.status).toBe(201);
    expect(((await made.json()) as { avatar_url: string }).avatar_url).toMatch(
      /\/uploads\/-\/system\/user\/avatar\/\d+\/bob\.png$/,
    );
  });

  it('refuses a file too big or not an image with GitLab validation errors, and changes nothing', async () => {
    const before = (await api.get('/api/v4/user', { token: alice.token })).body.avatar_url;
    const big = Buffer.concat([PNG, Buffer.alloc(200 * 1024)]);
    const tooBig = await multipart(
      'PUT',
      `/users/${alice.id}`,
      s.rootToken,
      {},
      { name: 'big.png', data: big },
    );
    expect(tooBig.status).toBe(400);
    expect(await tooBig.json()).toEqual({
      message: { avatar: ['is too big (should be at most 200 KiB)'] },
    });
    const formats = 'png, jpg, jpeg, gif, bmp, tiff, ico, webp';
    const unsupported = {
      message: {
        avatar: [
          `file format is not supported. Please try one of the following supported formats: ${formats}`,
        ],
      },
    };
    for (const file of [
      { name: 'notes.txt', data: Buffer.from('hello') },
      // The name says PNG, the bytes do not.
      { name: 'fake.png', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') },
      { name: 'vector.svg', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') },
    ]) {
      const wrong = await multipart('PUT', `/users/${alice.id}`, s.rootToken, { bio: 'changed' }, file);
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toEqual(unsupported);
    }
    const after = (await api.get('/api/v4/user', { token: alice.token })).body;
    expect(after.avatar_url).toBe(before);
    expect(after.bio).toBe('hi');
    // A project is not created with a bad avatar.
    const p = await multipart(
      'POST',
      '/projects',
      alice.token,
      { name: 'Nope' },
      { name: 'x.txt', data: Buffer.from('x') },
    );
    expect(p.status).toBe(400);
    expect((await api.get('/api/v4/projects/alice%2Fnope', { token: alice.token })).status).toBe(404);
    // A file in a field that takes none is still refused.
    const form = new FormData();
    form.append('title', 'T');
    form.append('content', new Blob(['x']), 'x.txt');
    const snippet = await fetch(`${s.url}/api/v4/snippets`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': alice.token },
      body: form,
    });
    expect(snippet.status).toBe(400);
    expect(await snippet.json()).toEqual({
      error: 'content is a file upload, which svc does not accept here',
    });
  });

  it('takes project and group avatars (create and update), serves them to who may see them, and removes them to null', async () => {
    const made = await multipart(
      'POST',
      '/projects',
      alice.token,
      { name: 'Pictured', visibility: 'private' },
      { name: 'logo.png', data: PNG },
    );
    expect(made.status).toBe(201);
    const project = (await made.json()) as { id: number; avatar_url: string };
    expect(project.avatar_url).toBe(`${s.url}/uploads/-/system/project/avatar/${project.id}/logo.png`);
    const got = await image(project.avatar_url, alice.token);
    expect(got).toMatchObject({ status: 200, type: 'image/png' });
    expect(got.bytes.equals(PNG)).toBe(true);
    // Private project: not to anonymous callers, nor to users who may not see it.
    expect((await image(project.avatar_url)).status).toBe(404);
    const updated = await multipart(
      'PUT',
      `/projects/${project.id}`,
      alice.token,
      { description: 'd' },
      {
        name: 'new.jpeg',
        data: JPEG,
      },
    );
    expect(updated.status).toBe(200);
    const u = (await updated.json()) as { avatar_url: string };
    expect(u).toMatchObject({
      description: 'd',
      avatar_url: `${s.url}/uploads/-/system/project/avatar/${project.id}/new.jpeg`,
    });
    expect((await image(u.avatar_url, alice.token)).type).toBe('image/jpeg');
    const cleared = await api.put(`/api/v4/projects/${project.id}`, {
      token: alice.token,
      raw: 'avatar=',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.avatar_url).toBeNull();
    expect((await image(u.avatar_url, alice.token)).status).toBe(404);

    const group = await multipart(
      'POST',
      '/groups',
      alice.token,
      { name: 'Crew', path: 'crew', visibility: 'public' },
      {
        name: 'crew.gif',
        data: Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(20)]),
      },
    );
    expect(group.status).toBe(201);
    const g = (await group.json()) as { id: number; avatar_url: string };
    expect(g.avatar_url).toBe(`${s.url}/uploads/-/system/group/avatar/${g.id}/crew.gif`);
    expect(await image(g.avatar_url)).toMatchObject({ status: 200, type: 'image/gif' });
    expect((await api.get(`/api/v4/groups/${g.id}`)).body.avatar_url).toBe(g.avatar_url);
    const groupCleared = await api.put(`/api/v4/groups/${g.id}`, {
      token: alice.token,
      body: { avatar: '' },
    });
    expect(groupCleared.body.avatar_url).toBeNull();
    expect((await image(g.avatar_url)).status).toBe(404);
    // Text that is no file is no avatar.
    expect(
      (await api.put(`/api/v4/groups/${g.id}`, { token: alice.token, body: { avatar: 'x.png' } })).body,
    ).toEqual({
      error: 'avatar is invalid',
    });
  });

  it("ignores GitLab parameters it does not keep on PUT /groups/:id, such as python-gitlab's empty `file` part", async () => {
    const made = await api.post('/api/v4/groups', {
      token: alice.token,
      body: { name: 'Quiet', path: 'quiet' },
    });
    expect(made.status).toBe(201);
    // python-gitlab 8 sends an empty text part named `file` beside the `avatar` file part.
    const put = await multipart(
      'PUT',
      `/groups/${made.body.id}`,
      alice.token,
      { file: '' },
      { name: 'q.png', data: PNG },
    );
    expect(put.status).toBe(200);
    expect(((await put.json()) as { avatar_url: string }).avatar_url).toBe(
      `${s.url}/uploads/-/system/group/avatar/${made.body.id}/q.png`,
    );
    const json = await api.put(`/api/v4/groups/${made.body.id}`, {
      token: alice.token,
      body: { description: 'kept', lfs_enabled: true },
    });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ description: 'kept', name: 'Quiet' });
  });

  it('keeps avatars in backups, and a restore serves them again', async () => {
    const put = await multipart('PUT', '/user/avatar', alice.token, {}, { name: 'kept.png', data: PNG });
    const url = ((await put.json()) as { avatar_url: string }).avatar_url;
    const dir = mkdtempSync(join(tmpdir(), 'svc-avatar-backup-'));
    try {
      const archive = join(dir, 'b.tar.gz');
      await createBackupService(s.server.ctx).create(archive, { keyOutput: null });
      const { stdout } = await run('tar', ['-tzf', archive]);
      expect(stdout).toContain(`avatars/user-${alice.id}-kept.png`);
      const target = join(dir, 'target');
      const restored = await svc(['backup', 'restore', archive], { SVC_DATA_DIR: target });
      expect(restored.code).toBe(0);
      const server = await start(
        loadConfig({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: target, SVC_LOG_LEVEL: 'silent' }),
        {
          log: false,
          print: () => undefined,
        },
      );
      try {
        const again = await image(url.replace(s.url, server.address));
        expect(again).toMatchObject({ status: 200, type: 'image/png' });
        expect(again.bytes.equals(PNG)).toBe(true);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(await databases())('project repository state and small GitLab answers (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let carol: { id: number; token: string };

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'carol', name: 'Carol', email: 'carol@example.com', password: 'carol-password' },
    });
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    carol = { id: u.body.id, token: t.body.token };
  });
  afterAll(() => s?.stop());

  it('commits a README.md with initialize_with_readme: not empty, readme_url set, the file in git', async () => {
    const p = await api.post('/api/v4/projects', {
      token: carol.token,
      body: { name: 'Readme Me', initialize_with_readme: true, description: 'A test.' },
    });
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({
      empty_repo: false,
      readme_url: `${s.url}/carol/readme-me/-/blob/main/README.md`,
    });
    expect((await api.get(`/api/v4/projects/${p.body.id}`, { token: carol.token })).body.empty_repo).toBe(
      false,
    );
    const dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
    try {
      const clone = await git(
        ['clone', '--quiet', authUrl(p.body.http_url_to_repo, 'carol', carol.token), 'w'],
        dir,
      );
      expect(clone.code).toBe(0);
      expect(readFileSync(join(dir, 'w', 'README.md'), 'utf8')).toBe('# Readme Me\n\nA test.\n');
      const log = await git(['log', '--format=%an <%ae> %s'], join(dir, 'w'));
      expect(log.stdout.trim()).toBe('Carol <carol@example.com> Initial commit');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows a project empty until a push, then with the README it pushed', async () => {
    const p = await api.post('/api/v4/projects', { token: carol.token, body: { name: 'Plain' } });
    expect(p.body).toMatchObject({ empty_repo: true, readme_url: null });
    const { dir, push } = await pushCommit(
      authUrl(p.body.http_url_to_repo, 'carol', carol.token),
      'readme.rst',
      'x\n',
    );
    rmSync(dir, { recursive: true, force: true });
    expect(push.code).toBe(0);
    // Recorded once the push has ended (after git's answer, as GitLab's post-receive work).
    const after = await until(async () => {
      const r = await api.get(`/api/v4/projects/${p.body.id}`, { token: carol.token });
      return r.body.empty_repo === false ? r : null;
    }, 'the push to be recorded');
    expect(after.body.readme_url).toBe(`${s.url}/carol/plain/-/blob/main/readme.rst`);
    const listed = await api.get('/api/v4/projects?owned=true', { token: carol.token });
    expect(listed.body.find((x: { id: number }) => x.id === p.body.id).empty_repo).toBe(false);
  });

  it('answers block and unblock as GitLab: true when the state changes, null and false when it does not', async () => {
    const block = (verb: string) => api.post(`/api/v4/users/${carol.id}/${verb}`, { token: s.rootToken });
    const first = await block('block');
    expect([first.status, first.body]).toEqual([201, true]);
    const again = await block('block');
    expect([again.status, again.body]).toEqual([201, null]);
    const unblock = await block('unblock');
    expect([unblock.status, unblock.body]).toEqual([201, true]);
    const active = await block('unblock');
    expect([active.status, active.body]).toEqual([201, false]);
    expect((await api.get('/api/v4/user', { token: carol.token })).status).toBe(200);
  });

  it('lists every snippet the caller may read at /snippets/all, and all of them for admins', async () => {
    const dave = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'dave', name: 'Dave', email: 'dave@example.com', password: 'dave-password' },
    });
    const daveToken = (
      await api.post(`/api/v4/users/${dave.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      })
    ).body.token;
    const snip = async (token: string, title: string, visibility: string, project?: number) =>
      (
        await api.post(project ? `/api/v4/projects/${project}/snippets` : '/api/v4/snippets', {
          token,
          body: { title, file_name: 'a.txt', content: title, visibility },
        })
      ).body.id as number;
    const mine = await snip(carol.token, 'mine private', 'private');
    const othersPrivate = await snip(daveToken, 'dave private', 'private');
    const othersInternal = await snip(daveToken, 'dave internal', 'internal');
    const privateProject = (
      await api.post('/api/v4/projects', {
        token: daveToken,
        body: { name: 'Dave Secret', visibility: 'private' },
      })
    ).body.id;
    const hiddenProjectSnippet = await snip(daveToken, 'in private project', 'private', privateProject);
    const publicProject = (
      await api.post('/api/v4/projects', {
        token: daveToken,
        body: { name: 'Dave Open', visibility: 'public' },
      })
    ).body.id;
    const openProjectSnippet = await snip(daveToken, 'open project snippet', 'public', publicProject);
    const closedProjectSnippet = await snip(daveToken, 'members only', 'private', publicProject);

    const all = await api.get('/api/v4/snippets/all?per_page=100', { token: carol.token });
    expect(all.status).toBe(200);
    const seen = all.body.map((x: { id: number }) => x.id);
    expect(seen).toEqual(expect.arrayContaining([mine, othersInternal, openProjectSnippet]));
    for (const hidden of [othersPrivate, hiddenProjectSnippet, closedProjectSnippet])
      expect(seen).not.toContain(hidden);
    expect(all.headers.get('x-total')).toBe(String(seen.length));
    const admin = await api.get('/api/v4/snippets/all?per_page=100', { token: s.rootToken });
    expect(admin.body.map((x: { id: number }) => x.id)).toEqual(
      expect.arrayContaining([
        mine,
        othersPrivate,
        othersInternal,
        hiddenProjectSnippet,
        openProjectSnippet,
        closedProjectSnippet,
      ]),
    );
    expect((await api.get('/api/v4/snippets/all')).status).toBe(401);
  });

  it('leaves out skip_groups from GET /groups', async () => {
    const ids: number[] = [];
    for (const name of ['Skip One', 'Skip Two', 'Skip Three']) {
      const g = await api.post('/api/v4/groups', {
        token: carol.token,
        body: { name, path: name.toLowerCase().replace(' ', '-') },
      });
      ids.push(g.body.id);
    }
    const names = async (q: string) =>
      (await api.get(`/api/v4/groups?search=skip${q}`, { token: carol.token })).body
        .map((g: { id: number }) => g.id)
        .sort();
    expect(await names('')).toEqual([...ids].sort());
    expect(await names(`&skip_groups[]=${ids[0]}&skip_groups[]=${ids[2]}`)).toEqual([ids[1]]);
    expect(await names(`&skip_groups=${ids[1]}`)).toEqual([ids[0], ids[2]].sort());
  });
});
