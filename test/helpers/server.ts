import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, start } from '../../src/server.js';
import { TestClock } from './clock.js';
import { createPostgresDatabase, type DatabaseKind } from './databases.js';

export interface TestServer {
  readonly url: string;
  readonly rootPassword: string;
  readonly rootToken: string;
  readonly dataDir: string;
  readonly server: RunningServer;
  /** The server's clock: `clock.advance(ms)` lets time pass. */
  readonly clock: TestClock;
  stop(): Promise<void>;
}

/**
 * Starts the real svc server on 127.0.0.1 with an ephemeral port (port 0: the server binds it and reports it), a
 * fresh data directory, a fresh database (SQLite by default; a new PostgreSQL database with
 * `database: 'postgres'`) and a test clock.
 */
export async function startTestServer(
  opts: {
    env?: Record<string, string>;
    database?: DatabaseKind;
    /** A PostgreSQL database another server already uses (a second process of one instance); not dropped. */
    databaseUrl?: string;
  } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const pgdb =
    opts.databaseUrl !== undefined
      ? { url: opts.databaseUrl, drop: async () => undefined }
      : opts.database === 'postgres'
        ? await createPostgresDatabase()
        : null;
  const rootPassword = 'root-password-1234';
  const rootToken = `svcpat-test-root-token-${randomBytes(8).toString('hex')}`;
  const config = loadConfig({
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ROOT_PASSWORD: rootPassword,
    SVC_ROOT_TOKEN: rootToken,
    SVC_LOG_LEVEL: process.env.SVC_TEST_LOG ?? 'silent',
    ...(pgdb && { SVC_DATABASE_URL: pgdb.url }),
    ...opts.env,
  });
  const clock = new TestClock();
  const server = await start(config, {
    log: process.env.SVC_TEST_LOG !== undefined,
    print: () => undefined,
    clock,
  });
  return {
    url: server.address,
    clock,
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
