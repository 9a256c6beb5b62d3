import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Property: whatever JSON (or not-JSON) a client sends to the storage move, merge request, runner registration and
 * audit destination endpoints, svc answers with a status below 500, every 4xx body is GitLab-shaped
 * (`{"message": ...}` or `{"error": ...}`), and the server keeps answering.
 */
describe('hostile bodies on move, merge request and token endpoints (property)', () => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let projectId: number;

  beforeAll(async () => {
    s = await startTestServer({ env: { SVC_RELEASE: '16.11' } });
    api = http(s.url);
    projectId = (await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'prop' } })).body.id;
    // Nothing scheduled here ever runs: the worker stays stopped, so repositories are never touched.
    await s.server.ctx.jobs.stop();
  });
  afterAll(async () => {
    await s?.stop();
  });

  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.constantFrom('default', 'main', '../../etc/passwd', '\u0000', 'x'.repeat(5000), 'fast'),
  );
  const field = fc.constantFrom(
    'destination_storage_name',
    'source_storage_name',
    'source_branch',
    'target_branch',
    'title',
    'state_event',
    'token',
    'destination_url',
    '__proto__',
    'constructor',
  );
  const body = fc.oneof(
    fc.dictionary(field, value, { maxKeys: 4 }).map((o) => JSON.stringify(o)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
  );
  const target = fc.constantFrom(
    ['POST', () => `/api/v4/projects/${projectId}/repository_storage_moves`],
    ['POST', () => '/api/v4/project_repository_storage_moves'],
    ['POST', () => '/api/v4/snippet_repository_storage_moves'],
    ['POST', () => `/api/v4/projects/${projectId}/merge_requests`],
    ['PUT', () => `/api/v4/projects/${projectId}/merge_requests/1`],
    ['POST', () => '/api/v4/runners'],
    ['POST', () => '/api/v4/admin/audit_events/streaming/destinations'],
  ) as fc.Arbitrary<[string, () => string]>;

  it('answers every body with a GitLab-shaped answer below 500', async () => {
    await fc.assert(
      fc.asyncProperty(target, body, fc.boolean(), async ([method, path], raw, authed) => {
        const res = await fetch(`${s.url}${path()}`, {
          method,
          headers: {
            'content-type': 'application/json',
            ...(authed && { 'PRIVATE-TOKEN': s.rootToken }),
          },
          body: raw,
        });
        const text = await res.text();
        expect(res.status, `${method} ${path()} ${raw} -> ${text}`).toBeLessThan(500);
        if (res.status >= 400) {
          const parsed = JSON.parse(text) as Record<string, unknown>;
          expect('message' in parsed || 'error' in parsed, text).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
    expect((await api.get('/-/health')).status).toBe(200);
  });
});
