import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { AppContext } from '../../src/app-context.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createDb, type Db, migrate } from '../../src/db/db.js';

/** A GitLab-shaped error body: `{"message": ...}` or `{"error": ...}`. */
function gitlabShaped(body: unknown): boolean {
  return typeof body === 'object' && body !== null && ('message' in body || 'error' in body);
}

// Every credential-carrying input of the auth layer (token header, Bearer, query tokens with any name spelling,
// Sudo, the sign-in body, git Basic auth) answers a typed 4xx, never a 500, and stores nothing.
describe('authentication inputs (property)', () => {
  let dir: string;
  let db: Db;
  let ctx: AppContext;
  let app: Awaited<ReturnType<typeof buildApp>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-authprop-'));
    // The per-address limit would turn later runs into 429s; it has its own test.
    const config = loadConfig({
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'root-password-1',
      SVC_LOGIN_FAILURES_PER_IP: '100000',
      SVC_MAX_LOGIN_ATTEMPTS: '1000',
    });
    db = createDb(config);
    await migrate(db);
    ctx = createContext(config, db);
    await ctx.users.bootstrap({ rootPassword: config.rootPassword, rootToken: null });
    app = await buildApp(ctx);
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const headerValue = fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
  const queryName = fc.constantFrom(
    'private_token',
    'private%5Ftoken',
    'access_token',
    'sudo',
    'x',
    '%ZZ',
    'a[b]',
  );

  it('token headers, query tokens and Sudo never cause a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            privateToken: headerValue,
            authorization: fc.oneof(
              headerValue,
              headerValue.map((v) => `Bearer ${v}`),
            ),
            sudo: headerValue,
          },
          { requiredKeys: [] },
        ),
        fc.array(fc.tuple(queryName, fc.string({ maxLength: 20 })), { maxLength: 3 }),
        fc.constantFrom('GET', 'POST', 'DELETE'),
        async (h, query, method) => {
          const headers: Record<string, string> = {};
          if (h.privateToken !== undefined) headers['private-token'] = h.privateToken;
          if (h.authorization !== undefined) headers.authorization = h.authorization;
          if (h.sudo !== undefined) headers.sudo = h.sudo;
          const qs = query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
          const r = await app.inject({ method: method as 'GET', url: `/api/v4/projects?${qs}`, headers });
          expect(r.statusCode).toBeGreaterThanOrEqual(200);
          expect(r.statusCode).toBeLessThan(500);
          if (r.statusCode >= 400) expect(gitlabShaped(r.json())).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('sign-in bodies of any shape answer 400, 401 or 403, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ login: fc.string({ maxLength: 40 }), password: fc.string({ maxLength: 40 }) }),
          fc.jsonValue({ maxDepth: 3 }),
        ),
        async (body) => {
          const r = await app.inject({
            method: 'POST',
            url: '/-/session',
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
          expect([400, 401, 403]).toContain(r.statusCode);
          expect(gitlabShaped(r.json())).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('git Basic credentials of any shape answer 401 or 404, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 40 }), fc.base64String({ maxLength: 40 })),
        async (cred) => {
          const r = await app.inject({
            url: '/root/nothing.git/info/refs?service=git-upload-pack',
            headers: { authorization: `Basic ${Buffer.from(cred).toString('base64')}` },
          });
          expect([401, 404]).toContain(r.statusCode);
        },
      ),
      { numRuns: 50 },
    );
    // Nothing was stored by any of it: root has no sessions, no project exists.
    const sessions = await db.kysely.selectFrom('sessions').select('id').execute();
    expect(sessions).toEqual([]);
    expect(await db.kysely.selectFrom('projects').select('id').execute()).toEqual([]);
    expect((await app.inject({ url: '/-/health' })).json()).toEqual({ status: 'ok' });
  });
});
