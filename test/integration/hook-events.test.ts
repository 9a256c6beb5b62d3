import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { allowLocalHooks } from '../helpers/hook-receiver.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

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
    await drain(s);
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
