import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A GET with the path sent exactly as written (fetch would refuse or re-encode a malformed escape). */
function rawGet(base: string, path: string, token: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = request(
      { host: u.hostname, port: u.port, path, headers: { 'PRIVATE-TOKEN': token } },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += String(d);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Values the database cannot hold (ids beyond PostgreSQL's integer range, NUL in text) and malformed path
 * encodings: a GitLab-shaped 4xx, nothing stored, the server still answering. Before the fix PostgreSQL's
 * refusals surfaced as 500s and the router's own 400 had Fastify's body.
 */
describe.each(await databases())('values the database refuses (%s)', (database) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ database });
  });
  afterAll(async () => s?.stop());

  it('answers ids beyond the integer range with a 4xx, never 500', async () => {
    const api = http(s.url);
    for (const path of [
      '/api/v4/projects/99999999999999999',
      '/api/v4/users/99999999999999',
      '/api/v4/groups/99999999999999999',
      '/api/v4/snippets/99999999999999',
      '/api/v4/projects/99999999999999999/alert_management/alerts',
    ]) {
      const res = await api.get(path, { token: s.rootToken });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body, path).toHaveProperty('message');
    }
  });

  it('refuses NUL in stored text on PostgreSQL with 400 and stores nothing; SQLite stores it intact', async () => {
    const api = http(s.url);
    const before = await api.get<unknown[]>('/api/v4/projects', { token: s.rootToken });
    const res = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'nul-test', description: 'x\u0000y' },
    });
    const after = await api.get<unknown[]>('/api/v4/projects', { token: s.rootToken });
    if (database === 'postgres') {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: '400 Bad request - a value is invalid' });
      expect(after.body).toHaveLength(before.body.length);
    } else {
      expect(res.status).toBe(201);
      expect((res.body as { description: string }).description).toBe('x\u0000y');
    }
  });

  it('answers a malformed percent-encoding in the path with a GitLab-shaped 400', async () => {
    const res = await rawGet(s.url, '/api/v4/projects/abc%ZZ', s.rootToken);
    expect(res).toEqual({ status: 400, body: { error: '400 Bad request - the URL is not valid' } });
    expect((await http(s.url).get('/-/health')).status).toBe(200);
  });
});
