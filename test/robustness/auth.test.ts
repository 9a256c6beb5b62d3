import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import { createDb, type Db, migrate } from '../../src/db/db.js';

/** Sends one raw HTTP/1.1 request and returns the status line and body. */
function raw(port: number, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => {
      data += String(d);
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(request);
  });
}

// Finding 11: credentials in logged URLs, whatever the spelling of the parameter name.
describe('request logging never shows credentials', () => {
  const token = 'svcpat-logging-secret-token-0011';
  const lines: string[] = [];
  let dir: string;
  let db: Db;
  let ctx: AppContext;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
    const config = loadConfig({
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'root-password-1',
      SVC_ROOT_TOKEN: token,
    });
    db = createDb(config);
    await migrate(db);
    ctx = createContext(config, db);
    await ctx.users.bootstrap({ rootPassword: config.rootPassword, rootToken: config.rootToken });
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp(ctx, { logger: { ...(loggerOptions('info') as object), stream } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('masks percent-encoded and other credential parameter names (private%5Ftoken authenticates, as in GitLab)', async () => {
    // Rack decodes parameter names, so GitLab accepts `private%5Ftoken`; svc does too, and must not log it.
    const encoded = await app.inject({ url: `/api/v4/user?private%5Ftoken=${token}` });
    expect(encoded.statusCode).toBe(200);
    expect(encoded.json().username).toBe('root');
    const urls = [
      `/api/v4/user?private%5ftoken=${token}`,
      `/api/v4/user?%70rivate_token=${token}`,
      `/api/v4/user?access%5Ftoken=${token}`,
      `/api/v4/user?a=1&PRIVATE_TOKEN=${token}`,
      `/api/v4/user?job_token=${token}`,
      `/api/v4/user?password=${token}`,
      `/api/v4/user?private_token%=${token}`,
      `/api/v4/user?private%255Ftoken=${token}`,
      `/api/v4/user?x=1;private_token=${token}`,
      `/api/v4/user?q=${token}`,
      `/api/v4/user?q=${encodeURIComponent(`https://u:${token}@example.com/`)}`,
      `/api/1/envelope/?sentry_key=${token}&sentry_version=7`,
      `/api/1/store/?sentry%5Fkey=${token}&sentry_secret=${token}`,
      `/root/p/-/error_tracking/projects.json?api_host=https://sentry.example.com&%74oken=${token}`,
    ];
    for (const url of urls) {
      const r = await app.inject({ url });
      expect(r.statusCode).toBeGreaterThanOrEqual(200);
      expect(r.statusCode).toBeLessThan(500);
    }
    // An absolute-form request target with userinfo, and a bad URL, from a raw socket.
    const abs = await raw(
      port,
      `GET http://root:${token}@127.0.0.1:${port}/api/v4/user?private%5Ftoken=${token} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(abs.status).toBeGreaterThan(0);
    const bad = await raw(
      port,
      `GET /api/v4/%ZZ?private%5Ftoken=${token} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    const health = await app.inject({ url: '/-/health' });
    expect(health.json()).toEqual({ status: 'ok' });

    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(urls.length);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(all).not.toContain(token);
    expect(all).not.toContain(encodeURIComponent(token));
    expect(all).toContain('private%5Ftoken=[REDACTED]');
  });
});
