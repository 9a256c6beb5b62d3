import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createDb, migrate } from '../../src/db/db.js';

/** A log stream kept in memory, one parsed JSON object per line. */
function memoryLog(): { stream: Writable; lines: string[]; entries(): Record<string, unknown>[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines, entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** pino's numeric levels. */
const INFO = 30;
const WARN = 40;

describe('logging', () => {
  it('writes no line per request by default; a failed (5xx) or slow request writes one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const config = loadConfig({ SVC_DATA_DIR: dir, SVC_SLOW_REQUEST_MS: '50' });
    expect(config).toMatchObject({ accessLog: false, slowRequestMs: 50 });
    const db = createDb(config);
    await migrate(db);
    const ctx = createContext(config, db);
    const log = memoryLog();
    const app = await buildApp(ctx, { logger: { ...(loggerOptions('info') as object), stream: log.stream } });
    // Routes that fail and that take their time, beside the application's own.
    app.get('/test/boom', async () => {
      throw new Error('boom for the log');
    });
    app.get('/test/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      return { ok: true };
    });
    // As git smart HTTP answers a clone: its time is the transfer's, no slow request.
    app.get('/test/pack', async (_request, reply) => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      return reply.type('application/x-git-upload-pack-result').send(Buffer.from('0008NAK\n'));
    });
    expect((await app.inject({ url: '/test/pack' })).statusCode).toBe(200);
    for (const url of ['/-/health', '/api/v4/version', '/api/v4/user', '/api/v4/no-such-route', '/-/health'])
      await app.inject({ url });
    // Only requests: the quiet default leaves no line at all for answered requests, 2xx or 4xx.
    expect(log.lines).toEqual([]);
    expect(
      (await app.inject({ url: '/test/boom', headers: { 'x-request-id': 'req-boom' } })).statusCode,
    ).toBe(500);
    expect(
      (await app.inject({ url: '/test/slow', headers: { 'x-request-id': 'req-slow' } })).statusCode,
    ).toBe(200);
    await app.close();
    await db.close();
    const entries = log.entries();
    const failed = entries.find((e) => e.msg === 'request failed');
    expect(failed).toMatchObject({ level: WARN, reqId: 'req-boom', res: { statusCode: 500 } });
    expect(failed?.req).toMatchObject({ method: 'GET', url: '/test/boom' });
    expect(entries.some((e) => e.msg === 'unhandled error' && e.reqId === 'req-boom')).toBe(true);
    const slow = entries.find((e) => e.msg === 'slow request');
    expect(slow).toMatchObject({
      level: WARN,
      reqId: 'req-slow',
      slowRequestMs: 50,
      res: { statusCode: 200 },
    });
    expect(slow?.responseTime).toBeGreaterThan(50);
    expect(entries.filter((e) => (e.level as number) <= INFO)).toEqual([]);
  });

  it('writes one line per request at debug level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const config = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'debug' });
    const db = createDb(config);
    await migrate(db);
    const ctx = createContext(config, db);
    const log = memoryLog();
    const app = await buildApp(ctx, {
      logger: { ...(loggerOptions('debug') as object), stream: log.stream },
    });
    for (const url of ['/-/health', '/api/v4/version', '/-/health']) await app.inject({ url });
    await app.close();
    await db.close();
    const completed = log.entries().filter((e) => e.msg === 'request completed');
    expect(completed.map((e) => (e.req as { url: string }).url)).toEqual([
      '/-/health',
      '/api/v4/version',
      '/-/health',
    ]);
    expect(completed.every((e) => e.level === 20)).toBe(true);
  });

  it('writes JSON lines with request ids and never logs credentials (access log on)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const token = 'svcpat-logging-secret-token-0001';
    const config = loadConfig({
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'root-password-1',
      SVC_ROOT_TOKEN: token,
      SVC_ACCESS_LOG: 'true',
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
    // One line per request, at info, with its request, status and time.
    const completed = lines.map((l) => JSON.parse(l)).filter((e) => e.msg === 'request completed');
    expect(completed).toHaveLength(8);
    expect(completed[0]).toMatchObject({
      level: INFO,
      req: { method: 'GET', url: '/api/v4/user' },
      res: { statusCode: 200 },
    });
    expect(typeof completed[0].responseTime).toBe('number');
    expect(all).not.toContain(token);
    expect(all).not.toContain('root-password-1');
    expect(all).not.toContain(key);
    expect(all).not.toContain(basic);
    expect(all).toContain('private_token=[REDACTED]');
  });
});
