import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
/** Each client starts an interpreter per call (a CLI several times): generous, as two cores are shared in CI. */
const CLIENT_TIMEOUT = 300_000;
const CLIENTS = join(import.meta.dirname, 'clients');
const ROOT = join(import.meta.dirname, '..', '..');
/** python-gitlab's newest release, vendored (PyPI is out of reach in CI): run with PYTHONPATH over Debian's requests. */
const PYTHON_GITLAB = join(CLIENTS, 'vendor', 'python-gitlab-8.4.0');
/** Debian's interpreter: a `python3` first on PATH may be another one that does not see dist-packages. */
const PYTHON = '/usr/bin/python3';
const GITBEAKER = join(ROOT, 'node_modules', '@gitbeaker', 'cli', 'dist', 'index.mjs');
const MCP_GITLAB = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-gitlab', 'dist', 'index.js');

/**
 * Why a client cannot run here (null when it can). Outside CI its test is skipped with the reason printed; in CI
 * (`CI` set) a missing client fails the test, never skips it.
 */
function missing(paths: readonly string[], installedBy: string): string | null {
  const absent = paths.filter((p) => !existsSync(p));
  if (absent.length === 0) return null;
  const reason = `${absent.join(', ')} not found: ${installedBy}`;
  if (!process.env.CI) console.warn(`[gitlab clients] skipping: ${reason}`);
  return reason;
}
const absent = {
  pythonGitlab: missing(
    [PYTHON, '/usr/lib/python3/dist-packages/requests_toolbelt', join(PYTHON_GITLAB, 'gitlab')],
    'Debian python3-requests-toolbelt (.ci/run installs it)',
  ),
  gitbeaker: missing([GITBEAKER], '@gitbeaker/cli is a devDependency (npm ci)'),
  mcp: missing([MCP_GITLAB], '@modelcontextprotocol/server-gitlab is a devDependency (npm ci)'),
  gitlabracadabra: missing(['/usr/bin/gitlabracadabra'], 'Debian gitlabracadabra (.ci/run installs it)'),
  perl: missing(['/usr/share/perl5/GitLab/API/v4.pm'], 'Debian libgitlab-api-v4-perl (.ci/run installs it)'),
};
const skipLocally = (reason: string | null) => reason !== null && !process.env.CI;
const requireClient = (reason: string | null) => {
  if (reason) throw new Error(`required in CI: ${reason}`);
};

/** Runs a client program; its output is part of a failure's message, so a failing check names itself. */
async function client(cmd: string, args: string[], env: Record<string, string> = {}, cwd?: string) {
  try {
    const { stdout, stderr } = await run(cmd, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: mkdtempSync(join(tmpdir(), 'svc-client-home-')),
        PYTHONDONTWRITEBYTECODE: '1',
        ...env,
      },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 240_000,
    });
    return { code: 0, out: stdout + stderr, stdout };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      out: `${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`,
      stdout: e.stdout ?? '',
    };
  }
}

/**
 * The newest GitLab clients, unchanged, against svc: python-gitlab 8.4 (vendored) as a library and as its CLI,
 * the gitbeaker CLI, GitLab's MCP server over stdio, gitlabracadabra (Debian) reconciling an action file, and
 * Perl's GitLab::API::v4 (Debian). The flows are in test/e2e/clients/; each names the client, the call and
 * svc's answer when something fails.
 */
describe.each(await databases())('the newest GitLab clients against svc (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;

  beforeAll(async () => {
    const storages = mkdtempSync(join(tmpdir(), 'svc-clients-latest-'));
    s = await startTestServer({
      database,
      env: { SVC_TIER: 'premium', SVC_STORAGES: `default=${storages}/a,other=${storages}/b` },
    });
    api = http(s.url);
  });
  afterAll(() => s?.stop());

  it.skipIf(skipLocally(absent.pythonGitlab))(
    'python-gitlab 8.4 (library): every resource svc serves, in both calling styles',
    async () => {
      requireClient(absent.pythonGitlab);
      const work = mkdtempSync(join(tmpdir(), 'svc-python-gitlab-8-'));
      const r = await client(
        PYTHON,
        [join(CLIENTS, 'python_gitlab_latest_flows.py'), s.url, s.rootToken, work],
        { PYTHONPATH: PYTHON_GITLAB },
      );
      expect(r.out).toMatch(/(\d+) of \1 checks passed/);
      expect(r.code, r.out).toBe(0);
    },
    CLIENT_TIMEOUT,
  );

  it.skipIf(skipLocally(absent.pythonGitlab))(
    'python-gitlab 8.4 CLI (`python -m gitlab` with a config file)',
    async () => {
      requireClient(absent.pythonGitlab);
      const dir = mkdtempSync(join(tmpdir(), 'svc-gitlab-cli-8-'));
      const cfg = join(dir, 'python-gitlab.cfg');
      writeFileSync(
        cfg,
        `[global]\ndefault = svc\ntimeout = 30\n\n[svc]\nurl = ${s.url}\nprivate_token = ${s.rootToken}\napi_version = 4\n`,
      );
      const raw = (...args: string[]) =>
        client(PYTHON, ['-m', 'gitlab', '-c', cfg, ...args], { PYTHONPATH: PYTHON_GITLAB });
      const cli = async (...args: string[]) => {
        const r = await raw('-o', 'json', ...args);
        expect(r.code, `python-gitlab 8.4 CLI: gitlab ${args.join(' ')}: ${r.out}`).toBe(0);
        return r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as any);
      };
      expect((await cli('current-user', 'get')).username).toBe('root');
      const group = await cli('group', 'create', '--name', 'cli8-group', '--path', 'cli8-group');
      const project = await cli(
        'project',
        'create',
        '--name',
        'cli8-app',
        '--namespace-id',
        String(group.id),
      );
      expect((await cli('project', 'get', '--id', 'cli8-group/cli8-app')).id).toBe(project.id);
      expect((await cli('project', 'list', '--owned', 'true', '--get-all')).map((p: any) => p.id)).toContain(
        project.id,
      );
      await cli('project', 'update', '--id', String(project.id), '--description', 'from the cli');
      expect((await cli('project', 'get', '--id', String(project.id))).description).toBe('from the cli');
      const user = await cli(
        ...['user', 'create', '--username', 'cli8-user', '--email', 'cli8@example.com'],
        ...['--name', 'Cli', '--password', 'cli8-user-password-1'],
      );
      expect((await cli('user', 'list', '--username', 'cli8-user')).map((u: any) => u.id)).toEqual([user.id]);
      await cli(
        ...['group-member', 'create', '--group-id', String(group.id)],
        ...['--user-id', String(user.id), '--access-level', '30'],
      );
      const all = await cli('project-member-all', 'list', '--project-id', String(project.id));
      expect(all.find((m: any) => m.id === user.id)?.access_level).toBe(30);
      const snippet = await cli(
        ...['project-snippet', 'create', '--project-id', String(project.id), '--title', 's'],
        ...['--file-name', 'a.txt', '--content', 'hi', '--visibility', 'private'],
      );
      expect(snippet.title).toBe('s');
      // The repository through the CLI: a project made with a README, a file written and read back, a branch.
      const repo = await cli(
        ...['project', 'create', '--name', 'cli8-repo', '--namespace-id', String(group.id)],
        ...['--initialize-with-readme', 'true'],
      );
      expect(repo.empty_repo).toBe(false);
      const rid = String(repo.id);
      expect(
        await cli(
          ...[
            'project-file',
            'create',
            '--project-id',
            rid,
            '--file-path',
            'docs/cli.md',
            '--branch',
            'main',
          ],
          ...['--content', 'from the cli', '--commit-message', 'cli add'],
        ),
      ).toMatchObject({ file_path: 'docs/cli.md', branch: 'main', commit_id: expect.any(String) });
      const file = await cli(
        'project-file',
        'get',
        '--project-id',
        rid,
        '--file-path',
        'docs/cli.md',
        '--ref',
        'main',
      );
      expect(Buffer.from(file.content, 'base64').toString()).toBe('from the cli');
      const branch = await cli(
        'project-branch',
        'create',
        '--project-id',
        rid,
        '--branch',
        'cli8-b',
        '--ref',
        'main',
      );
      expect(branch.commit.id).toBe(file.last_commit_id);
      expect((await cli('project-branch', 'list', '--project-id', rid)).map((b: any) => b.name)).toEqual([
        'cli8-b',
        'main',
      ]);
      const issue = await cli('project-issue', 'create', '--project-id', rid, '--title', 'from the cli');
      expect(issue).toMatchObject({ iid: 1, state: 'opened', issue_type: 'issue' });
      // A hook on loopback needs the admin's setting for local requests.
      await cli(
        ...['application-settings', 'update'],
        ...['--allow-local-requests-from-web-hooks-and-services', 'true'],
      );
      expect(
        (await cli('application-settings', 'get')).allow_local_requests_from_web_hooks_and_services,
      ).toBe(true);
      const hook = await cli(
        ...['project-hook', 'create', '--project-id', rid, '--url', 'http://127.0.0.1:9/cli8'],
        ...['--push-events', 'false', '--merge-requests-events', 'true', '--note-events', 'true'],
      );
      expect(hook).toMatchObject({ push_events: false, merge_requests_events: true, note_events: true });
      // `--scopes api,read_user`: the CLI splits the list itself.
      const token = await cli(
        ...['user-personal-access-token', 'create', '--user-id', String(user.id), '--name', 'cli8'],
        ...['--scopes', 'api,read_user'],
      );
      expect(token.scopes).toEqual(['api', 'read_user']);
      const runner = await cli('current-user-runner', 'create', '--runner-type', 'instance_type');
      expect((await cli('runner', 'get', '--id', String(runner.id))).id).toBe(runner.id);
      await cli('runner', 'delete', '--id', String(runner.id));
      const del = await raw('group', 'delete', '--id', String(group.id));
      expect(del.code, `python-gitlab 8.4 CLI: group delete: ${del.out}`).toBe(0);
      const gone = await raw('project', 'get', '--id', '999999');
      expect(gone.code).not.toBe(0);
      expect(gone.out).toContain('404 Project Not Found');
    },
    CLIENT_TIMEOUT,
  );

  it.skipIf(skipLocally(absent.gitbeaker))(
    'the gitbeaker CLI (`gitbeaker`, GITBEAKER_HOST and GITBEAKER_TOKEN)',
    async () => {
      requireClient(absent.gitbeaker);
      const env = { GITBEAKER_HOST: s.url, GITBEAKER_TOKEN: s.rootToken };
      const gb = async (...args: string[]) => {
        const r = await client(process.execPath, [GITBEAKER, ...args], env);
        expect(r.code, `gitbeaker ${args.join(' ')}: ${r.out}`).toBe(0);
        return JSON.parse(r.stdout) as any;
      };
      expect((await gb('users', 'show-current-user')).username).toBe('root');
      const user = await gb(
        ...['users', 'create', '--username=gb-user', '--name=Gb User'],
        ...['--email=gb@example.com', '--password=gb-user-password-1'],
      );
      expect((await gb('users', 'show', String(user.id))).username).toBe('gb-user');
      expect((await gb('users', 'all', '--username=gb-user')).map((u: any) => u.id)).toEqual([user.id]);
      const group = await gb('groups', 'create', 'gb-group', 'gb-group');
      expect((await gb('groups', 'show', 'gb-group')).id).toBe(group.id);
      const project = await gb('projects', 'create', '--name=gb-app', `--namespace-id=${group.id}`);
      expect(project.path_with_namespace).toBe('gb-group/gb-app');
      expect((await gb('projects', 'show', 'gb-group/gb-app')).id).toBe(project.id);
      expect((await gb('projects', 'edit', String(project.id), '--description=from gb')).description).toBe(
        'from gb',
      );
      expect((await gb('projects', 'all', '--search=gb-app')).map((p: any) => p.id)).toEqual([project.id]);
      expect((await gb('groups', 'all-projects', String(group.id))).map((p: any) => p.id)).toEqual([
        project.id,
      ]);
      // `project-members add` is not reachable from the CLI (it lists no command for inherited member methods).
      const snippet = await gb(
        ...['project-snippets', 'create', String(project.id), 'gb snippet'],
        // The CLI sends every option as a string, so `files` (an array) cannot be given: the older fields.
        ...['--file-name=a.txt', '--content=hi', '--visibility=private'],
      );
      expect(snippet.title).toBe('gb snippet');
      const content = await client(
        process.execPath,
        [GITBEAKER, 'project-snippets', 'show-content', String(project.id), String(snippet.id)],
        env,
      );
      expect(content.code, `gitbeaker project-snippets show-content: ${content.out}`).toBe(0);
      expect(content.stdout).toContain('hi');
      // A merge request on branches pushed with git: create, show, changes, commits, approval state, accept.
      const { dir, push } = await pushCommit(authUrl(project.http_url_to_repo, 'root', s.rootToken));
      expect(push.code, push.stderr).toBe(0);
      await git(['checkout', '--quiet', '-b', 'gb-feature'], dir);
      writeFileSync(join(dir, 'gb.txt'), 'gb\n');
      await git(['add', 'gb.txt'], dir);
      await git(
        ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'gb'],
        dir,
      );
      expect((await git(['push', '--quiet', 'origin', 'gb-feature'], dir)).code).toBe(0);
      const mr = await gb('merge-requests', 'create', String(project.id), 'gb-feature', 'main', 'From gb');
      expect(mr).toMatchObject({ iid: 1, state: 'opened' });
      expect((await gb('merge-requests', 'show', String(project.id), '1')).title).toBe('From gb');
      const changes = await gb('merge-requests', 'show-changes', String(project.id), '1');
      expect(changes.changes.map((c: any) => c.new_path)).toEqual(['gb.txt']);
      expect(await gb('merge-requests', 'all-commits', String(project.id), '1')).toHaveLength(1);
      const state = await gb('merge-request-approvals', 'show-approval-state', String(project.id), '1');
      expect(state.approval_rules_overwritten).toBe(false);
      expect((await gb('merge-requests', 'accept', String(project.id), '1')).state).toBe('merged');
      // The repository API: a project made with a README; files, branches, the tree, compare, commits.
      const repo = await gb(
        'projects',
        'create',
        '--name=gb-repo',
        `--namespace-id=${group.id}`,
        '--initialize-with-readme=true',
      );
      expect(repo).toMatchObject({ empty_repo: false, readme_url: expect.stringContaining('README.md') });
      const rid = String(repo.id);
      expect(
        await gb('repository-files', 'create', rid, 'docs/gb.md', 'main', 'from gb', 'gb add'),
      ).toMatchObject({
        file_path: 'docs/gb.md',
        branch: 'main',
      });
      const file = await gb('repository-files', 'show', rid, 'docs/gb.md', 'main');
      expect(Buffer.from(file.content, 'base64').toString()).toBe('from gb');
      await gb('repository-files', 'edit', rid, 'docs/gb.md', 'main', 'edited by gb', 'gb edit');
      expect(await gb('repository-files', 'show-raw', rid, 'docs/gb.md', 'main')).toBe('edited by gb');
      expect((await gb('repositories', 'all-repository-trees', rid)).map((t: any) => t.path)).toEqual([
        'docs',
        'README.md',
      ]);
      expect((await gb('branches', 'create', rid, 'gb-topic', 'main')).name).toBe('gb-topic');
      expect((await gb('branches', 'all', rid)).map((b: any) => b.name)).toEqual(['gb-topic', 'main']);
      expect((await gb('branches', 'show', rid, 'gb-topic')).merged).toBe(true);
      const commits = await gb('commits', 'all', rid, '--ref-name=main');
      expect(commits.map((c: any) => c.title)).toEqual(['gb edit', 'gb add', 'Initial commit']);
      expect((await gb('commits', 'show-diff', rid, commits[0].id)).map((d: any) => d.new_path)).toEqual([
        'docs/gb.md',
      ]);
      await gb('repository-files', 'remove', rid, 'docs/gb.md', 'main', 'gb remove');
      const cmp = await gb('repositories', 'compare', rid, 'gb-topic', 'main');
      expect(cmp.commits.map((c: any) => c.title)).toEqual(['gb remove']);
      expect(cmp.diffs.map((d: any) => [d.old_path, d.deleted_file])).toEqual([['docs/gb.md', true]]);
      await gb('branches', 'remove', rid, 'gb-topic');
      expect((await gb('branches', 'all', rid)).map((b: any) => b.name)).toEqual(['main']);
      // `commits create` takes `actions` as an array, which the CLI can only send as a string: svc answers 400 as
      // GitLab does, naming the parameter.
      const actions = await client(
        process.execPath,
        [
          GITBEAKER,
          'commits',
          'create',
          rid,
          'main',
          'gb',
          '[{"action":"create","file_path":"c.txt","content":"c"}]',
        ],
        env,
      );
      expect(actions.code).not.toBe(0);
      expect(actions.out).toContain('400 Bad request - actions must be an array');
      // Issues and incidents.
      const incident = await gb(
        'issues',
        'create',
        rid,
        'gb incident',
        '--issue-type=incident',
        '--description=down',
      );
      expect(incident).toMatchObject({ iid: 1, issue_type: 'incident', state: 'opened' });
      expect((await gb('issues', 'edit', rid, '1', '--state-event=close')).state).toBe('closed');
      expect((await gb('issues', 'show', '1', `--project-id=${rid}`)).title).toBe('gb incident');
      expect(
        (await gb('issues', 'all', `--project-id=${rid}`, '--state=closed')).map((i: any) => i.iid),
      ).toEqual([1]);
      // A personal access token with its scopes given as one comma-separated string, as the CLI sends them.
      const pat = await gb('personal-access-tokens', 'create', String(user.id), 'gb-token', 'api,read_user');
      expect(pat.scopes).toEqual(['api', 'read_user']);
      const rotated = await gb('personal-access-tokens', 'rotate', String(pat.id));
      expect(rotated.token).not.toBe(pat.token);
      // Error tracking client keys.
      const key = await gb('error-tracking-client-keys', 'create', String(project.id));
      expect(
        (await gb('error-tracking-client-keys', 'all', String(project.id))).map((k: any) => k.id),
      ).toEqual([key.id]);
      await gb('error-tracking-client-keys', 'remove', String(project.id), `--key-id=${key.id}`);
      expect(await gb('error-tracking-client-keys', 'all', String(project.id))).toEqual([]);
      const missingProject = await client(process.execPath, [GITBEAKER, 'projects', 'show', '999999'], env);
      expect(missingProject.code, missingProject.out).not.toBe(0);
      expect(missingProject.out).toContain('404 Project Not Found');
    },
    CLIENT_TIMEOUT,
  );

  it.skipIf(skipLocally(absent.mcp))(
    "GitLab's MCP server (@modelcontextprotocol/server-gitlab) over stdio",
    async () => {
      requireClient(absent.mcp);
      const mcp = new McpClient(
        spawn(process.execPath, [MCP_GITLAB], {
          env: {
            PATH: process.env.PATH,
            GITLAB_PERSONAL_ACCESS_TOKEN: s.rootToken,
            GITLAB_API_URL: `${s.url}/api/v4`,
          },
        }),
      );
      try {
        const init = await mcp.request('initialize', {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'svc-test', version: '1' },
        });
        expect(init.serverInfo?.name).toBe('gitlab-mcp-server');
        mcp.notify('notifications/initialized');
        const tools = (await mcp.request('tools/list', {})).tools.map((t: { name: string }) => t.name);
        expect(tools).toEqual(
          expect.arrayContaining([
            'search_repositories',
            'create_repository',
            'get_file_contents',
            'create_or_update_file',
            'push_files',
            'create_issue',
            'create_merge_request',
            'fork_repository',
            'create_branch',
          ]),
        );
        const created = await mcp.tool('create_repository', {
          name: 'mcp-app',
          description: 'made by the MCP server',
          visibility: 'private',
        });
        expect(created).toMatchObject({ name: 'mcp-app', path_with_namespace: 'root/mcp-app' });
        const found = await mcp.tool('search_repositories', { search: 'mcp-app' });
        expect(found.count).toBe(1);
        expect(found.items.map((p: { id: number }) => p.id)).toEqual([created.id]);
        // The repository tools on a project made with a README.
        const repo = await mcp.tool('create_repository', { name: 'mcp-repo', initialize_with_readme: true });
        const pid = String(repo.id);
        const readme = await mcp.tool('get_file_contents', {
          project_id: pid,
          file_path: 'README.md',
          ref: 'main',
        });
        expect(readme).toMatchObject({ file_path: 'README.md', encoding: 'base64' });
        expect(readme.content).toMatch(/^# mcp-repo/);
        expect(
          await mcp.tool('create_branch', { project_id: pid, branch: 'mcp-topic', ref: 'main' }),
        ).toMatchObject({
          name: 'mcp-topic',
          commit: { id: readme.last_commit_id },
        });
        const pushed = await mcp.tool('push_files', {
          project_id: pid,
          branch: 'mcp-topic',
          commit_message: 'Two files at once',
          files: [
            { file_path: 'a.txt', content: 'a\n' },
            { file_path: 'docs/b.md', content: 'b\n' },
          ],
        });
        expect(pushed).toMatchObject({ title: 'Two files at once', parent_ids: [readme.last_commit_id] });
        // create_or_update_file looks the file up first: an existing one is updated (PUT), a new one created (POST).
        const updated = await mcp.tool('create_or_update_file', {
          project_id: pid,
          file_path: 'a.txt',
          content: 'a, edited\n',
          commit_message: 'Edit a',
          branch: 'mcp-topic',
        });
        expect(updated).toMatchObject({ file_path: 'a.txt', branch: 'mcp-topic' });
        const created2 = await mcp.tool('create_or_update_file', {
          project_id: pid,
          file_path: 'c.txt',
          content: 'c\n',
          commit_message: 'Add c',
          branch: 'mcp-topic',
        });
        const head = (
          await api.get(`/api/v4/projects/${pid}/repository/branches/mcp-topic`, { token: s.rootToken })
        ).body;
        expect(created2.commit_id).toBe(head.commit.id);
        expect(
          (
            await api.get(`/api/v4/projects/${pid}/repository/commits/${created2.commit_id}`, {
              token: s.rootToken,
            })
          ).body.parent_ids,
        ).toEqual([updated.commit_id]);
        const raw = await fetch(`${s.url}/api/v4/projects/${pid}/repository/files/a.txt/raw?ref=mcp-topic`, {
          headers: { 'PRIVATE-TOKEN': s.rootToken },
        });
        expect(await raw.text()).toBe('a, edited\n');
        const issue = await mcp.tool('create_issue', {
          project_id: pid,
          title: 'From the MCP server',
          description: 'by a tool',
        });
        expect(issue).toMatchObject({
          iid: 1,
          state: 'opened',
          author: { username: 'root', avatar_url: expect.any(String) },
        });
        // The tool's schema wants `author.avatar_url` as a string: users always have one now (an identicon).
        const mr = await mcp.tool('create_merge_request', {
          project_id: pid,
          title: 'From the MCP server',
          description: 'by a tool',
          source_branch: 'mcp-topic',
          target_branch: 'main',
        });
        expect(mr).toMatchObject({
          iid: 1,
          state: 'opened',
          source_branch: 'mcp-topic',
          target_branch: 'main',
        });
        // svc does not serve forks: GitLab's 404 for an unknown route, which the tool reports as its error.
        await expect(mcp.tool('fork_repository', { project_id: pid })).rejects.toThrow(
          /fork_repository.*GitLab API error: Not Found/,
        );
        const fork = await api.post(`/api/v4/projects/${pid}/fork`, { token: s.rootToken, body: {} });
        expect(fork).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
        // A GitLab error (the name is taken: 400) comes back as the tool's error, with the status text.
        await expect(mcp.tool('create_repository', { name: 'mcp-app' })).rejects.toThrow(
          /create_repository.*GitLab API error: Bad Request/,
        );
        expect(
          (await api.get('/api/v4/projects?search=mcp-app', { token: s.rootToken })).body.map(
            (p: any) => p.id,
          ),
        ).toEqual([created.id]);
      } finally {
        mcp.close();
      }
    },
    CLIENT_TIMEOUT,
  );

  it.skipIf(skipLocally(absent.gitlabracadabra))(
    'gitlabracadabra: an action file applied twice; the second run changes nothing',
    async () => {
      requireClient(absent.gitlabracadabra);
      const dir = mkdtempSync(join(tmpdir(), 'svc-gitlabracadabra-'));
      writeFileSync(
        join(dir, 'python-gitlab.cfg'),
        `[global]\ndefault = svc\n\n[svc]\nurl = ${s.url}\nprivate_token = ${s.rootToken}\napi_version = 4\n`,
      );
      // Hooks on loopback need the admin's setting for local requests.
      await api.put('/api/v4/application/settings', {
        token: s.rootToken,
        body: { allow_local_requests_from_web_hooks_and_services: true },
      });
      writeFileSync(
        join(dir, 'users.yml'),
        [
          'rcd-user:',
          '  type: user',
          '  create_object: true',
          '  name: Rcd User',
          '  email: rcd@example.com',
          '  skip_reconfirmation: true',
          '  password: rcd-user-password-1',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(dir, 'actions.yml'),
        [
          'rcd-group/:',
          '  type: group',
          '  create_object: true',
          '  description: Managed by gitlabracadabra',
          '  visibility: private',
          '  request_access_enabled: false',
          '  members:',
          '    rcd-user: developer',
          '',
          'rcd-group/rcd-app:',
          '  type: project',
          '  create_object: true',
          '  description: Managed by gitlabracadabra',
          '  visibility: private',
          '  merge_method: ff',
          '  only_allow_merge_if_all_discussions_are_resolved: true',
          '  remove_source_branch_after_merge: false',
          '  request_access_enabled: false',
          '  wiki_access_level: disabled',
          '  snippets_access_level: private',
          '  issues_access_level: enabled',
          '  merge_requests_access_level: enabled',
          '  forking_access_level: disabled',
          '  builds_access_level: disabled',
          '  pages_access_level: disabled',
          '  only_allow_merge_if_pipeline_succeeds: false',
          '  approvals_before_merge: 1',
          '  initialize_with_readme: true',
          '  default_branch: main',
          '  branches:',
          '    - main',
          '    - develop',
          '  members:',
          '    rcd-user: maintainer',
          '  webhooks:',
          '    - url: http://127.0.0.1:9/rcd',
          '      enable_ssl_verification: false',
          '      push_events: true',
          '      push_events_branch_filter: main',
          '      issues_events: true',
          '      confidential_issues_events: false',
          '      merge_requests_events: true',
          '      tag_push_events: true',
          '      note_events: true',
          '      confidential_note_events: false',
          '      job_events: false',
          '    - url: http://no-such-host.invalid/rcd',
          '      push_events: false',
          '      note_events: true',
          '',
        ].join('\n'),
      );
      const rcd = async (...args: string[]) => {
        const r = await client(
          '/usr/bin/gitlabracadabra',
          ['-v', '-c', 'python-gitlab.cfg', ...args],
          {},
          dir,
        );
        expect(r.code, `gitlabracadabra ${args.join(' ')}: ${r.out}`).toBe(0);
        // What it logs besides INFO/WARNING lines are problems (ERROR), each named with its object.
        expect(r.out, `gitlabracadabra ${args.join(' ')}`).not.toMatch(/^(ERROR|CRITICAL)/m);
        return r.out;
      };
      /** The lines that say it changed (or, in a dry run, would change) something. */
      const changes = (out: string) =>
        out.split('\n').filter((l) => /\] (Creating|Changing|Adding|Removing|Deleting)/.test(l));
      expect(changes(await rcd('users.yml'))).toEqual(['INFO     [rcd-user] Creating user']);
      const first = changes(await rcd('actions.yml'));
      expect(first).toEqual(
        expect.arrayContaining([
          'INFO     [rcd-group] Creating group',
          'INFO     [rcd-group] Adding user rcd-user: 0 -> 30',
          'INFO     [rcd-group/rcd-app] Creating project',
          'INFO     [rcd-group/rcd-app] Changing param merge_method: merge -> ff',
          'INFO     [rcd-group/rcd-app] Adding user rcd-user: 0 -> 40',
          expect.stringContaining('[rcd-group/rcd-app] Adding webhook http://127.0.0.1:9/rcd'),
          expect.stringContaining('[rcd-group/rcd-app] Adding webhook http://no-such-host.invalid/rcd'),
        ]),
      );
      expect(changes(await rcd('actions.yml')), 'gitlabracadabra: the second run changes nothing').toEqual(
        [],
      );
      const project = (await api.get('/api/v4/projects/rcd-group%2Frcd-app', { token: s.rootToken })).body;
      expect(project).toMatchObject({
        description: 'Managed by gitlabracadabra',
        merge_method: 'ff',
        only_allow_merge_if_all_discussions_are_resolved: true,
        remove_source_branch_after_merge: false,
        request_access_enabled: false,
        wiki_access_level: 'disabled',
        snippets_access_level: 'private',
        issues_access_level: 'enabled',
        forking_access_level: 'disabled',
        builds_access_level: 'disabled',
        pages_access_level: 'disabled',
        only_allow_merge_if_pipeline_succeeds: false,
        approvals_before_merge: 1,
        default_branch: 'main',
        empty_repo: false,
      });
      const branches = await api.get(`/api/v4/projects/${project.id}/repository/branches`, {
        token: s.rootToken,
      });
      expect(branches.body.map((b: any) => b.name)).toEqual(['develop', 'main']);
      const hooks = (await api.get(`/api/v4/projects/${project.id}/hooks`, { token: s.rootToken })).body;
      expect(hooks.find((h: any) => h.url === 'http://127.0.0.1:9/rcd')).toMatchObject({
        enable_ssl_verification: false,
        push_events: true,
        push_events_branch_filter: 'main',
        issues_events: true,
        confidential_issues_events: false,
        merge_requests_events: true,
        tag_push_events: true,
        note_events: true,
        confidential_note_events: false,
        job_events: false,
      });
      expect(hooks.find((h: any) => h.url === 'http://no-such-host.invalid/rcd')).toMatchObject({
        push_events: false,
        note_events: true,
      });
      // Drift made through the API: a dry run reports it and changes nothing; a real run puts it back.
      await api.put(`/api/v4/projects/${project.id}`, {
        token: s.rootToken,
        body: { merge_method: 'merge' },
      });
      expect(
        (await rcd('--dry-run', 'actions.yml')).split('\n').filter((l) => l.includes('(dry-run)')),
      ).toEqual(['INFO     [rcd-group/rcd-app] NOT Changing param merge_method: merge -> ff (dry-run)']);
      const drifted = await api.get(`/api/v4/projects/${project.id}`, { token: s.rootToken });
      expect(drifted.body.merge_method).toBe('merge');
      await rcd('actions.yml');
      expect(
        (await api.get(`/api/v4/projects/${project.id}`, { token: s.rootToken })).body.merge_method,
      ).toBe('ff');
      expect(changes(await rcd('actions.yml'))).toEqual([]);
    },
    CLIENT_TIMEOUT,
  );

  it.skipIf(skipLocally(absent.perl))(
    'Perl GitLab::API::v4 (libgitlab-api-v4-perl)',
    async () => {
      requireClient(absent.perl);
      const r = await client('perl', [join(CLIENTS, 'perl_gitlab_api_v4_flows.pl'), s.url, s.rootToken]);
      expect(r.out).toMatch(/(\d+) of \1 checks passed/);
      expect(r.code, r.out).toBe(0);
    },
    CLIENT_TIMEOUT,
  );
});

/** A JSON-RPC 2.0 client over an MCP server's stdio (one JSON message per line). */
class McpClient {
  private next = 1;
  private buffer = '';
  private stderr = '';
  private readonly waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf('\n');
      while (nl >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (line) this.receive(JSON.parse(line));
        nl = this.buffer.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values())
        w.reject(new Error(`the MCP server exited (${code}): ${this.stderr}`));
      this.waiting.clear();
    });
  }

  private receive(msg: { id?: number; result?: unknown; error?: { message: string } }): void {
    if (msg.id === undefined) return;
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(`MCP error: ${msg.error.message}`));
    else w.resolve(msg.result);
  }

  request(method: string, params: unknown): Promise<any> {
    const id = this.next++;
    const done = new Promise<any>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return done;
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** Calls a tool; its text answer is JSON. A failing call names the tool, its arguments and svc's answer. */
  async tool(name: string, args: Record<string, unknown>): Promise<any> {
    let result: { content: { type: string; text: string }[]; isError?: boolean };
    try {
      result = await this.request('tools/call', { name, arguments: args });
    } catch (err) {
      throw new Error(`MCP server-gitlab: ${name}(${JSON.stringify(args)}): ${(err as Error).message}`);
    }
    const text = result.content.map((c) => c.text).join('');
    if (result.isError) throw new Error(`MCP server-gitlab: ${name}(${JSON.stringify(args)}): ${text}`);
    return JSON.parse(text);
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }
}
