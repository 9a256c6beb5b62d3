import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * `GET/PUT /application/settings` with GitLab's keys, and what the settings svc enforces seen from outside: the
 * personal project limit, the API throttles (429, `Retry-After`, Rack::Attack's plain-text body), sign-up, the
 * visibility defaults and restricted levels. Also Grape's comma-separated arrays on other routes.
 */
describe.each(await databases())('application settings (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  const users: Record<string, { id: number; token: string }> = {};

  const settings = async () => (await api.get('/api/v4/application/settings', { token: s.rootToken })).body;
  const put = (body: unknown, token = s.rootToken) =>
    api.put('/api/v4/application/settings', { token, body });
  const newUser = async (username: string) => {
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username, name: username, email: `${username}@example.com`, password: 'password-123' },
    });
    expect(u.status).toBe(201);
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    users[username] = { id: u.body.id, token: t.body.token };
    return users[username]!;
  };

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    await newUser('bob');
  });
  afterAll(() => s?.stop());

  it("shows GitLab's keys with GitLab's defaults, to administrators only", async () => {
    const body = await settings();
    expect(body).toMatchObject({
      id: 1,
      default_projects_limit: 100000,
      restricted_visibility_levels: [],
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      throttle_authenticated_api_enabled: false,
      throttle_authenticated_api_requests_per_period: 7200,
      throttle_authenticated_api_period_in_seconds: 3600,
      throttle_unauthenticated_api_enabled: false,
      throttle_unauthenticated_api_requests_per_period: 3600,
      throttle_unauthenticated_api_period_in_seconds: 3600,
      rate_limiting_response_text: null,
      max_attachment_size: 100,
      session_expire_delay: 10080,
      default_branch_protection: 2,
      gravatar_enabled: true,
      home_page_url: null,
      domain_allowlist: [],
      polling_interval_multiplier: 1,
      allow_local_requests_from_web_hooks_and_services: false,
      allow_local_requests_from_hooks_and_services: false,
    });
    expect(Object.keys(body).length).toBeGreaterThan(60);
    expect((await api.get('/api/v4/application/settings', { token: users.bob!.token })).status).toBe(403);
    expect((await put({ max_attachment_size: 5 }, users.bob!.token)).status).toBe(403);
    expect((await api.get('/api/v4/application/settings')).status).toBe(401);
    expect((await settings()).max_attachment_size).toBe(100);
  });

  it('stores what is sent and shows it back; CLI strings and comma-separated lists are read as GitLab reads them', async () => {
    const res = await put({
      max_attachment_size: '25',
      session_expire_delay: 60,
      home_page_url: 'https://example.com/welcome',
      domain_allowlist: 'example.com, *.example.org',
      import_sources: ['github', 'git'],
      polling_interval_multiplier: 2.5,
      gravatar_enabled: 'false',
      rsa_key_restriction: 2048,
      allow_local_requests_from_hooks_and_services: true,
    });
    expect(res.status).toBe(200);
    const expected = {
      max_attachment_size: 25,
      session_expire_delay: 60,
      home_page_url: 'https://example.com/welcome',
      domain_allowlist: ['example.com', '*.example.org'],
      import_sources: ['github', 'git'],
      polling_interval_multiplier: 2.5,
      gravatar_enabled: false,
      rsa_key_restriction: 2048,
      allow_local_requests_from_web_hooks_and_services: true,
      allow_local_requests_from_hooks_and_services: true,
    };
    expect(res.body).toMatchObject(expected);
    expect(await settings()).toMatchObject(expected);
    // A form body (python-gitlab's and curl's) too.
    const form = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'max_attachment_size=30&domain_allowlist=a.example&home_page_url=',
    });
    expect(form.status).toBe(200);
    expect(await settings()).toMatchObject({
      max_attachment_size: 30,
      domain_allowlist: ['a.example'],
      home_page_url: '',
    });
    await put({ allow_local_requests_from_web_hooks_and_services: false });
  });

  it('refuses a wrong type or value with 400 in GitLab shape, and changes nothing', async () => {
    const before = await settings();
    const wrongType = await put({ max_attachment_size: 'lots', default_projects_limit: 5 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ error: 'max_attachment_size is invalid' });
    const notInList = await put({ default_project_visibility: 'secret', default_projects_limit: 5 });
    expect(notInList.status).toBe(400);
    expect(notInList.body).toEqual({ error: 'default_project_visibility does not have a valid value' });
    const wrongValue = await put({
      default_projects_limit: -1,
      throttle_authenticated_api_period_in_seconds: 0,
      gravatar_enabled: true,
    });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body).toEqual({
      message: {
        default_projects_limit: ['must be greater than or equal to 0'],
        throttle_authenticated_api_period_in_seconds: ['must be greater than 0'],
      },
    });
    const level = await put({ restricted_visibility_levels: ['secret'], max_attachment_size: 7 });
    expect(level.status).toBe(400);
    expect(level.body).toEqual({
      message: { restricted_visibility_levels: ["'secret' is not a valid visibility level"] },
    });
    // The default visibility of new projects cannot be a restricted level (it is private here).
    const restrictedDefault = await put({ restricted_visibility_levels: ['private'] });
    expect(restrictedDefault.status).toBe(400);
    expect(restrictedDefault.body).toEqual({
      message: {
        default_project_visibility: ['cannot be set to a restricted visibility level'],
        default_group_visibility: ['cannot be set to a restricted visibility level'],
      },
    });
    expect(await settings()).toEqual(before);
  });

  it("limits each user's personal projects: the limit a user was created with, 403 at the limit", async () => {
    expect((await put({ default_projects_limit: 1 })).body.default_projects_limit).toBe(1);
    const carol = await newUser('carol');
    const shown = await api.get(`/api/v4/users/${carol.id}`, { token: s.rootToken });
    expect(shown.body.projects_limit).toBe(1);
    const first = await api.post('/api/v4/projects', { token: carol.token, body: { name: 'one' } });
    expect(first.status).toBe(201);
    const second = await api.post('/api/v4/projects', { token: carol.token, body: { name: 'two' } });
    expect(second.status).toBe(403);
    expect(second.body).toEqual({
      message: ['Your project limit is 1 projects! Please contact your administrator to increase it'],
    });
    // An administrator creating in carol's namespace meets carol's limit, as GitLab's POST /projects/user/:id.
    const forCarol = await api.post(`/api/v4/projects/user/${carol.id}`, {
      token: s.rootToken,
      body: { name: 'three' },
    });
    expect(forCarol.status).toBe(403);
    // Group projects do not count.
    const group = await api.post('/api/v4/groups', {
      token: carol.token,
      body: { name: 'carols', path: 'carols' },
    });
    expect(group.status).toBe(201);
    const inGroup = await api.post('/api/v4/projects', {
      token: carol.token,
      body: { name: 'grouped', namespace_id: group.body.id },
    });
    expect(inGroup.status).toBe(201);
    // Users created before keep their limit; an administrator can change one user's.
    expect(
      (await api.post('/api/v4/projects', { token: users.bob!.token, body: { name: 'b1' } })).status,
    ).toBe(201);
    expect(
      (await api.post('/api/v4/projects', { token: users.bob!.token, body: { name: 'b2' } })).status,
    ).toBe(201);
    expect(
      (await api.put(`/api/v4/users/${users.bob!.id}`, { token: s.rootToken, body: { projects_limit: 0 } }))
        .body.projects_limit,
    ).toBe(0);
    const none = await api.post('/api/v4/projects', { token: users.bob!.token, body: { name: 'b3' } });
    expect(none.status).toBe(403);
    expect(none.body).toEqual({
      message: ['Personal project creation is not allowed. Please contact your administrator with questions'],
    });
    await api.put(`/api/v4/users/${carol.id}`, { token: s.rootToken, body: { projects_limit: 2 } });
    expect((await api.post('/api/v4/projects', { token: carol.token, body: { name: 'two' } })).status).toBe(
      201,
    );
    await put({ default_projects_limit: 100000 });
  });

  it('throttles authenticated API requests per user: 429, Retry-After and Rack::Attack\'s plain "Retry later"', async () => {
    const dave = await newUser('dave');
    const erin = await newUser('erin');
    await put({
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 3,
      throttle_authenticated_api_period_in_seconds: 60,
    });
    for (let i = 0; i < 3; i++)
      expect((await api.get('/api/v4/user', { token: dave.token })).status).toBe(200);
    const throttled = await api.get('/api/v4/user', { token: dave.token });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toBe('Retry later\n');
    expect(throttled.headers.get('content-type')).toMatch(/^text\/plain/);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(throttled.headers.get('ratelimit-name')).toBe('throttle_authenticated_api');
    expect(throttled.headers.get('ratelimit-limit')).toBe('3');
    // Per user: erin is not held back by dave's requests, and anonymous requests are another throttle.
    expect((await api.get('/api/v4/user', { token: erin.token })).status).toBe(200);
    expect((await api.get('/api/v4/projects')).status).toBe(200);
    // The instance's own text, once the window ends.
    s.clock.advance(61_000);
    await put({ rate_limiting_response_text: 'Slow down, please' });
    s.clock.advance(61_000);
    for (let i = 0; i < 3; i++)
      expect((await api.get('/api/v4/user', { token: dave.token })).status).toBe(200);
    expect((await api.get('/api/v4/user', { token: dave.token })).body).toBe('Slow down, please\n');
    s.clock.advance(61_000);
    await put({ throttle_authenticated_api_enabled: false, rate_limiting_response_text: null });
    for (let i = 0; i < 5; i++)
      expect((await api.get('/api/v4/user', { token: dave.token })).status).toBe(200);
  });

  it('throttles unauthenticated API requests per client address', async () => {
    await put({
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 2,
      throttle_unauthenticated_api_period_in_seconds: 30,
    });
    expect((await api.get('/api/v4/projects')).status).toBe(200);
    expect((await api.get('/api/v5/projects')).status).toBe(200);
    const throttled = await api.get('/api/v4/projects');
    expect(throttled.status).toBe(429);
    expect(throttled.body).toBe('Retry later\n');
    expect(Number(throttled.headers.get('retry-after'))).toBeLessThanOrEqual(30);
    expect(throttled.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_api');
    // Signed-in callers are not counted by address.
    expect((await api.get('/api/v4/projects', { token: users.bob!.token })).status).toBe(200);
    s.clock.advance(31_000);
    expect((await api.get('/api/v4/projects')).status).toBe(200);
    await put({ throttle_unauthenticated_api_enabled: false });
  });

  it('lets people sign up only while signup_enabled is on (off by default)', async () => {
    const signUp = (username: string) =>
      api.post('/-/sign_up', {
        body: { username, name: username, email: `${username}@example.com`, password: 'password-123' },
      });
    expect((await settings()).signup_enabled).toBe(false);
    expect((await signUp('frank')).status).toBe(404);
    await put({ signup_enabled: true, default_projects_limit: 3 });
    const created = await signUp('frank');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: 'frank', is_admin: false });
    const session = await api.post('/-/session', { body: { login: 'frank', password: 'password-123' } });
    expect(session.status).toBe(200);
    const frank = await api.get(`/api/v4/users/${created.body.id}`, { token: s.rootToken });
    expect(frank.body).toMatchObject({ username: 'frank', projects_limit: 3, is_admin: false });
    // A cross-site form cannot sign a visitor up.
    const crossSite = await api.post('/-/sign_up', {
      headers: { 'sec-fetch-site': 'cross-site' },
      body: { username: 'mallory', name: 'm', email: 'm@example.com', password: 'password-123' },
    });
    expect(crossSite.status).toBe(403);
    await put({ signup_enabled: false, default_projects_limit: 100000 });
    expect((await signUp('grace')).status).toBe(404);
    expect((await api.get('/api/v4/users?username=grace', { token: s.rootToken })).body).toEqual([]);
  });

  it('gives new projects, groups and snippets the default visibility; restricted levels are for administrators', async () => {
    const hank = await newUser('hank');
    await put({
      default_project_visibility: 'internal',
      default_group_visibility: 'public',
      default_snippet_visibility: 'internal',
    });
    const project = await api.post('/api/v4/projects', { token: hank.token, body: { name: 'defaults' } });
    expect(project.body.visibility).toBe('internal');
    const group = await api.post('/api/v4/groups', {
      token: hank.token,
      body: { name: 'hanks', path: 'hanks' },
    });
    expect(group.body.visibility).toBe('public');
    const snippet = await api.post('/api/v4/snippets', {
      token: hank.token,
      body: { title: 't', file_name: 'a.txt', content: 'x' },
    });
    expect(snippet.body.visibility).toBe('internal');

    // Public is the default of groups: it cannot be restricted until the default changes.
    expect((await put({ restricted_visibility_levels: 'public' })).status).toBe(400);
    const restricted = await put({
      default_group_visibility: 'private',
      restricted_visibility_levels: '20,internal',
    });
    expect(restricted.status).toBe(400);
    expect(restricted.body).toEqual({
      message: { default_project_visibility: ['cannot be set to a restricted visibility level'] },
    });
    const ok = await put({
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      restricted_visibility_levels: '20,internal',
    });
    expect(ok.status).toBe(200);
    expect(ok.body.restricted_visibility_levels).toEqual(['public', 'internal']);

    const refusal = {
      message: { visibility_level: ['public has been restricted by your GitLab administrator'] },
    };
    const publicProject = await api.post('/api/v4/projects', {
      token: hank.token,
      body: { name: 'loud', visibility: 'public' },
    });
    expect(publicProject.status).toBe(400);
    expect(publicProject.body).toEqual(refusal);
    const publicGroup = await api.post('/api/v4/groups', {
      token: hank.token,
      body: { name: 'loud', path: 'loud', visibility: 'public' },
    });
    expect(publicGroup.status).toBe(400);
    expect(publicGroup.body).toEqual(refusal);
    const publicSnippet = await api.post('/api/v4/snippets', {
      token: hank.token,
      body: { title: 't', file_name: 'b.txt', content: 'y', visibility: 'public' },
    });
    expect(publicSnippet.status).toBe(400);
    const madePublic = await api.put(`/api/v4/projects/${project.body.id}`, {
      token: hank.token,
      body: { visibility: 'public' },
    });
    expect(madePublic.status).toBe(400);
    expect(madePublic.body).toEqual(refusal);
    // The project stays internal (a level already held may stay), and administrators may use every level.
    expect(
      (await api.get(`/api/v4/projects/${project.body.id}`, { token: hank.token })).body.visibility,
    ).toBe('internal');
    const byAdmin = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'announcements', visibility: 'public' },
    });
    expect(byAdmin.status).toBe(201);
    const groups = (await api.get('/api/v4/groups?search=loud', { token: s.rootToken })).body;
    expect(groups).toEqual([]);
    await put({ restricted_visibility_levels: [] });
  });

  it('reads a comma-separated string as the array on every array parameter (token scopes, user ids, query iids)', async () => {
    const ivan = await newUser('ivan');
    const scoped = await api.post(`/api/v4/users/${ivan.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'cli', scopes: 'api,read_user' },
    });
    expect(scoped.status).toBe(201);
    expect(scoped.body.scopes).toEqual(['api', 'read_user']);
    const one = await api.post(`/api/v4/users/${ivan.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'one', scopes: 'read_api' },
    });
    expect(one.body.scopes).toEqual(['read_api']);
    const wrong = await api.post(`/api/v4/users/${ivan.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 'bad', scopes: 'api,root' },
    });
    expect(wrong.status).toBe(400);

    // Integer arrays: an approval rule's eligible users.
    const judy = await newUser('judy');
    const project = (await api.post('/api/v4/projects', { token: ivan.token, body: { name: 'reviewed' } }))
      .body;
    for (const u of [ivan, judy])
      await api.post(`/api/v4/projects/${project.id}/members`, {
        token: ivan.token,
        body: { user_id: u.id, access_level: 30 },
      });
    const rule = await api.post(`/api/v4/projects/${project.id}/approval_rules`, {
      token: ivan.token,
      body: { name: 'team', approvals_required: 1, user_ids: `${ivan.id},${judy.id}` },
    });
    expect(rule.status).toBe(201);
    expect(rule.body.users.map((u: { id: number }) => u.id).sort()).toEqual([ivan.id, judy.id].sort());

    // Query arrays: merge requests by iid, comma-separated or Rails-style.
    const pushed = await pushCommit(authUrl(project.http_url_to_repo, 'ivan', ivan.token));
    expect(pushed.push.code).toBe(0);
    for (const branch of ['a', 'b', 'c']) {
      expect((await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], pushed.dir)).code).toBe(
        0,
      );
      const mr = await api.post(`/api/v4/projects/${project.id}/merge_requests`, {
        token: ivan.token,
        body: { source_branch: branch, target_branch: 'main', title: branch },
      });
      expect(mr.status).toBe(201);
    }
    const iids = async (query: string) =>
      (await api.get(`/api/v4/projects/${project.id}/merge_requests?${query}`, { token: ivan.token })).body
        .map((m: { iid: number }) => m.iid)
        .sort();
    expect(await iids('iids=1,3')).toEqual([1, 3]);
    expect(await iids('iids[]=2&iids[]=3')).toEqual([2, 3]);
    expect(await iids('iids=2')).toEqual([2]);
    expect(await iids('')).toEqual([1, 2, 3]);
    expect(
      (await api.get(`/api/v4/projects/${project.id}/merge_requests?iids=1,x`, { token: ivan.token })).status,
    ).toBe(400);
  });
});
