import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { freePort } from '../helpers/server.js';

const BIN = join(import.meta.dirname, '../../bin/svc.js');

async function until<T>(
  fn: () => Promise<T | null | undefined | false>,
  what: string,
  ms = 90_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the real server process; resolves when it listens. */
async function startServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn('node', [BIN, 'server'], {
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += String(d);
  });
  child.stderr!.on('data', (d) => {
    out += String(d);
  });
  await until(async () => out.includes('listening on'), `the server to start:\n${out}`, 30_000);
  return child;
}

describe('a server killed (SIGKILL) in the middle of a bulk storage move', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
  let child: ChildProcess | null = null;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing: after a restart every repository is intact, readable and writable, every move finished or failed', async () => {
    const port = await freePort();
    const token = 'svcpat-crash-test-root-token-0001';
    const env = {
      SVC_PORT: String(port),
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_STORAGES: `default=${dir}/a,fast=${dir}/b`,
      SVC_ROOT_PASSWORD: 'crash-test-password',
      SVC_ROOT_TOKEN: token,
      SVC_LOG_LEVEL: 'warn',
      SVC_JOB_LEASE_SECONDS: '2',
      SVC_JOB_CONCURRENCY: '2',
    };
    child = await startServer(env);
    const base = `http://127.0.0.1:${port}`;
    const api = http(base);
    const projects: { id: number; http_url_to_repo: string }[] = [];
    const blob = join(dir, 'blob.bin');
    writeFileSync(blob, randomBytes(2 * 1024 * 1024).toString('base64'));
    for (let i = 0; i < 12; i++) {
      const p = await api.post('/api/v4/projects', {
        token,
        body: { name: `crash-${i}`, repository_storage: 'default' },
      });
      expect(p.status).toBe(201);
      projects.push(p.body);
      const { readFileSync } = await import('node:fs');
      const pushed = await pushCommit(
        authUrl(p.body.http_url_to_repo, 'root', token),
        'data.txt',
        readFileSync(blob, 'utf8').slice(0, 200_000 * (1 + (i % 4))),
      );
      expect(pushed.push.code).toBe(0);
    }
    const bulk = await api.post('/api/v4/project_repository_storage_moves', {
      token,
      body: { source_storage_name: 'default', destination_storage_name: 'fast' },
    });
    expect(bulk.status).toBe(202);
    // Kill it as soon as the moves are under way, before they can all be done.
    await until(
      async () => {
        const list = (await api.get('/api/v4/project_repository_storage_moves?per_page=100', { token }))
          .body as { state: string }[];
        return list.some((m) => m.state !== 'scheduled');
      },
      'a move to start',
      30_000,
    );
    const killed = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await killed;

    child = await startServer(env);
    const done = await until(async () => {
      const list = (await api.get('/api/v4/project_repository_storage_moves?per_page=100', { token }))
        .body as { state: string }[];
      return list.length === projects.length &&
        list.every((m) => m.state === 'finished' || m.state === 'failed')
        ? list
        : null;
    }, 'every move to finish or fail after the restart');
    expect(done.filter((m) => m.state === 'finished').length).toBeGreaterThan(0);

    for (const p of projects) {
      const w = mkdtempSync(join(dir, 'clone-'));
      const url = authUrl(p.http_url_to_repo, 'root', token);
      const clone = await git(['clone', '--quiet', url, 'c'], w);
      expect(clone.code, clone.stderr).toBe(0);
      expect((await git(['fsck', '--no-progress'], join(w, 'c'))).code).toBe(0);
      expect((await git(['log', '--oneline'], join(w, 'c'))).stdout.trim().split('\n')).toHaveLength(1);
      await git(
        [
          '-c',
          'user.name=T',
          '-c',
          'user.email=t@x',
          'commit',
          '--quiet',
          '--allow-empty',
          '-m',
          'after restart',
        ],
        join(w, 'c'),
      );
      const push = await git(['push', '--quiet', 'origin', 'HEAD:main'], join(w, 'c'));
      expect(push.code, push.stderr).toBe(0);
    }
    const left = await api.get('/api/v4/projects?repository_storage=default&per_page=100', { token });
    const failed = done.filter((m) => m.state === 'failed').length;
    expect(left.body).toHaveLength(failed);
  });
});
