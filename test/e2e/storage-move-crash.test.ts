import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/db.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { type SvcServer, startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

/** The moves' states as the database holds them (read while no server runs: what the kill left behind). */
async function statesOnDisk(dataDir: string): Promise<string[]> {
  const db = createDb({ databaseUrl: null, dataDir });
  try {
    const rows = await db.kysely
      .selectFrom('repository_storage_moves')
      .select('state')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.state);
  } finally {
    await db.close();
  }
}

describe('a server killed (SIGKILL) in the middle of a bulk storage move', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
  let child: SvcServer | null = null;
  afterAll(async () => {
    await child?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing: after a restart every repository is intact, readable and writable, every move finished or failed', async () => {
    const token = 'svcpat-crash-test-root-token-0001';
    const env = {
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_STORAGES: `default=${dir}/a,fast=${dir}/b`,
      SVC_ROOT_PASSWORD: 'crash-test-password',
      SVC_ROOT_TOKEN: token,
      SVC_LOG_LEVEL: 'warn',
      SVC_JOB_LEASE_SECONDS: '2',
      SVC_JOB_CONCURRENCY: '2',
    };
    child = await startSvc(env);
    let api = http(child.url);
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
    // Kill it as soon as a move is under way (copying, or switched and not yet cleaned up), before all are done.
    const inFlight = ['started', 'replicated'];
    const seen = await until(
      async () => {
        const list = (await api.get('/api/v4/project_repository_storage_moves?per_page=100', { token }))
          .body as { state: string }[];
        return list.some((m) => inFlight.includes(m.state)) ? list : null;
      },
      'a move to start',
      30_000,
      20,
    );
    const server = child;
    server.proc.kill('SIGKILL');
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The proof that the kill cut moves short: what it left in the database, before anything resumes them.
    const atKill = await statesOnDisk(env.SVC_DATA_DIR);
    expect(seen.filter((m) => inFlight.includes(m.state)).length, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(atKill.filter((state) => inFlight.includes(state)).length, atKill.join(', ')).toBeGreaterThan(0);
    expect(atKill.filter((state) => state !== 'finished').length).toBeGreaterThan(0);

    // The restart listens on another ephemeral port: the API and the clone URLs follow it.
    child = await startSvc(env);
    api = http(child.url);
    const done = await until(
      async () => {
        const list = (await api.get('/api/v4/project_repository_storage_moves?per_page=100', { token }))
          .body as { state: string }[];
        return list.length === projects.length &&
          list.every((m) => m.state === 'finished' || m.state === 'failed')
          ? list
          : null;
      },
      'every move to finish or fail after the restart',
      90_000,
    );
    expect(done.filter((m) => m.state === 'finished').length).toBeGreaterThan(0);

    for (const { id } of projects) {
      const p = (await api.get(`/api/v4/projects/${id}`, { token })).body as { http_url_to_repo: string };
      expect(p.http_url_to_repo.startsWith(child.url)).toBe(true);
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
