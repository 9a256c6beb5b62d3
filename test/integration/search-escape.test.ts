import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('searches: private e-mails and LIKE wildcards (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let userToken: string;

  beforeAll(async () => {
    s = await startTestServer({ database, env: { SVC_OFFERING: 'hosted' } });
    api = http(s.url);
    const u = await api.post('/api/v4/users', {
      token: s.rootToken,
      body: { username: 'prober', name: 'Prober', email: 'prober@example.com', password: 'password-123' },
    });
    const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
      token: s.rootToken,
      body: { name: 't', scopes: ['api'] },
    });
    userToken = t.body.token;
    await api.post('/api/v4/users', {
      token: s.rootToken,
      body: {
        username: 'target',
        name: 'Target',
        email: 'hidden.secret@corp.example',
        password: 'password-123',
      },
    });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const names = (r: { body: unknown }) =>
    (r.body as { username?: string; name?: string }[]).map((x) => x.username ?? x.name);

  it('a signed-in user cannot find anyone by a piece of their private e-mail', async () => {
    for (const q of ['hidden', 'secret@corp', 'h%', 'hidden.secret@corp.example', '%', '_'])
      expect(
        names(await api.get(`/api/v4/users?search=${encodeURIComponent(q)}`, { token: userToken })),
      ).toEqual([]);
    // Name and username still match, for everyone.
    expect(names(await api.get('/api/v4/users?search=targ', { token: userToken }))).toEqual(['target']);
    // An admin finds a user by the whole address (GitLab), not by a piece of it.
    expect(
      names(await api.get('/api/v4/users?search=Hidden.Secret@corp.example', { token: s.rootToken })),
    ).toEqual(['target']);
    expect(names(await api.get('/api/v4/users?search=secret@corp', { token: s.rootToken }))).toEqual([]);
  });

  it('% and _ match themselves in every search', async () => {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'wild_card' } });
    expect(p.status).toBe(201);
    await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'wildxcard' } });
    const projects = async (q: string) =>
      names(await api.get(`/api/v4/projects?search=${encodeURIComponent(q)}`, { token: s.rootToken }));
    expect(await projects('d_c')).toEqual(['wild_card']);
    expect(await projects('wild%card')).toEqual([]);

    await api.post('/api/v4/groups', { token: s.rootToken, body: { name: 'g_one', path: 'g_one' } });
    await api.post('/api/v4/groups', { token: s.rootToken, body: { name: 'gxone', path: 'gxone' } });
    const groups = await api.get('/api/v4/groups?search=g_o', { token: s.rootToken });
    expect(names(groups)).toEqual(['g_one']);

    const members = await api.get(`/api/v4/projects/${p.body.id}/members?query=%25`, { token: s.rootToken });
    expect(members.status).toBe(200);
    expect(members.body).toEqual([]);

    await api.put(`/api/v4/projects/${p.body.id}/error_tracking/settings`, {
      token: s.rootToken,
      body: { active: true, integrated: true },
    });
    const key = (
      await api.get(`/api/v4/projects/${p.body.id}/error_tracking/client_keys`, { token: s.rootToken })
    ).body[0].public_key as string;
    for (const type of ['Disk_Error', 'DiskXError']) {
      const r = await fetch(
        `${s.url}/api/v4/error_tracking/collector/api/${p.body.id}/store/?sentry_key=${key}`,
        {
          method: 'POST',
          body: JSON.stringify({
            event_id: randomUUID().replace(/-/g, ''),
            timestamp: Date.now() / 1000,
            exception: { values: [{ type, value: 'it broke' }] },
          }),
        },
      );
      expect(r.status).toBe(200);
    }
    const errors = await api.get(`/api/v4/projects/${p.body.id}/error_tracking/errors?search=k_E`, {
      token: s.rootToken,
    });
    expect((errors.body as { type: string }[]).map((e) => e.type)).toEqual(['Disk_Error']);

    const integration = await createIntegration(api, s.rootToken, p.body.id, { name: 'http', type: 'http' });
    for (const title of ['cpu 100% busy', 'cpu 1000 busy'])
      expect((await notify(integration.url, integration.authorization_key, { title })).status).toBe(200);
    for (const q of ['0%', '100% b', '%']) {
      const alerts = await api.get(
        `/api/v4/projects/${p.body.id}/alert_management/alerts?search=${encodeURIComponent(q)}`,
        { token: s.rootToken },
      );
      expect((alerts.body as { title: string }[]).map((a) => a.title)).toEqual(['cpu 100% busy']);
    }
  });
});
