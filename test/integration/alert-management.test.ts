import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROLES = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;

describe.each(await databases())('alert management (%s)', (database) => {
  let free: TestServer;
  let premium: TestServer;

  /** Users with each role on a new project; returns their tokens and the project id. */
  let runs = 0;
  async function setup(s: TestServer) {
    const api = http(s.url);
    const n = ++runs;
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: `Managed ${n}` } });
    const tokens: Record<string, string> = {};
    for (const [role, level] of Object.entries(ROLES)) {
      const u = await api.post('/api/v4/users', {
        token: s.rootToken,
        body: {
          username: `${role}${n}`,
          name: role,
          email: `${role}${n}@example.com`,
          password: 'password-123',
        },
      });
      await api.post(`/api/v4/projects/${p.body.id}/members`, {
        token: s.rootToken,
        body: { user_id: u.body.id, access_level: level },
      });
      const t = await api.post(`/api/v4/users/${u.body.id}/personal_access_tokens`, {
        token: s.rootToken,
        body: { name: 't', scopes: ['api'] },
      });
      tokens[role] = t.body.token;
    }
    return { api, projectId: p.body.id as number, tokens };
  }

  beforeAll(async () => {
    [free, premium] = await Promise.all([
      startTestServer({ database }),
      startTestServer({ database, env: { SVC_TIER: 'premium' } }),
    ]);
  });
  afterAll(async () => {
    await free?.stop();
    await premium?.stop();
  });

  it('needs Maintainer to list, create, edit, delete and reset; Developer may send a test alert', async () => {
    const { api, projectId, tokens } = await setup(free);
    const base = `/api/v4/projects/${projectId}/alert_management/integrations`;
    for (const role of ['guest', 'reporter', 'developer']) {
      expect((await api.get(base, { token: tokens[role] })).status, role).toBe(403);
      expect(
        (await api.post(base, { token: tokens[role], body: { name: 'x', type: 'http' } })).status,
        role,
      ).toBe(403);
    }
    const created = await api.post(base, { token: tokens.maintainer, body: { name: 'Main', type: 'http' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const list = await api.get(base, { token: tokens.maintainer });
    expect(list.body).toEqual([expect.objectContaining({ id, name: 'Main', type: 'http', active: true })]);
    expect(list.body[0].authorization_key).toMatch(/^[0-9a-f]{32}$/);
    expect((await api.put(`${base}/${id}`, { token: tokens.developer, body: { name: 'y' } })).status).toBe(
      403,
    );
    expect(
      (await api.post(`${base}/${id}/reset_authorization_key`, { token: tokens.developer })).status,
    ).toBe(403);
    expect((await api.delete(`${base}/${id}`, { token: tokens.developer })).status).toBe(403);
    expect(
      (await api.post(`${base}/${id}/test`, { token: tokens.reporter, body: { title: 't' } })).status,
    ).toBe(403);
    const test = await api.post(`${base}/${id}/test`, {
      token: tokens.developer,
      body: { title: 'Test alert' },
    });
    expect(test).toMatchObject({ status: 200, body: [{ iid: 1, title: 'Test alert' }] });
    const invalid = await api.post(`${base}/${id}/test`, {
      token: tokens.developer,
      raw: '{"title": "half',
      headers: { 'content-type': 'text/plain' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/not valid JSON/);
    const invalidJson = await api.post(`${base}/${id}/test`, {
      token: tokens.developer,
      raw: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(invalidJson.status).toBe(400);
    const count = await api.get(`/api/v4/projects/${projectId}/alert_management/alerts`, {
      token: tokens.reporter,
    });
    expect(count.body).toHaveLength(1);
    // Reset: the old key stops working, the new one works.
    const oldKey = created.body.authorization_key;
    const reset = await api.post(`${base}/${id}/reset_authorization_key`, { token: tokens.maintainer });
    expect(reset.body.authorization_key).not.toBe(oldKey);
    expect((await notify(reset.body.url, oldKey, { title: 'old' })).status).toBe(401);
    expect((await notify(reset.body.url, reset.body.authorization_key, { title: 'new' })).status).toBe(200);
    expect((await api.delete(`${base}/${id}`, { token: tokens.maintainer })).status).toBe(204);
    expect((await notify(reset.body.url, reset.body.authorization_key, { title: 'gone' })).status).toBe(403);
  });

  it('on Free: one HTTP endpoint, no custom mapping, no on-call link (clear 403s)', async () => {
    const { api, projectId } = await setup(free);
    const base = `/api/v4/projects/${projectId}/alert_management/integrations`;
    await createIntegration(api, free.rootToken, projectId, { name: 'One', type: 'http' });
    const second = await api.post(base, { token: free.rootToken, body: { name: 'Two', type: 'http' } });
    expect(second).toMatchObject({
      status: 403,
      body: { message: expect.stringMatching(/Premium or Ultimate/) },
    });
    const mapping = await api.post(base, {
      token: free.rootToken,
      body: { name: 'Prom', type: 'prometheus', api_url: 'http://x.invalid', payload_example: '{"a": 1}' },
    });
    expect(mapping.body.message).toMatch(/Custom field mapping/);
    const oncall = await api.post(base, {
      token: free.rootToken,
      body: { name: 'Pager', type: 'oncall_link', api_url: 'https://oncall.example/alerts' },
    });
    expect(oncall.status).toBe(403);
    const noUrl = await api.post(base, { token: free.rootToken, body: { name: 'Prom', type: 'prometheus' } });
    expect(noUrl).toMatchObject({ status: 400, body: { message: { api_url: ["can't be blank"] } } });
    const list = await api.get(base, { token: free.rootToken });
    expect(list.body).toHaveLength(1);
    // Saving the (empty) sample payload and mapping every integration has is not custom mapping.
    const unchanged = await api.put(`${base}/${list.body[0].id}`, {
      token: free.rootToken,
      body: { name: 'Renamed', payload_example: '{}', payload_attribute_mapping: {} },
    });
    expect(unchanged).toMatchObject({ status: 200, body: { name: 'Renamed' } });
  });

  it('on Premium: several endpoints, mapping validation, and the deprecated on-call link deactivating the others', async () => {
    const { api, projectId, tokens } = await setup(premium);
    const base = `/api/v4/projects/${projectId}/alert_management/integrations`;
    const a = await createIntegration(api, premium.rootToken, projectId, { name: 'A', type: 'http' });
    const b = await createIntegration(api, premium.rootToken, projectId, { name: 'B', type: 'http' });
    expect(a.url).not.toBe(b.url);
    const badJson = await api.post(base, {
      token: premium.rootToken,
      body: { name: 'C', type: 'http', payload_example: '{oops' },
    });
    expect(badJson).toMatchObject({
      status: 400,
      body: { message: { payload_example: [expect.stringMatching(/valid JSON/)] } },
    });
    const badMap = await api.post(base, {
      token: premium.rootToken,
      body: {
        name: 'C',
        type: 'http',
        payload_attribute_mapping: {
          colour: { path: ['x'], type: 'string' },
          title: { path: [], type: 'string' },
        },
      },
    });
    expect(badMap.status).toBe(400);
    expect(badMap.body.message.payload_attribute_mapping).toHaveLength(2);

    const oncall = await api.post(base, {
      token: tokens.maintainer,
      body: { name: 'Pager', type: 'oncall_link', api_url: 'https://oncall.example/alerts' },
    });
    expect(oncall.status).toBe(201);
    expect(oncall.headers.get('deprecation')).toBe('@1611273600');
    expect(oncall.headers.get('link')).toMatch(/rel="deprecation"/);
    expect(oncall.body).toMatchObject({
      type: 'oncall_link',
      url: null,
      api_url: 'https://oncall.example/alerts',
    });
    const list = await api.get(base, { token: premium.rootToken });
    expect(list.body.map((i: { name: string; active: boolean }) => [i.name, i.active])).toEqual([
      ['A', false],
      ['B', false],
      ['Pager', true],
    ]);
    expect((await notify(a.url, a.authorization_key, { title: 'x' })).status).toBe(403);
    const reactivate = await api.put(`${base}/${a.id}`, { token: premium.rootToken, body: { active: true } });
    expect(reactivate.status).toBe(422);
    await api.put(`${base}/${oncall.body.id}`, { token: premium.rootToken, body: { active: false } });
    expect(
      (await api.put(`${base}/${a.id}`, { token: premium.rootToken, body: { active: true } })).status,
    ).toBe(200);
    expect((await notify(a.url, a.authorization_key, { title: 'back' })).status).toBe(200);
    expect(
      (await api.get(`${base}/${a.id}`, { token: premium.rootToken })).headers.get('deprecation'),
    ).toBeNull();
  });

  it('lets Reporters read alerts and Developers change their status, with notes', async () => {
    const { api, projectId, tokens } = await setup(free);
    const i = await createIntegration(api, free.rootToken, projectId, { name: 'X', type: 'http' });
    await notify(i.url, i.authorization_key, { title: 'One', fingerprint: 'one' });
    await notify(i.url, i.authorization_key, { title: 'Two', fingerprint: 'two', severity: 'low' });
    const base = `/api/v4/projects/${projectId}/alert_management/alerts`;
    expect((await api.get(base, { token: tokens.guest })).status).toBe(403);
    const list = await api.get(`${base}?order_by=severity&sort=desc`, { token: tokens.reporter });
    expect(list.body.map((a: { title: string }) => a.title)).toEqual(['One', 'Two']);
    expect(list.headers.get('x-total')).toBe('2');
    expect((await api.get(`${base}?search=tw`, { token: tokens.reporter })).body).toHaveLength(1);
    expect(
      (await api.put(`${base}/1`, { token: tokens.reporter, body: { status: 'acknowledged' } })).status,
    ).toBe(403);
    const bad = await api.put(`${base}/1`, { token: tokens.developer, body: { status: 'sleeping' } });
    expect(bad).toMatchObject({ status: 400, body: { error: 'status does not have a valid value' } });
    const ack = await api.put(`${base}/1`, { token: tokens.developer, body: { status: 'acknowledged' } });
    expect(ack.body).toMatchObject({ status: 'acknowledged', ended_at: null });
    const resolved = await api.put(`${base}/1`, { token: tokens.developer, body: { status: 'resolved' } });
    expect(resolved.body.ended_at).not.toBeNull();
    const counts = await api.get(`${base}/counts`, { token: tokens.reporter });
    expect(counts.body).toEqual({ triggered: 1, acknowledged: 0, resolved: 1, ignored: 0, open: 1, all: 2 });
    expect(
      (await api.get(`${base}?status=resolved`, { token: tokens.reporter })).body.map(
        (a: { iid: number }) => a.iid,
      ),
    ).toEqual([1]);
    const open = await api.get(`${base}?status=open`, { token: tokens.reporter });
    expect(open.body.map((a: { iid: number }) => a.iid)).toEqual([2]);
    const notes = await api.get(`${base}/1/notes`, { token: tokens.reporter });
    expect(
      notes.body.map((n: { body: string; author: { username: string } }) => [n.body, n.author.username]),
    ).toEqual([
      ['logged an alert from **X**', 'alert-bot'],
      ['changed the status to **Acknowledged**', expect.stringMatching(/^developer\d+$/)],
      ['changed the status to **Resolved**', expect.stringMatching(/^developer\d+$/)],
    ]);
    expect((await api.get(`${base}/99`, { token: tokens.reporter })).body).toEqual({
      message: '404 Alert Not Found',
    });
    expect(
      (
        await api.put(`/api/v4/projects/${projectId}/alert_management/settings`, {
          token: tokens.developer,
          body: { create_incident: true },
        })
      ).status,
    ).toBe(403);
  });
});
