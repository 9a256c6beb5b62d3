import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntegration, notify } from '../helpers/alerts.js';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(await databases())('ETag and 304 on API reads (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it('answers 304 while a list is unchanged and 200 with a new tag once an alert arrives', async () => {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'tagged' } });
    const i = await createIntegration(api, s.rootToken, p.body.id, { name: 'X', type: 'http' });
    await notify(i.url, i.authorization_key, { title: 'first', fingerprint: 'f1' });
    const list = `/api/v4/projects/${p.body.id}/alert_management/alerts?per_page=20`;

    const first = await api.get(list, { token: s.rootToken });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);

    const same = await api.get(list, { token: s.rootToken, headers: { 'If-None-Match': tag! } });
    expect(same.status).toBe(304);
    expect(same.body).toBe('');
    expect(same.headers.get('etag')).toBe(tag);
    // Weak comparison: the strong form of the same tag, in a list of tags, matches too.
    const listed = await api.get(list, {
      token: s.rootToken,
      headers: { 'If-None-Match': `"other", ${tag!.slice(2)}` },
    });
    expect(listed.status).toBe(304);

    await notify(i.url, i.authorization_key, { title: 'second', fingerprint: 'f2' });
    const changed = await api.get(list, { token: s.rootToken, headers: { 'If-None-Match': tag! } });
    expect(changed.status).toBe(200);
    expect((changed.body as unknown[]).length).toBe(2);
    expect(changed.headers.get('etag')).not.toBe(tag);

    // A status change alters the body, so the old tag no longer matches.
    const counts = `/api/v4/projects/${p.body.id}/alert_management/alerts/counts`;
    const c1 = await api.get(counts, { token: s.rootToken });
    await api.put(`/api/v4/projects/${p.body.id}/alert_management/alerts/1`, {
      token: s.rootToken,
      body: { status: 'acknowledged' },
    });
    const c2 = await api.get(counts, {
      token: s.rootToken,
      headers: { 'If-None-Match': c1.headers.get('etag')! },
    });
    expect(c2.status).toBe(200);
    expect(c2.body).toMatchObject({ acknowledged: 1 });
  });

  it('tags pages apart, and gives no tag to failures or writes', async () => {
    const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'paged' } });
    const i = await createIntegration(api, s.rootToken, p.body.id, { name: 'X', type: 'http' });
    for (let n = 1; n <= 3; n++)
      await notify(i.url, i.authorization_key, { title: `A${n}`, fingerprint: `f${n}` });
    const base = `/api/v4/projects/${p.body.id}/alert_management/alerts?per_page=1`;
    const one = await api.get(`${base}&page=1`, { token: s.rootToken });
    const two = await api.get(`${base}&page=2`, {
      token: s.rootToken,
      headers: { 'If-None-Match': one.headers.get('etag')! },
    });
    expect(two.status).toBe(200);
    expect(two.headers.get('etag')).not.toBe(one.headers.get('etag'));

    const missing = await api.get('/api/v4/projects/999999/alert_management/alerts', {
      token: s.rootToken,
      headers: { 'If-None-Match': '*' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
    const put = await api.put(`/api/v4/projects/${p.body.id}/alert_management/alerts/1`, {
      token: s.rootToken,
      body: { status: 'resolved' },
      headers: { 'If-None-Match': '*' },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBeNull();
  });
});
