import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { authUrl, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { startSvc, svc } from '../helpers/svc.js';

const run = promisify(execFile);
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-newcomer-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('svc CLI for a newcomer', () => {
  it('svc --version prints the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await svc([flag], {});
      expect(r).toMatchObject({ code: 0 });
      expect(r.stdout.trim()).toBe(VERSION);
    }
  });

  it('warns at start when SVC_ROOT_PASSWORD and SVC_ROOT_TOKEN have no effect, and why', async () => {
    const dir = dataDir();
    const first = {
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'first-password-1',
      SVC_ROOT_TOKEN: 'svcpat-first-token-000000001',
    };
    const a = await startSvc(first);
    expect(a.output()).toContain('created the administrator "root" with the password from SVC_ROOT_PASSWORD');
    expect(a.output()).not.toContain('warning');
    expect((await http(a.url).get('/api/v4/user', { token: 'svcpat-first-token-000000001' })).status).toBe(
      200,
    );
    await a.stop();

    // The walkthrough after the quick start (docs/api.md, Walkthrough with curl): the same data directory, new values.
    const second = {
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'second-password-2',
      SVC_ROOT_TOKEN: 'svcpat-second-token-00000002',
    };
    const b = await startSvc(second);
    const out = b.output();
    expect(out).toContain(
      'svc: warning: SVC_ROOT_PASSWORD and SVC_ROOT_TOKEN have no effect: they apply only on the first start',
    );
    expect(out).toContain(`the data directory ${dir} already has users`);
    expect(out).toContain('point SVC_DATA_DIR at a new, empty directory');
    // Secrets are never echoed.
    expect(out).not.toContain('second-password-2');
    expect(out).not.toContain('svcpat-second-token-00000002');
    // And indeed: the new token does not work, the first one still does.
    expect((await http(b.url).get('/api/v4/user', { token: 'svcpat-second-token-00000002' })).status).toBe(
      401,
    );
    expect((await http(b.url).get('/api/v4/user', { token: 'svcpat-first-token-000000001' })).status).toBe(
      200,
    );
    await b.stop();

    // One of the two alone is named alone; without either, no warning.
    const c = await startSvc({ SVC_DATA_DIR: dir, SVC_ROOT_TOKEN: 'svcpat-third-token-000000003' });
    expect(c.output()).toContain(
      'svc: warning: SVC_ROOT_TOKEN has no effect: it applies only on the first start',
    );
    await c.stop();
    const d = await startSvc({ SVC_DATA_DIR: dir });
    expect(d.output()).not.toContain('warning');
    await d.stop();

    // What the warning recommends works: a new data directory takes the values.
    const fresh = await startSvc({ ...second, SVC_DATA_DIR: dataDir() });
    expect(fresh.output()).not.toContain('warning');
    expect(
      (await http(fresh.url).get('/api/v4/user', { token: 'svcpat-second-token-00000002' })).status,
    ).toBe(200);
    await fresh.stop();
  }, 240_000);

  it('backup and restore print plain progress lines without a terminal', async () => {
    const dir = dataDir();
    const env = { SVC_DATA_DIR: dir, SVC_ROOT_PASSWORD: 'backup-password-1' };
    const archive = join(dir, 'b.tar.gz');
    const created = await svc(['backup', 'create', '--output', archive], env, 120_000);
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stderr.split('\n').filter((l) => l.startsWith('svc: backup:'));
    // Database: a line at the start, one per tenth, one at the end; no carriage returns, no bar characters.
    expect(lines[0]).toMatch(/^svc: backup: database 0\/\d+$/);
    expect(lines).toContainEqual(expect.stringMatching(/^svc: backup: database (\d+)\/\1$/));
    expect(lines).toContain('svc: backup: repositories (nothing to do)');
    expect(lines.length).toBeLessThanOrEqual(13);
    expect(created.stderr).not.toMatch(/\r|░|█/);

    const target = dataDir();
    const restored = await svc(['backup', 'restore', archive], { SVC_DATA_DIR: target }, 120_000);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toMatch(/^svc: restore: database (\d+)\/\1$/m);
  });

  it('shows a cli-progress bar when stderr is a terminal (script gives it a pty)', async () => {
    const dir = dataDir();
    const archive = join(dir, 'b.tar.gz');
    const cmd = [process.execPath, inject('svcMain'), 'backup', 'create', '--output', archive]
      .map((a) => `'${a}'`)
      .join(' ');
    const r = await run('script', ['-qec', cmd, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SVC_DATA_DIR: dir,
        SVC_ROOT_PASSWORD: 'backup-password-1',
      },
      timeout: 120_000,
    });
    // The bar redraws in place (carriage returns), with its label, percentage and counts.
    expect(r.stdout).toMatch(/database\s+\[[█░]+\] 100% \d+\/\d+/);
    expect(r.stdout).toContain('\r');
    expect(r.stdout).not.toContain('svc: backup: database');
    expect(r.stdout).toMatch(/wrote .*b\.tar\.gz/);
  });

  it('svc storage-move moves every repository of a storage, with progress lines, and waits for the end', async () => {
    const dir = dataDir();
    const storages = `default=${dir}/a,fast=${dir}/b`;
    const s = await startTestServer({ env: { SVC_DATA_DIR: dir, SVC_STORAGES: storages } });
    const api = http(s.url);
    // Every new project on "default".
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { repository_storages_weighted: { default: 100, fast: 0 } },
    });
    for (const name of ['one', 'two', 'three']) {
      const p = await api.post('/api/v4/projects', { token: s.rootToken, body: { name } });
      expect(p.status).toBe(201);
      expect((await pushCommit(authUrl(p.body.http_url_to_repo, 'root', s.rootToken))).push.code).toBe(0);
    }
    // The data stays: the server only closes (stop() would delete the directory).
    await s.server.close();
    const env = { SVC_DATA_DIR: dir, SVC_STORAGES: storages };
    const moved = await svc(['storage-move', '--from', 'default', '--to', 'fast'], env, 120_000);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain('svc: scheduled 3 project move(s) from "default"');
    expect(moved.stdout).toContain('svc: 3 moved, 0 failed');
    expect(moved.stderr).toContain('svc: storage-move: projects 0/3');
    expect(moved.stderr).toContain('svc: storage-move: projects 3/3');
    expect(moved.stderr).not.toContain('\r');
    const listed = await svc(['list-repos'], { ...env, SVC_RELEASE: '16.11' });
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.startsWith('fast\t')).toBe(true);
    // Nothing left to move: said so, still success.
    const again = await svc(['storage-move', '--from', 'default', '--to', 'fast'], env, 60_000);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('svc: scheduled 0 project move(s)');
    expect((await svc(['storage-move', '--from', 'default', '--user', 'nobody'], env)).code).toBe(2);
  }, 180_000);
});
