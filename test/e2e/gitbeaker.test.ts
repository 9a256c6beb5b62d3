import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * gitbeaker (@gitbeaker/rest), a real GitLab client, against svc: users, projects, runners, merge
 * requests, repository storage moves and error tracking client keys. It only speaks /api/v4.
 */
describe.each(await databases())('gitbeaker against svc (%s, release 16.11)', (database) => {
  let s: TestServer;
  let gl: InstanceType<typeof Gitlab>;

  beforeAll(async () => {
    const storages = mkdtempSync(join(tmpdir(), 'svc-gitbeaker-'));
    mkdirSync(join(storages, 'a'));
    s = await startTestServer({
      database,
      env: { SVC_RELEASE: '16.11', SVC_STORAGES: `default=${storages}/a,second=${storages}/b` },
    });
    gl = new Gitlab({ host: s.url, token: s.rootToken });
    // New repositories on "default" so that moves go to "second".
    await gl.ApplicationSettings.edit({ repositoryStoragesWeighted: { default: 100, second: 0 } } as never);
  });
  afterAll(() => s?.stop());

  it('manages users and their tokens', async () => {
    const me = await gl.Users.showCurrentUser();
    expect(me.username).toBe('root');
    const alice = await gl.Users.create({
      username: 'alice',
      name: 'Alice',
      email: 'alice@example.com',
      password: 'alice-password-1',
    });
    expect(alice.username).toBe('alice');
    expect((await gl.Users.show(alice.id)).name).toBe('Alice');
    expect((await gl.Users.edit(alice.id, { name: 'Alice A.' })).name).toBe('Alice A.');
    // Auto-pagination follows Link rel="next", offset and keyset.
    for (let i = 0; i < 3; i++) {
      await gl.Users.create({
        username: `u${i}`,
        name: `U${i}`,
        email: `u${i}@example.com`,
        password: 'password-123',
      });
    }
    const all = await gl.Users.all({ perPage: 2 });
    expect(all.map((u) => u.username).sort()).toEqual(['alice', 'root', 'u0', 'u1', 'u2']);
    const keyset = await gl.Users.all({ pagination: 'keyset', orderBy: 'username', sort: 'asc', perPage: 2 });
    expect(keyset.map((u) => u.username)).toEqual(['alice', 'root', 'u0', 'u1', 'u2']);
    expect((await gl.Users.all({ username: 'alice' })).map((u) => u.id)).toEqual([alice.id]);

    const pat = await gl.Users.createPersonalAccessToken(alice.id, 'ci', ['api']);
    expect(pat.token).toBeTruthy();
    const asAlice = new Gitlab({ host: s.url, token: pat.token as string });
    expect((await asAlice.Users.showCurrentUser()).username).toBe('alice');
    await gl.Users.block(alice.id);
    await expect(asAlice.Users.showCurrentUser()).rejects.toThrow(GitbeakerRequestError);
    await gl.Users.unblock(alice.id);
    expect((await asAlice.Users.showCurrentUser()).username).toBe('alice');
    await gl.Users.remove((await gl.Users.all({ username: 'u2' }))[0]!.id);
    expect(await gl.Users.all({ username: 'u2' })).toEqual([]);
  });

  it('manages projects', async () => {
    const p = await gl.Projects.create({ name: 'Gadget', visibility: 'private' });
    expect(p.path_with_namespace).toBe('root/gadget');
    expect((await gl.Projects.show(p.id)).name).toBe('Gadget');
    expect((await gl.Projects.show('root/gadget')).id).toBe(p.id);
    expect((await gl.Projects.edit(p.id, { description: 'A gadget' })).description).toBe('A gadget');
    expect((await gl.Projects.all({ search: 'gadget' })).map((x) => x.id)).toEqual([p.id]);
    const alice = (await gl.Users.all({ username: 'alice' }))[0]!;
    const given = await gl.Projects.create({ userId: alice.id, name: 'Gift' });
    expect(given.path_with_namespace).toBe('alice/gift');
    expect((await gl.Projects.all({ userId: String(alice.id) })).map((x) => x.path)).toEqual(['gift']);
    await gl.Projects.remove(given.id);
    await expect(gl.Projects.show(given.id)).rejects.toThrow('404 Project Not Found');
  });

  it('creates, registers, verifies, edits and removes runners', async () => {
    const project = await gl.Projects.create({ name: 'Builds' });
    const other = await gl.Projects.create({ name: 'Other' });
    const created = await gl.Users.createCIRunner('project_type', {
      projectId: project.id,
      description: 'linux',
      tagList: ['docker'],
    });
    expect(created.token).toMatch(/^glrt-/);
    await gl.Runners.verify({ token: created.token } as never);
    const shown = await gl.Runners.show(created.id);
    expect(shown).toMatchObject({ id: created.id, description: 'linux', status: 'online', paused: false });
    expect((await gl.Runners.edit(created.id, { paused: true })).paused).toBe(true);
    expect((await gl.Runners.all({ projectId: project.id })).map((r) => r.id)).toEqual([created.id]);
    expect((await gl.Runners.all({ owned: true })).map((r) => r.id)).toContain(created.id);
    expect((await gl.Runners.all()).map((r) => r.id)).toContain(created.id);
    expect(await gl.Runners.allJobs(created.id)).toEqual([]);
    await gl.Runners.enable(other.id, created.id);
    expect((await gl.Runners.all({ projectId: other.id })).map((r) => r.id)).toEqual([created.id]);
    await gl.Runners.disable(other.id, created.id);
    expect(await gl.Runners.all({ projectId: other.id })).toEqual([]);

    // Legacy registration with the instance registration token (before 17.0 in the spec).
    const reset = (await gl.Runners.resetRegistrationToken({ token: 'unused' })) as unknown as {
      token: string;
    };
    const legacy = (await gl.Runners.register(reset.token, { description: 'old way' })) as {
      id: number;
      token: string;
    };
    expect(legacy.token).toMatch(/^glrt-/);
    await gl.Runners.remove({ token: legacy.token });
    await expect(gl.Runners.show(legacy.id)).rejects.toThrow('404 Runner Not Found');
    await gl.Runners.remove({ runnerId: created.id });
    await expect(gl.Runners.show(created.id)).rejects.toThrow('404 Runner Not Found');
  });

  it('opens, inspects and merges a merge request on the real repository', async () => {
    const p = await gl.Projects.create({ name: 'Shop' });
    const { dir, push } = await pushCommit(authUrl(p.http_url_to_repo as string, 'root', s.rootToken));
    expect(push.code).toBe(0);
    await git(['checkout', '--quiet', '-b', 'feature'], dir);
    writeFileSync(join(dir, 'feature.txt'), 'feature\n');
    await git(['add', 'feature.txt'], dir);
    await git(
      ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'Feature'],
      dir,
    );
    expect((await git(['push', '--quiet', 'origin', 'feature'], dir)).code).toBe(0);

    const mr = await gl.MergeRequests.create(p.id, 'feature', 'main', 'Add feature');
    expect(mr).toMatchObject({
      iid: 1,
      state: 'opened',
      detailed_merge_status: 'mergeable',
      merge_status: 'can_be_merged',
    });
    expect((await gl.MergeRequests.all({ projectId: p.id, state: 'opened' })).map((m) => m.iid)).toEqual([1]);
    expect((await gl.MergeRequests.show(p.id, 1)).title).toBe('Add feature');
    expect((await gl.MergeRequests.edit(p.id, 1, { description: 'Please' })).description).toBe('Please');
    const diffs = await gl.MergeRequests.allDiffs(p.id, 1);
    expect(diffs.map((d) => d.new_path)).toEqual(['feature.txt']);
    expect((await gl.MergeRequests.allCommits(p.id, 1)).map((c) => c.title)).toEqual(['Feature']);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const changes = await gl.MergeRequests.showChanges(p.id, 1);
    process.off('warning', onWarning);
    expect((changes.changes as { new_path: string }[]).map((d) => d.new_path)).toEqual(['feature.txt']);
    const merged = await gl.MergeRequests.merge(p.id, 1, { shouldRemoveSourceBranch: true });
    expect(merged).toMatchObject({
      state: 'merged',
      merged_by: { username: 'root' },
      merge_user: { username: 'root' },
    });
    await git(['fetch', '--quiet', '--prune', 'origin'], dir);
    expect((await git(['rev-parse', 'origin/main'], dir)).stdout.trim()).toBe(merged.merge_commit_sha);
    expect((await git(['rev-parse', '--verify', '--quiet', 'origin/feature'], dir)).code).not.toBe(0);

    await gl.MergeRequests.create(p.id, 'main', 'other', 'Nope').then(
      () => expect.fail('a missing target branch must be refused'),
      (e: GitbeakerRequestError) => expect(e.cause?.response.status).toBe(400),
    );
    await gl.MergeRequests.remove(p.id, 1);
    expect(await gl.MergeRequests.all({ projectId: p.id })).toEqual([]);
  });

  it('schedules and follows repository storage moves', async () => {
    const p = await gl.Projects.create({ name: 'Moving' });
    const { push } = await pushCommit(authUrl(p.http_url_to_repo as string, 'root', s.rootToken));
    expect(push.code).toBe(0);
    await s.server.ctx.jobs.stop();
    const move = await gl.ProjectRepositoryStorageMoves.schedule('default', {
      projectId: p.id,
      destinationStorageName: 'second',
    });
    expect(move).toMatchObject({
      state: 'scheduled',
      source_storage_name: 'default',
      destination_storage_name: 'second',
    });
    await s.server.ctx.jobs.drain();
    s.server.ctx.jobs.start(200, 2);
    expect((await gl.ProjectRepositoryStorageMoves.show(move.id, { projectId: p.id })).state).toBe(
      'finished',
    );
    expect((await gl.ProjectRepositoryStorageMoves.show(move.id)).state).toBe('finished');
    expect((await gl.ProjectRepositoryStorageMoves.all({ projectId: p.id })).map((m) => m.id)).toEqual([
      move.id,
    ]);
    expect((await gl.ProjectRepositoryStorageMoves.all()).map((m) => m.id)).toContain(move.id);
    expect((await gl.Projects.show(p.id)).repository_storage).toBe('second');

    const snippet = await gl.Snippets.create('notes', {
      files: [{ filePath: 'a.txt', content: 'hello' }],
      visibility: 'private',
    });
    const snippetMove = await gl.SnippetRepositoryStorageMoves.schedule('default', {
      snippetId: snippet.id,
      destinationStorageName: 'second',
    });
    await s.server.ctx.jobs.drain();
    expect((await gl.SnippetRepositoryStorageMoves.show(snippetMove.id)).state).toBe('finished');
  });

  it('manages error tracking client keys', async () => {
    const p = await gl.Projects.create({ name: 'Errors' });
    const key = await gl.ErrorTrackingClientKeys.create(p.id);
    expect(key).toMatchObject({ active: true });
    expect(key.sentry_dsn).toContain(key.public_key);
    expect((await gl.ErrorTrackingClientKeys.all(p.id)).map((k) => k.id)).toEqual([key.id]);
    // gitbeaker deletes with DELETE .../client_keys and key_id in the body.
    await gl.ErrorTrackingClientKeys.remove(p.id, { keyId: key.id } as never);
    expect(await gl.ErrorTrackingClientKeys.all(p.id)).toEqual([]);
  });
});

describe('gitbeaker against svc at release 17.0', () => {
  let s: TestServer;
  afterAll(() => s?.stop());

  it('surfaces the 410 of legacy runner registration as a request error', async () => {
    s = await startTestServer({ env: { SVC_RELEASE: '17.0' } });
    const gl = new Gitlab({ host: s.url, token: s.rootToken });
    const error = await gl.Runners.register('any-token').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitbeakerRequestError);
    expect((error as GitbeakerRequestError).message).toBe('410 Gone - runner registration disallowed');
  });
});
