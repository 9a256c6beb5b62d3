import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { createPostgresDatabase, type DatabaseKind } from './databases.js';
import { until } from './until.js';

const run = promisify(execFile);

/** A child's environment: only PATH from the test's, so no loader hooks or NODE_OPTIONS of the test runner. */
const childEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...env });

/** Runs the `svc` CLI (built from the current source by the global setup); returns exit code and output. */
export async function svc(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [inject('svcMain'), ...args], {
      env: childEnv(env),
      timeout: timeoutMs,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `svc server` as a child process. */
export interface SvcServer {
  readonly proc: ChildProcess;
  /** The address it printed (`svc: listening on <url>`). */
  readonly url: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The tail of its stdout and stderr. */
  output(): string;
  /** Whether it still runs. */
  alive(): boolean;
  /** Stops it with SIGTERM (SIGKILL after 10 s) when it still runs; resolves with its exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `svc server` from the current source on an ephemeral port (SVC_PORT=0 unless `env` names one); resolves
 * once it printed the address it listens on and answers /-/health there.
 */
export async function startSvc(env: Record<string, string>, timeoutMs = 60_000): Promise<SvcServer> {
  const proc = spawn(process.execPath, [inject('svcMain'), 'server'], {
    env: childEnv({ SVC_HOST: '127.0.0.1', SVC_PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + String(d)).slice(-20_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  const url = await until(
    async () => {
      if (!alive()) throw new Error(`the server exited while starting:\n${out}`);
      const printed = /svc: listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (!printed) return null;
      const health = await fetch(`${printed}/-/health`).catch(() => null);
      return health?.status === 200 ? printed : null;
    },
    () => `the server to start:\n${out}`,
    timeoutMs,
    50,
  );
  return {
    proc,
    url,
    exited,
    output: () => out,
    alive,
    stop: async () => {
      if (alive()) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

/** What a test that kills and restarts `svc server` keeps between the runs; `dispose` removes it all. */
export interface RestartableSetup {
  /** A temporary directory for the test's own files; the server's data and storage are under it. */
  readonly dir: string;
  /** The root's personal access token. */
  readonly token: string;
  /** The server's environment: data directory, storage, root password and token, the database, warn logs. */
  readonly env: Record<string, string>;
  dispose(): Promise<void>;
}

/** A data directory, a storage and (on PostgreSQL) a fresh database for a server a test restarts on the same data. */
export async function restartableSetup(database: DatabaseKind, name: string): Promise<RestartableSetup> {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`));
  const pg = database === 'postgres' ? await createPostgresDatabase() : null;
  const token = `svcpat-${name}-${randomBytes(8).toString('hex')}`;
  return {
    dir,
    token,
    env: {
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_STORAGES: `default=${join(dir, 'repositories')}`,
      SVC_ROOT_PASSWORD: `${name}-password`,
      SVC_ROOT_TOKEN: token,
      SVC_LOG_LEVEL: 'warn',
      ...(pg && { SVC_DATABASE_URL: pg.url }),
    },
    dispose: async () => {
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
