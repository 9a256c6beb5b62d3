import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { allowLocalHooks, startHookReceiver } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/** GitLab's event flags of a project hook and their defaults (its `web_hooks` columns). */
const FLAG_DEFAULTS = {
  push_events: true,
  tag_push_events: false,
  merge_requests_events: false,
  issues_events: false,
  confidential_issues_events: false,
  note_events: false,
  job_events: false,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  releases_events: false,
  feature_flag_events: false,
  milestone_events: false,
  emoji_events: false,
  resource_access_token_events: false,
  resource_deploy_token_events: false,
  vulnerability_events: false,
  repository_update_events: false,
  confidential_note_events: null,
  push_events_branch_filter: null,
  branch_filter_strategy: 'wildcard',
} as const;
const SETTABLE = Object.keys(FLAG_DEFAULTS).filter(
  (f) => !['repository_update_events', 'confidential_note_events'].includes(f) && f.endsWith('_events'),
);

const drain = (s: TestServer) => s.server.ctx.jobs.drain();

describe.each(await databases())('project hook event flags (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let projectId: number;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'Flags' } });
    expect(p.status).toBe(201);
    projectId = p.body.id;
  });
  afterAll(async () => {
    await s?.stop();
  });

  const hooks = () => `/api/v4/projects/${projectId}/hooks`;

  it("a hook created with only a URL has GitLab's defaults, in v4 and v5, on get and list", async () => {
    const c = await api.post(hooks(), {
      token: s.rootToken,
      body: { url: 'https://hooks.example.com/defaults' },
    });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject(FLAG_DEFAULTS);
    for (const v of ['v4', 'v5']) {
      const g = await api.get(`/api/${v}/projects/${projectId}/hooks/${c.body.id}`, { token: s.rootToken });
      expect(g.status).toBe(200);
      expect(g.body).toMatchObject(FLAG_DEFAULTS);
      const l = await api.get(`/api/${v}/projects/${projectId}/hooks`, { token: s.rootToken });
      expect(l.body.find((h: { id: number }) => h.id === c.body.id)).toMatchObject(FLAG_DEFAULTS);
    }
  });

  it('every flag given on creation is stored and returned; an update changes only what it names', async () => {
    const all = Object.fromEntries(SETTABLE.map((f) => [f, f !== 'push_events']));
    const body = {
      url: 'https://hooks.example.com/all',
      ...all,
      confidential_note_events: true,
      push_events_branch_filter: 'release/*',
    };
    const c = await api.post(hooks(), { token: s.rootToken, body });
    expect(c.status).toBe(201);
    const expected = { ...all, confidential_note_events: true, push_events_branch_filter: 'release/*' };
    expect(c.body).toMatchObject(expected);
    const g = await api.get(`${hooks()}/${c.body.id}`, { token: s.rootToken });
    expect(g.body).toMatchObject(expected);

    // Each flag flipped on its own: only it changes (what gitlabracadabra does on every run).
    let now: Record<string, unknown> = { ...expected };
    for (const f of [...SETTABLE, 'confidential_note_events']) {
      const u = await api.put(`${hooks()}/${c.body.id}`, { token: s.rootToken, body: { [f]: !now[f] } });
      expect(u.status).toBe(200);
      now = { ...now, [f]: !now[f] };
      expect(u.body).toMatchObject(now);
    }
    const v5 = await api.get(`/api/v5/projects/${projectId}/hooks/${c.body.id}`, { token: s.rootToken });
    expect(v5.body).toMatchObject(now);
    const u = await api.put(`${hooks()}/${c.body.id}`, {
      token: s.rootToken,
      body: { push_events_branch_filter: '', branch_filter_strategy: 'all_branches' },
    });
    expect(u.body).toMatchObject({ push_events_branch_filter: '', branch_filter_strategy: 'all_branches' });
  });

  it('an invalid branch filter or strategy is refused and changes nothing', async () => {
    const c = await api.post(hooks(), { token: s.rootToken, body: { url: 'https://hooks.example.com/f' } });
    for (const body of [
      { push_events_branch_filter: 'a..b' },
      { push_events_branch_filter: 'with space' },
      { branch_filter_strategy: 'regex', push_events_branch_filter: '^main$' },
    ]) {
      const r = await api.put(`${hooks()}/${c.body.id}`, { token: s.rootToken, body });
      expect(r.status).toBe(422);
      expect(r.body.message).toMatch(/Invalid branch filter given/);
    }
    const bad = await api.put(`${hooks()}/${c.body.id}`, {
      token: s.rootToken,
      body: { branch_filter_strategy: 'glob' },
    });
    expect(bad.status).toBe(400);
    const g = await api.get(`${hooks()}/${c.body.id}`, { token: s.rootToken });
    expect(g.body).toMatchObject(FLAG_DEFAULTS);
  });

  it('a host that does not resolve is saved (201); its delivery fails, is logged and retried', async () => {
    const c = await api.post(hooks(), {
      token: s.rootToken,
      body: { url: 'https://svc-hook-target.invalid/hook', alert_events: true },
    });
    expect(c.status).toBe(201);
    expect(c.body.url).toBe('https://svc-hook-target.invalid/hook');
    // A test delivery reaches nothing: 422 with the reason, recorded with the hook's deliveries.
    const t = await api.post(`${hooks()}/${c.body.id}/test/alert_events`, { token: s.rootToken });
    expect(t.status).toBe(422);
    expect(t.body.message).toMatch(/Hook execution failed: cannot resolve svc-hook-target\.invalid/);
    const events = await api.get(`${hooks()}/${c.body.id}/events`, { token: s.rootToken });
    expect(events.body[0]).toMatchObject({
      status: 'failed',
      error: 'cannot resolve svc-hook-target.invalid',
    });
    // A real event: its delivery fails like any other failure, is logged, and waits for its retry.
    const integration = await createIntegration(api, s.rootToken, projectId, { name: 'http', type: 'http' });
    expect((await notify(integration.url, integration.authorization_key, { title: 'Down' })).status).toBe(
      200,
    );
    await drain(s);
    const log = await until(async () => {
      const r = await api.get(`${hooks()}/${c.body.id}/events`, { token: s.rootToken });
      return r.body.find(
        (d: { object_kind: string; attempts: number }) => d.object_kind === 'alert' && d.attempts > 0,
      );
    }, 'the alert delivery');
    expect(log).toMatchObject({
      status: 'pending',
      attempts: 1,
      response_status: null,
      error: 'cannot resolve svc-hook-target.invalid',
    });
  });

  it('a literal loopback or private address is still refused at save, unless local requests are allowed', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook']) {
      const r = await api.post(hooks(), { token: s.rootToken, body: { url } });
      expect(r.status).toBe(422);
      expect(r.body.message.url[0]).toMatch(/is blocked: requests to the local network are not allowed/);
    }
    const n = (await api.get(hooks(), { token: s.rootToken })).body.length;
    await allowLocalHooks(s);
    const r = await api.post(hooks(), { token: s.rootToken, body: { url: 'http://10.1.2.3/hook' } });
    expect(r.status).toBe(201);
    expect((await api.get(hooks(), { token: s.rootToken })).body.length).toBe(n + 1);
  });
});

const ident = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];

describe.each(await databases())('GitLab events to project hooks (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let receiver: Awaited<ReturnType<typeof startHookReceiver>>;
  let token: string;
  let dev: { id: number; username: string };
  let project: { id: number; path_with_namespace: string; http_url_to_repo: string; web_url: string };
  let work: string;
  const base = () => `/api/v4/projects/${project.id}`;
  /** What the hook named `name` (its URL's `?h=`) received, by event header. */
  const got = (name: string, event?: string) =>
    receiver.received.filter(
      (r) => r.path.endsWith(`?h=${name}`) && (event === undefined || r.headers['x-gitlab-event'] === event),
    );
  const addHook = async (name: string, body: Record<string, unknown>) => {
    const r = await api.post(`${base()}/hooks`, {
      token,
      body: { url: `${receiver.url}?h=${name}`, ...body },
    });
    expect(r.status).toBe(201);
    return r.body.id as number;
  };
  const head = async (ref: string) => (await git(['rev-parse', ref], work)).stdout.trim();
  /** Commits each file on `branch` (from the current HEAD) and pushes the branch. */
  const commitAndPush = async (branch: string, files: string[]) => {
    for (const f of files) {
      writeFileSync(join(work, f), `${f}\n`);
      await git(['add', f], work);
      expect((await git([...ident, 'commit', '--quiet', '-m', `Add ${f}`], work)).code).toBe(0);
    }
    const p = await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work);
    expect(p.code).toBe(0);
  };
  const settle = async () => {
    await s.server.ctx.jobs.drain();
  };

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    receiver = await startHookReceiver();
    await allowLocalHooks(s);
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'dev', name: 'Dev Eloper', email: 'dev@example.com', password: 'password-123' },
    });
    dev = { id: u.body.id, username: 'dev' };
    token = (
      await api.post(`/api/v4/users/${dev.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 'api', scopes: ['api'] },
      })
    ).body.token;
    project = (await api.post('/api/v4/projects', { token, body: { name: 'events' } })).body;
    const first = await pushCommit(authUrl(project.http_url_to_repo, 'dev', token), 'README.md', 'hi\n');
    expect(first.push.code).toBe(0);
    work = first.dir;
  });
  afterAll(async () => {
    await s?.stop();
    await receiver?.close();
  });

  it("a git push sends GitLab's push payload to hooks with push_events; the branch filter and flags are honoured", async () => {
    await addHook('all', { token: 'hook-secret' });
    await addHook('release', { push_events_branch_filter: 'release/*' });
    await addHook('tags', { push_events: false, tag_push_events: true });
    await addHook('off', { push_events: false });
    const before = await head('HEAD');
    await commitAndPush('main', ['a.txt', 'b.txt']);
    const after = await head('HEAD');
    await settle();
    // (The first push, from before the hooks, may reach them too: its event is written after git's answer.)
    const push = await until(() => got('all', 'Push Hook').find((r) => r.body.after === after), 'push hook');
    expect(push.headers['x-gitlab-token']).toBe('hook-secret');
    expect(push.body).toMatchObject({
      object_kind: 'push',
      event_name: 'push',
      before,
      after,
      ref: 'refs/heads/main',
      checkout_sha: after,
      user_id: dev.id,
      user_name: 'Dev Eloper',
      user_username: 'dev',
      project_id: project.id,
      project: {
        id: project.id,
        path_with_namespace: project.path_with_namespace,
        web_url: project.web_url,
        git_http_url: project.http_url_to_repo,
        default_branch: 'main',
      },
      total_commits_count: 2,
      repository: { git_http_url: project.http_url_to_repo },
    });
    expect(push.body.commits.map((c: { title: string }) => c.title)).toEqual(['Add a.txt', 'Add b.txt']);
    expect(push.body.commits[1]).toMatchObject({
      id: after,
      message: 'Add b.txt\n',
      url: `${project.web_url}/-/commit/${after}`,
      author: { name: 'Dev', email: 'dev@example.com' },
      added: ['b.txt'],
      modified: [],
      removed: [],
    });
    // The branch filter release/* and the hooks without push_events got nothing.
    expect(got('release')).toEqual([]);
    expect(got('tags')).toEqual([]);
    expect(got('off')).toEqual([]);

    // A branch the filter matches; then an annotated tag: a tag push, to the hook with tag_push_events only.
    await commitAndPush('release/1.0', ['c.txt']);
    expect((await git([...ident, 'tag', '-a', 'v1.0', '-m', 'First release'], work)).code).toBe(0);
    expect((await git(['push', '--quiet', 'origin', 'v1.0'], work)).code).toBe(0);
    await settle();
    const [rel] = await until(() => got('release').length > 0 && got('release'), 'filtered push');
    expect(rel!.body).toMatchObject({
      object_kind: 'push',
      ref: 'refs/heads/release/1.0',
      total_commits_count: 1,
    });
    const [tag] = await until(() => got('tags').length > 0 && got('tags'), 'tag push');
    expect(tag!.headers['x-gitlab-event']).toBe('Tag Push Hook');
    expect(tag!.body).toMatchObject({
      object_kind: 'tag_push',
      ref: 'refs/tags/v1.0',
      before: '0000000000000000000000000000000000000000',
      checkout_sha: await head('HEAD'),
      message: 'First release',
      commits: [],
      total_commits_count: 0,
    });
    expect(got('release')).toHaveLength(1);
    expect(got('all', 'Tag Push Hook')).toEqual([]);
    expect(got('off')).toEqual([]);

    // Deleting a branch is a push with `after` all zeros and no commits.
    expect((await git(['push', '--quiet', 'origin', ':release/1.0'], work)).code).toBe(0);
    await settle();
    await until(() => got('release').length === 2, 'deletion push');
    expect(got('release')[1]!.body).toMatchObject({
      ref: 'refs/heads/release/1.0',
      after: '0000000000000000000000000000000000000000',
      checkout_sha: null,
      commits: [],
      total_commits_count: 0,
    });

    // The delivery is in the hook's log.
    const hooks = (await api.get(`${base()}/hooks`, { token })).body as { id: number; url: string }[];
    const all = hooks.find((h) => h.url.endsWith('?h=all'))!;
    const log = await api.get(`${base()}/hooks/${all.id}/events`, { token });
    expect(
      log.body.some(
        (d: { object_kind: string; status: string }) => d.object_kind === 'push' && d.status === 'success',
      ),
    ).toBe(true);
  });

  it('merge requests: open, approve and merge send merge request hooks', async () => {
    await addHook('mr', { push_events: false, merge_requests_events: true });
    await git(['checkout', '--quiet', '-B', 'feature', 'origin/main'], work);
    await git(['fetch', '--quiet', 'origin'], work);
    await git(['reset', '--quiet', '--hard', 'origin/main'], work);
    await commitAndPush('feature', ['feature.txt']);
    const feature = await head('HEAD');
    const mr = await api.post(`${base()}/merge_requests`, {
      token,
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add the feature' },
    });
    expect(mr.status).toBe(201);
    await settle();
    const [open] = await until(() => got('mr').length > 0 && got('mr'), 'open hook');
    expect(open!.headers['x-gitlab-event']).toBe('Merge Request Hook');
    expect(open!.body).toMatchObject({
      object_kind: 'merge_request',
      event_type: 'merge_request',
      user: { id: dev.id, username: 'dev', name: 'Dev Eloper' },
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
      object_attributes: {
        iid: mr.body.iid,
        action: 'open',
        state: 'opened',
        title: 'Add the feature',
        source_branch: 'feature',
        target_branch: 'main',
        url: `${project.web_url}/-/merge_requests/${mr.body.iid}`,
        last_commit: { id: feature, title: 'Add feature.txt' },
      },
      repository: { name: 'events' },
    });
    const approve = await api.post(`${base()}/merge_requests/${mr.body.iid}/approve`, { token: s.rootToken });
    expect(approve.status).toBe(201);
    await settle();
    await until(() => got('mr').length === 2, 'approve hook');
    expect(got('mr')[1]!.body.object_attributes).toMatchObject({ action: 'approved', state: 'opened' });
    const title = await api.put(`${base()}/merge_requests/${mr.body.iid}`, {
      token,
      body: { title: 'Feature' },
    });
    expect(title.status).toBe(200);
    await settle();
    await until(() => got('mr').length === 3, 'update hook');
    expect(got('mr')[2]!.body).toMatchObject({
      object_attributes: { action: 'update', title: 'Feature' },
      changes: { title: { previous: 'Add the feature', current: 'Feature' } },
    });
    // Close, reopen, withdraw the approval and give it again: one hook each, with GitLab's action.
    const mrUrl = `${base()}/merge_requests/${mr.body.iid}`;
    const steps = [
      [() => api.put(mrUrl, { token, body: { state_event: 'close' } }), 'close', 'closed'],
      [() => api.put(mrUrl, { token, body: { state_event: 'reopen' } }), 'reopen', 'opened'],
      [() => api.post(`${mrUrl}/unapprove`, { token: s.rootToken }), 'unapproved', 'opened'],
      [() => api.post(`${mrUrl}/approve`, { token: s.rootToken }), 'approved', 'opened'],
    ] as const;
    for (const [call, action, state] of steps) {
      const n = got('mr').length;
      expect((await call()).status).toBeLessThan(300);
      await settle();
      await until(() => got('mr').length === n + 1, `${action} hook`);
      expect(got('mr')[n]!.body.object_attributes).toMatchObject({ action, state });
    }
    const merged = await api.put(`${base()}/merge_requests/${mr.body.iid}/merge`, { token });
    expect(merged.status).toBe(200);
    await settle();
    await until(() => got('mr').length === 8, 'merge hook');
    expect(got('mr')[7]!.body.object_attributes).toMatchObject({
      action: 'merge',
      state: 'merged',
      merge_commit_sha: merged.body.merge_commit_sha,
    });
  });

  it('a comment on a merge request, an alert or an incident sends a note hook; hooks without note_events get none', async () => {
    await addHook('notes', { push_events: false, note_events: true });
    const mr = (await api.get(`${base()}/merge_requests?state=all`, { token })).body[0];
    const note = await api.post(`${base()}/merge_requests/${mr.iid}/notes`, {
      token,
      body: { body: 'Looks good' },
    });
    expect(note.status).toBe(201);
    await settle();
    const [hook] = await until(
      () => got('notes', 'Note Hook').length > 0 && got('notes', 'Note Hook'),
      'note hook',
    );
    expect(hook!.headers['x-gitlab-event']).toBe('Note Hook');
    expect(hook!.body).toMatchObject({
      object_kind: 'note',
      event_type: 'note',
      user: { username: 'dev' },
      project_id: project.id,
      object_attributes: {
        id: note.body.id,
        note: 'Looks good',
        noteable_type: 'MergeRequest',
        noteable_id: mr.id,
        author_id: dev.id,
        system: false,
        action: 'create',
        url: `${project.web_url}/-/merge_requests/${mr.iid}#note_${note.body.id}`,
      },
      merge_request: { iid: mr.iid, title: 'Feature' },
    });

    const integration = await createIntegration(api, token, project.id, { name: 'http', type: 'http' });
    const sent = await notify(integration.url, integration.authorization_key, { title: 'Disk full' });
    expect(sent.status).toBe(200);
    const alert = (await api.get(`${base()}/alert_management/alerts`, { token })).body[0];
    const c = await api.post(`${base()}/alert_management/alerts/${alert.iid}/notes`, {
      token,
      body: { body: 'On it' },
    });
    expect(c.status).toBe(201);
    await settle();
    await until(() => got('notes', 'Note Hook').length === 2, 'alert note hook');
    expect(got('notes', 'Note Hook')[1]!.body.object_attributes).toMatchObject({
      note: 'On it',
      noteable_type: 'AlertManagement::Alert',
      noteable_id: expect.any(Number),
    });
    // A comment on an incident (an issue) is a note hook too.
    const incident = await api.post(`${base()}/issues`, {
      token,
      body: { title: 'Checkout down', issue_type: 'incident' },
    });
    expect(incident.status, JSON.stringify(incident.body)).toBe(201);
    const onIncident = await api.post(`${base()}/issues/${incident.body.iid}/notes`, {
      token,
      body: { body: 'Rolling back' },
    });
    expect(onIncident.status).toBe(201);
    await settle();
    await until(() => got('notes', 'Note Hook').length === 3, 'incident note hook');
    expect(got('notes', 'Note Hook')[2]!.body.object_attributes).toMatchObject({
      note: 'Rolling back',
      noteable_type: 'Issue',
      noteable_id: incident.body.id,
      url: `${project.web_url}/-/issues/${incident.body.iid}#note_${onIncident.body.id}`,
    });
    // The hooks without note_events (and the merge request hook) heard nothing of these comments.
    expect(receiver.received.filter((r) => r.headers['x-gitlab-event'] === 'Note Hook')).toHaveLength(3);
  });
});
