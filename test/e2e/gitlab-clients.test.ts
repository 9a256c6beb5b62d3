import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const CLIENTS = join(import.meta.dirname, 'clients');

/** Runs a client program; its output is part of the failure message, so a failing check names itself. */
async function client(cmd: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(cmd, args, {
      env: { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), 'svc-client-home-')), ...env },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 240_000,
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (e.code === 'ENOENT')
      throw new Error(
        `${cmd} is not installed (.ci/run installs python3-gitlab, gitlab-cli and ruby-gitlab)`,
      );
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      out: `${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`,
    };
  }
}

/**
 * Debian's own GitLab clients, unchanged, against svc: python-gitlab 3.12 as a library and as its CLI
 * (`python-gitlab` with a config file), and the gitlab gem 4.17 (ruby-gitlab). Each flow checks what it does and
 * exits non-zero on the first surprise; the flows are in test/e2e/clients/.
 */
describe.each(await databases())('GitLab clients from Debian against svc (%s)', (database) => {
  let s: TestServer;

  beforeAll(async () => {
    const storages = mkdtempSync(join(tmpdir(), 'svc-clients-'));
    s = await startTestServer({
      database,
      env: { SVC_TIER: 'premium', SVC_STORAGES: `default=${storages}/a,other=${storages}/b` },
    });
  });
  afterAll(() => s?.stop());

  it('python-gitlab (library): users, groups, projects, members, snippets, MRs, pagination, errors, deletes', async () => {
    const work = mkdtempSync(join(tmpdir(), 'svc-python-gitlab-'));
    const r = await client('/usr/bin/python3', [
      join(CLIENTS, 'python_gitlab_flows.py'),
      s.url,
      s.rootToken,
      work,
    ]);
    expect(r.out).toMatch(/(\d+) of \1 checks passed/);
    expect(r.code, r.out).toBe(0);
  });

  it('python-gitlab CLI with a config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-gitlab-cli-'));
    const cfg = join(dir, 'python-gitlab.cfg');
    writeFileSync(
      cfg,
      `[global]\ndefault = svc\ntimeout = 30\n\n[svc]\nurl = ${s.url}\nprivate_token = ${s.rootToken}\napi_version = 4\n`,
    );
    const cli = async (...args: string[]) => {
      const r = await client('python-gitlab', ['-c', cfg, '-o', 'json', ...args]);
      expect(r.code, `python-gitlab ${args.join(' ')}: ${r.out}`).toBe(0);
      return JSON.parse(r.out) as any;
    };
    expect((await cli('current-user', 'get')).username).toBe('root');
    const group = await cli('group', 'create', '--name', 'cli-group', '--path', 'cli-group');
    const project = await cli('project', 'create', '--name', 'cli-app', '--namespace-id', String(group.id));
    expect((await cli('project', 'get', '--id', 'cli-group/cli-app')).id).toBe(project.id);
    expect((await cli('project', 'list', '--owned', 'true')).map((p: { id: number }) => p.id)).toContain(
      project.id,
    );
    await cli('project', 'update', '--id', String(project.id), '--description', 'from the cli');
    expect((await cli('project', 'get', '--id', String(project.id))).description).toBe('from the cli');
    const user = await cli(
      'user',
      'create',
      '--username',
      'cli-user',
      '--email',
      'cli@example.com',
      '--name',
      'Cli',
      '--password',
      'cli-user-password-1',
    );
    expect((await cli('user', 'list', '--username', 'cli-user')).map((u: { id: number }) => u.id)).toEqual([
      user.id,
    ]);
    await cli(
      'group-member',
      'create',
      '--group-id',
      String(group.id),
      '--user-id',
      String(user.id),
      '--access-level',
      '30',
    );
    const all = await cli('project-member-all', 'list', '--project-id', String(project.id));
    expect(all.find((m: { id: number }) => m.id === user.id)?.access_level).toBe(30);
    const snippet = await cli(
      'project-snippet',
      'create',
      '--project-id',
      String(project.id),
      '--title',
      's',
      '--file-name',
      'a.txt',
      '--content',
      'hi',
      '--visibility',
      'private',
    );
    expect(snippet.title).toBe('s');
    // Deleting a group that has a project: 202, done in the background (the CLI prints nothing).
    const del = await client('python-gitlab', ['-c', cfg, 'group', 'delete', '--id', String(group.id)]);
    expect(del.code, del.out).toBe(0);
    const missing = await client('python-gitlab', ['-c', cfg, 'project', 'get', '--id', '999999']);
    expect(missing.code).not.toBe(0);
    expect(missing.out).toContain('404 Project Not Found');
  });

  it('the gitlab gem (ruby-gitlab)', async () => {
    const r = await client('ruby', [join(CLIENTS, 'ruby_gitlab_flows.rb'), s.url, s.rootToken]);
    expect(r.out).toMatch(/(\d+) of \1 checks passed/);
    expect(r.code, r.out).toBe(0);
  });
});
