import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { databases } from '../helpers/databases.js';
import { authUrl, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const run = promisify(execFile);

/** PIDs of `git receive-pack` processes working on `path` (pgrep exits 1 when there are none). */
async function receivePacks(path: string): Promise<string[]> {
  try {
    const { stdout } = await run('pgrep', ['-f', `receive-pack --stateless-rpc ${path}`]);
    return stdout.split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * A push that never finishes (a client that stalls mid-push, leaving `git receive-pack` running) must not hold
 * a storage move in `started` forever with the repository read-only. As GitLab, the move fails after waiting for
 * pushes (here 1 s instead of 30) and the repository is writable again; the stalled connection is closed after
 * the git idle timeout (here 3 s) and its git process is gone.
 */
describe.each(await databases())('a storage move and a push that never finishes (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-push-timeout-'));
    s = await startTestServer({
      database,
      env: {
        SVC_STORAGES: `default=${root}/default,fast=${root}/fast`,
        SVC_MOVE_PUSH_WAIT_SECONDS: '1',
        SVC_GIT_IDLE_TIMEOUT_SECONDS: '3',
      },
    });
    api = http(s.url);
  });
  afterAll(async () => s?.stop());

  it('fails the move with GitLab message, makes the repository writable, and reaps the stalled git', async () => {
    const p = await api.post<{ id: number; http_url_to_repo: string }>('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'stalled-push', repository_storage: 'default' },
    });
    expect(p.status).toBe(201);
    const url = authUrl(p.body.http_url_to_repo, 'root', s.rootToken);
    const first = await pushCommit(url);
    expect(first.push.code).toBe(0);
    const path = join(root, 'default', relativePath('project', p.body.id));

    // A push that starts its command list and then sends nothing more, keeping the connection open.
    const stalled = request(`${p.body.http_url_to_repo}/git-receive-pack`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`root:${s.rootToken}`).toString('base64')}`,
        'content-type': 'application/x-git-receive-pack-request',
        'transfer-encoding': 'chunked',
      },
    });
    const closed = new Promise<void>((resolve) => {
      stalled.on('close', () => resolve());
      stalled.on('error', () => resolve());
    });
    stalled.write('00a4');
    await until(
      async () => (await receivePacks(path)).length > 0,
      () => 'git receive-pack to start',
    );

    const move = await api.post<{ id: number }>(`/api/v4/projects/${p.body.id}/repository_storage_moves`, {
      token: s.rootToken,
      body: { destination_storage_name: 'fast' },
    });
    expect(move.status).toBe(201);
    const failed = await until(
      async () => {
        const m = await api.get<{ state: string }>(
          `/api/v4/projects/${p.body.id}/repository_storage_moves/${move.body.id}`,
          { token: s.rootToken },
        );
        return m.body.state === 'failed' && m.body;
      },
      () => 'the move to fail',
    );
    expect(failed).toMatchObject({ state: 'failed', source_storage_name: 'default' });
    const project = await api.get(`/api/v4/projects/${p.body.id}`, { token: s.rootToken });
    expect(project.body).toMatchObject({ repository_storage: 'default' });
    // Writable again while the stalled push still runs.
    expect((await pushCommit(url, 'after.txt', 'after\n')).push.code).toBe(0);

    // The stalled connection is closed by the server, and its git process is gone.
    await closed;
    await until(
      async () => (await receivePacks(path)).length === 0,
      () => 'the stalled git to be reaped',
    );

    // With nothing in flight, the same move goes through.
    const again = await api.post<{ id: number }>(`/api/v4/projects/${p.body.id}/repository_storage_moves`, {
      token: s.rootToken,
      body: { destination_storage_name: 'fast' },
    });
    expect(again.status).toBe(201);
    await until(
      async () =>
        (
          await api.get<{ state: string }>(
            `/api/v4/projects/${p.body.id}/repository_storage_moves/${again.body.id}`,
            { token: s.rootToken },
          )
        ).body.state === 'finished',
      () => 'the second move to finish',
    );
  });
});
