import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { http } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { startSvc, svc } from '../helpers/svc.js';

describe('svc CLI', () => {
  it('refuses to start with two storages on the same path, naming both (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    const env = { SVC_DATA_DIR: dir, SVC_STORAGES: `default=${dir}/a,fast=${dir}/a` };
    for (const args of [['server'], ['config', 'check']]) {
      const r = await svc(args, env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`storages "default" and "fast" use the same path ${dir}/a`);
    }
  });

  it('checks configuration, migrates, creates users and tokens that work against the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    const env = { SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn' };
    const check = await svc(['config', 'check'], { ...env, SVC_ROOT_PASSWORD: 'secret-password' });
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('configuration is valid');
    expect(check.stdout).not.toContain('secret-password');
    expect((await svc(['migrate'], env)).stdout).toContain('applied 0001_accounts');
    expect((await svc(['migrate'], env)).stdout).toContain('up to date');
    const created = await svc(
      ['user', 'create', '--username', 'bob', '--email', 'bob@example.com', '--password', 'bob-password'],
      env,
    );
    expect(created).toMatchObject({ code: 0 });
    // The first command that needed accounts created root and printed its generated password once.
    expect(created.stderr).toMatch(/administrator "root" with password: \S{16,}/);
    expect(
      (await svc(['user', 'create', '--username', 'eve', '--email', 'e@example.com', '--password', 'x'], env))
        .code,
    ).toBe(1);
    expect((await svc(['token', 'create', '--user', 'bob', '--scopes', 'api,nope'], env)).code).toBe(2);
    const token = await svc(['token', 'create', '--user', 'bob', '--scopes', 'read_api'], env);
    expect(token.code).toBe(0);
    const value = token.stdout.trim();
    expect(value).toMatch(/^svcpat-/);
    expect((await svc(['token', 'create', '--user', 'nobody'], env)).code).toBe(1);

    // Start the real server process (on an ephemeral port it reports) and use the token; SIGTERM stops it cleanly.
    const server = await startSvc(env);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output()).toContain(`(external URL ${server.url})`);
    expect(server.output()).not.toContain('password');
    const me = await http(server.url).get('/api/v4/user', { token: value });
    expect(me.body.username).toBe('bob');
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });

  it('lists repositories before 17.0 (with --since) and refuses from 17.0, pointing to backup and restore', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    const env = { SVC_DATA_DIR: dir, SVC_RELEASE: '16.11', SVC_ROOT_PASSWORD: 'list-repos-password' };
    expect(
      (
        await svc(
          ['user', 'create', '--username', 'ann', '--email', 'ann@example.com', '--password', 'ann-password'],
          env,
        )
      ).code,
    ).toBe(0);
    const listed = await svc(['list-repos'], env);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(/deprecated since 16.4/);
    expect(listed.stdout).toBe('');
    const future = await svc(['list-repos', '--since', '2999-01-01T00:00:00Z'], env);
    expect(future).toMatchObject({ code: 0, stdout: '' });
    expect((await svc(['list-repos', '--since', 'yesterday-ish'], env)).code).toBe(2);
    // With repositories: one line per repository, `<storage>\t<relative path>`.
    const s = await startTestServer({ env: { SVC_RELEASE: '16.11' } });
    const p = await http(s.url).post('/api/v4/projects', { token: s.rootToken, body: { name: 'listed' } });
    await s.server.close();
    const lines = (await svc(['list-repos'], { SVC_DATA_DIR: s.dataDir, SVC_RELEASE: '16.11' })).stdout
      .trim()
      .split('\n');
    expect(lines).toContain(`default\t${relativePath('project', p.body.id)}`);
    rmSync(s.dataDir, { recursive: true, force: true });
    const removed = await svc(['list-repos'], { ...env, SVC_RELEASE: '17.0' });
    expect(removed.code).toBe(2);
    expect(removed.stderr).toMatch(/removed in 17.0.*svc backup create.*svc backup restore/);
  });

  it('prints the deprecation catalog and checks files before an upgrade (non-zero exit when something breaks)', async () => {
    const env = { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-cli-')), SVC_RELEASE: '17.0' };
    const table = await svc(['deprecations', '--release', '17.0', '--breaking'], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Instance release 17\.0: \d+ of \d+ listed removals apply\./);
    expect(table.stdout).toContain('users_offset_pagination');
    const json = JSON.parse((await svc(['deprecations', '--json', '--area', 'geo'], env)).stdout);
    expect(json.deprecations.every((d: { area: string }) => d.area === 'geo')).toBe(true);
    expect((await svc(['deprecations', '--release', 'soon'], env)).code).toBe(2);
    const fixtures = join(import.meta.dirname, '../fixtures/upgrade-check');
    const found = await svc(
      ['upgrade-check', '--to', '18.0', '--json', join(fixtures, 'deploy.sh'), join(fixtures, 'svc.yml')],
      env,
    );
    expect(found.code).toBe(1);
    const ids = new Set(
      JSON.parse(found.stdout).map((f: { deprecation: { id: string } }) => f.deprecation.id),
    );
    expect([...ids]).toEqual(
      expect.arrayContaining([
        'list_repos',
        'shared_runners_registration_token_env',
        'duplicate_storage_paths',
      ]),
    );
    const before = await svc(['upgrade-check', '--to', '16.11', join(fixtures, 'deploy.sh')], env);
    expect(before.code).toBe(0);
    const clean = await svc(['upgrade-check', '--to', '18.0', join(fixtures, 'clean')], env);
    expect(clean).toMatchObject({ code: 0 });
    expect(clean.stdout).toContain('No uses');
  });
});
