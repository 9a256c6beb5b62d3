import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, start } from '../../src/server.js';
import { createPostgresDatabase, type DatabaseKind } from './databases.js';

export interface TestServer {
  readonly url: string;
  readonly rootPassword: string;
  readonly rootToken: string;
  readonly dataDir: string;
  readonly server: RunningServer;
  stop(): Promise<void>;
}

/** A free loopback port (the server needs to know it before start, for SVC_EXTERNAL_URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts the real svc server on 127.0.0.1 with an ephemeral port, a fresh data directory and a fresh
 * database (SQLite by default; a new PostgreSQL database with `database: 'postgres'`).
 */
export async function startTestServer(
  opts: { env?: Record<string, string>; database?: DatabaseKind } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const pgdb = opts.database === 'postgres' ? await createPostgresDatabase() : null;
  const port = await freePort();
  const rootPassword = 'root-password-1234';
  const rootToken = `svcpat-test-root-token-${port}-abcdefgh`;
  const config = loadConfig({
    SVC_HOST: '127.0.0.1',
    SVC_PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_ROOT_PASSWORD: rootPassword,
    SVC_ROOT_TOKEN: rootToken,
    SVC_LOG_LEVEL: process.env.SVC_TEST_LOG ?? 'silent',
    ...(pgdb && { SVC_DATABASE_URL: pgdb.url }),
    ...opts.env,
  });
  const server = await start(config, { log: process.env.SVC_TEST_LOG !== undefined, print: () => undefined });
  return {
    url: `http://127.0.0.1:${port}`,
    rootPassword,
    rootToken,
    dataDir,
    server,
    stop: async () => {
      await server.close();
      await pgdb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
