import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createDb, migrate } from '../../src/db/db.js';

describe('logging', () => {
  it('writes JSON lines with request ids and never logs credentials', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const token = 'svcpat-logging-secret-token-0001';
    const config = loadConfig({
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'root-password-1',
      SVC_ROOT_TOKEN: token,
    });
    const db = createDb(config);
    await migrate(db);
    const ctx = createContext(config, db);
    await ctx.users.bootstrap({ rootPassword: config.rootPassword, rootToken: config.rootToken });
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const app = await buildApp(ctx, { logger: { ...(loggerOptions('info') as object), stream } });
    const a = await app.inject({
      url: '/api/v4/user',
      headers: { 'PRIVATE-TOKEN': token, 'x-request-id': 'req-123' },
    });
    expect(a.statusCode).toBe(200);
    expect(a.headers['x-request-id']).toBe('req-123');
    await app.inject({ url: `/api/v4/user?private_token=${token}` });
    await app.inject({
      url: '/api/v4/user',
      headers: { authorization: `Bearer ${token}`, cookie: '_svc_session=abc' },
    });
    await app.inject({
      method: 'POST',
      url: '/-/session',
      payload: { login: 'root', password: 'root-password-1' },
    });
    // An alert notify request: the integration key must not reach the logs either.
    const project = await app.inject({
      method: 'POST',
      url: '/api/v4/projects',
      headers: { 'PRIVATE-TOKEN': token },
      payload: { name: 'logged' },
    });
    const integration = await app.inject({
      method: 'POST',
      url: `/api/v4/projects/${project.json().id}/alert_management/integrations`,
      headers: { 'PRIVATE-TOKEN': token },
      payload: { name: 'Logged', type: 'http' },
    });
    const { url, authorization_key: key } = integration.json() as { url: string; authorization_key: string };
    const basic = Buffer.from(`:${key}`).toString('base64');
    for (const authorization of [`Bearer ${key}`, `Basic ${basic}`]) {
      const notify = await app.inject({
        method: 'POST',
        url: new URL(url).pathname,
        headers: { authorization, 'content-type': 'application/json' },
        payload: { title: 'logged alert' },
      });
      expect(notify.statusCode).toBe(200);
    }
    await app.close();
    await db.close();
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.some((l) => JSON.parse(l).reqId === 'req-123')).toBe(true);
    expect(all).not.toContain(token);
    expect(all).not.toContain('root-password-1');
    expect(all).not.toContain(key);
    expect(all).not.toContain(basic);
    expect(all).toContain('private_token=[REDACTED]');
  });
});
