import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { begin, end, STAMP, staleReason } from '../../scripts/build-if-stale.mjs';
import { http } from '../helpers/http.js';
import { startSvc } from '../helpers/svc.js';
import { until } from '../helpers/until.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(REPO, 'scripts/build-if-stale.mjs');

const dirs: string[] = [];
function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The JSON log lines among a server's output (the rest is what it prints for people). */
const logEntries = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map(
      (l) =>
        JSON.parse(l) as { level: number; msg: string; req?: { url: string }; res?: { statusCode: number } },
    );

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** Moves a file's modification time by `seconds`. */
function shift(path: string, seconds: number): void {
  const { atime, mtime } = statSync(path);
  utimesSync(path, atime, new Date(mtime.getTime() + seconds * 1000));
}

describe('the first start of svc', () => {
  it('prints the generated root password once, framed, with where to sign in; answered requests log nothing, a failure does', async () => {
    const dir = tempDir('first-start');
    const storage = join(dir, 'repositories');
    const env = { SVC_DATA_DIR: join(dir, 'data'), SVC_STORAGES: `default=${storage}` };
    const s = await startSvc(env);
    try {
      const lines = s.output().split('\n');
      const at = lines.findIndex((l) => l.includes('svc: created the administrator "root" with password: '));
      expect(at).toBeGreaterThan(0);
      // A frame: a rule above and below, every line between as wide, a blank line on each side.
      const rule = lines[at - 1]!;
      expect(rule).toMatch(/^\+-{20,}\+$/);
      const close = lines.indexOf(rule, at);
      expect(close).toBeGreaterThan(at);
      expect(lines[at - 2]).toBe('');
      expect(lines[close + 1]).toBe('');
      const inside = lines.slice(at, close);
      for (const line of inside) expect(line).toMatch(new RegExp(`^\\| .{${rule.length - 4}} \\|$`));
      const text = inside.map((l) => l.slice(2, -2).trimEnd());
      expect(text).toContain(`Sign in at ${s.url}/ as root with this password.`);
      expect(text.join('\n')).toContain('shown only this once');
      const password = /with password: (\S+)/.exec(lines[at]!)![1]!;
      expect(password.length).toBeGreaterThanOrEqual(16);
      expect(s.output().split(password)).toHaveLength(2);

      // The password signs in; answered requests (2xx and 4xx) write no log line at the default level.
      const api = http(s.url);
      expect((await api.post('/-/session', { body: { login: 'root', password } })).status).toBe(200);
      for (let i = 0; i < 5; i++) {
        expect((await api.get('/-/health')).status).toBe(200);
        expect((await api.get('/api/v4/version')).status).toBe(401);
        expect((await api.get('/api/v4/no-such-thing')).status).toBe(404);
      }
      // A failure writes a line: the storage directory is gone, so readiness fails (503).
      rmSync(storage, { recursive: true, force: true });
      expect((await api.get('/-/readiness')).status).toBe(503);
      await until(
        () => logEntries(s.output()).some((e) => e.msg === 'request failed'),
        () => `the failed request's log line in:\n${s.output()}`,
      );
      const entries = logEntries(s.output());
      const failed = entries.find((e) => e.msg === 'request failed');
      expect(failed).toMatchObject({ level: 40, req: { url: '/-/readiness' }, res: { statusCode: 503 } });
      // Lines are written in order, so everything the earlier requests logged is out by now: nothing.
      expect(entries.filter((e) => e.req && e.req.url !== '/-/readiness')).toEqual([]);
      expect(entries.filter((e) => e.level <= 30 && /request/.test(e.msg))).toEqual([]);
      expect(entries.some((e) => JSON.stringify(e).includes(password))).toBe(false);
    } finally {
      await s.stop();
    }
  });

  it('SVC_ACCESS_LOG=true writes one line per request, credentials redacted', async () => {
    const dir = tempDir('access-log');
    const token = 'svcpat-access-log-token-00000001';
    const s = await startSvc({
      SVC_DATA_DIR: dir,
      SVC_ROOT_PASSWORD: 'access-log-password',
      SVC_ROOT_TOKEN: token,
      SVC_ACCESS_LOG: 'true',
    });
    try {
      const api = http(s.url);
      expect((await api.get(`/api/v4/user?private_token=${token}`)).status).toBe(200);
      expect((await api.get('/api/v4/user', { token })).status).toBe(200);
      expect((await api.get('/-/health')).status).toBe(200);
      const completed = await until(
        () => {
          const c = logEntries(s.output()).filter((e) => e.msg === 'request completed');
          return c.length >= 3 && c;
        },
        () => `three access log lines in:\n${s.output()}`,
      );
      // The health checks of startSvc came first.
      expect(completed.map((e) => [e.level, e.req?.url, e.res?.statusCode]).slice(-3)).toEqual([
        [30, '/api/v4/user?private_token=[REDACTED]', 200],
        [30, '/api/v4/user', 200],
        [30, '/-/health', 200],
      ]);
      expect(s.output()).not.toContain(token);
      expect(s.output()).not.toContain('access-log-password');
    } finally {
      await s.stop();
    }
  });
});

describe('build once (scripts/build-if-stale.mjs)', () => {
  /** A tree shaped like the repository's inputs and outputs, built once (the stamp written). */
  function builtTree(): string {
    const root = tempDir('build-stamp');
    write(root, 'src/app.ts', 'export const a = 1;\n');
    write(root, 'src/web/index.html', '<html></html>\n');
    write(root, 'src/app.test.ts', 'test\n');
    write(root, 'package.json', '{}\n');
    write(root, 'tsconfig.json', '{}\n');
    // Whole seconds, so that moving them back and forth restores them exactly.
    const when = new Date('2026-01-01T00:00:00Z');
    for (const f of ['src/app.ts', 'src/web/index.html', 'src/app.test.ts', 'package.json', 'tsconfig.json'])
      utimesSync(join(root, f), when, when);
    begin(root);
    write(root, 'dist/server/cli/main.js', '// built\n');
    write(root, 'dist/web/index.html', '<html></html>\n');
    end(root);
    return root;
  }

  it('a build is stale when an input is newer, added or deleted, an output or the stamp missing', () => {
    const root = builtTree();
    expect(staleReason(root)).toBeNull();
    shift(join(root, 'src/app.ts'), 10);
    expect(staleReason(root)).toBe('src/app.ts changed since the last build');
    shift(join(root, 'src/app.ts'), -10);
    expect(staleReason(root)).toBeNull();
    // An older file (a checkout of an older commit) is a change too; so is a config file beside src/.
    shift(join(root, 'src/web/index.html'), -3600);
    shift(join(root, 'tsconfig.json'), 5);
    expect(staleReason(root)).toBe('src/web/index.html changed since the last build (and 1 more)');
    shift(join(root, 'src/web/index.html'), 3600);
    shift(join(root, 'tsconfig.json'), -5);
    // A unit test is not part of the build.
    shift(join(root, 'src/app.test.ts'), 10);
    write(root, 'src/more.test.ts', 'test\n');
    expect(staleReason(root)).toBeNull();
    write(root, 'src/b.ts', 'export const b = 2;\n');
    expect(staleReason(root)).toBe('src/b.ts added since the last build');
    rmSync(join(root, 'src/b.ts'));
    expect(staleReason(root)).toBeNull();
    rmSync(join(root, 'src/web/index.html'));
    expect(staleReason(root)).toBe('src/web/index.html deleted since the last build');
    write(root, 'src/web/index.html', '<html></html>\n');
    utimesSync(
      join(root, 'src/web/index.html'),
      new Date('2026-01-01T00:00:00Z'),
      new Date('2026-01-01T00:00:00Z'),
    );
    rmSync(join(root, 'dist/web/index.html'));
    expect(staleReason(root)).toBe('dist/web/index.html is missing');
    write(root, 'dist/web/index.html', '<html></html>\n');
    rmSync(join(root, STAMP));
    expect(staleReason(root)).toMatch(/^dist\/\.build-stamp\.json is missing/);
  });

  it('runs `npm run build` only when stale; a failed build leaves no stamp, so the next start builds again', async () => {
    const root = tempDir('build-once');
    write(root, 'src/app.ts', 'export const a = 1;\n');
    // The repository's own script with a stand-in build (the real one takes a minute).
    write(root, 'scripts/build-if-stale.mjs', readFileSync(SCRIPT, 'utf8'));
    write(
      root,
      'fake-build.mjs',
      [
        "import { mkdirSync, writeFileSync } from 'node:fs';",
        "if (process.env.FAIL_BUILD) { console.log('FAKE BUILD FAILED'); process.exit(1); }",
        "mkdirSync('dist/server/cli', { recursive: true }); mkdirSync('dist/web', { recursive: true });",
        "writeFileSync('dist/server/cli/main.js', ''); writeFileSync('dist/web/index.html', '');",
        "console.log('FAKE BUILD RAN');",
      ].join('\n'),
    );
    write(
      root,
      'package.json',
      JSON.stringify({
        name: 'fake',
        private: true,
        scripts: {
          prebuild: 'node scripts/build-if-stale.mjs --begin',
          build: 'node fake-build.mjs',
          postbuild: 'node scripts/build-if-stale.mjs --end',
          prestart: 'node scripts/build-if-stale.mjs',
          start: 'echo STARTED',
        },
      }),
    );
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, FAIL_BUILD: '' };
    const start = async (extra: Record<string, string> = {}) => {
      try {
        const r = await run('npm', ['start'], { cwd: root, env: { ...env, ...extra } });
        return { code: 0, out: r.stdout + r.stderr };
      } catch (err) {
        const e = err as { code: number; stdout: string; stderr: string };
        return { code: e.code, out: e.stdout + e.stderr };
      }
    };
    const first = await start();
    expect(first.out).toContain('svc: building (dist/server/cli/main.js is missing)');
    expect(first.out).toContain('FAKE BUILD RAN');
    expect(first.out).toContain('STARTED');
    const second = await start();
    expect(second.out).toContain('svc: build is up to date');
    expect(second.out).not.toContain('FAKE BUILD');
    expect(second.out).toContain('STARTED');
    // An edited source: built again, once.
    shift(join(root, 'src/app.ts'), 5);
    expect((await start()).out).toContain('svc: building (src/app.ts changed since the last build)');
    expect((await start()).out).toContain('svc: build is up to date');
    // A failing build stops the start and leaves no stamp: the next start builds again.
    shift(join(root, 'src/app.ts'), 5);
    const failed = await start({ FAIL_BUILD: '1' });
    expect(failed.code).not.toBe(0);
    expect(failed.out).toContain('FAKE BUILD FAILED');
    expect(failed.out).not.toContain('STARTED');
    const retried = await start();
    expect(retried.out).toMatch(/svc: building \(dist\/\.build-stamp\.json is missing/);
    expect(retried.out).toContain('FAKE BUILD RAN');
  });

  it('a second `npm start` of this checkout does not build, and serves', async ({ annotate }) => {
    // Builds this checkout if its build is stale (as `npm start` would), so that the start below is a second one.
    const build = await run(process.execPath, [SCRIPT], { cwd: REPO, timeout: 600_000 });
    expect(build.stdout).toMatch(/svc: (building|build is up to date)/);
    const dir = tempDir('second-start');
    const began = performance.now();
    const proc: ChildProcess = spawn('npm', ['start'], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        SVC_DATA_DIR: dir,
        SVC_HOST: '127.0.0.1',
        SVC_PORT: '0',
        SVC_ROOT_PASSWORD: 'second-start-password',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npm, the shell and svc stop together.
      detached: true,
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += String(d)));
    proc.stderr!.on('data', (d: Buffer) => (out += String(d)));
    try {
      const url = await until(
        async () => {
          if (proc.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
          const printed = /svc: listening on (http:\/\/\S+)/.exec(out)?.[1];
          if (!printed) return null;
          const health = await fetch(`${printed}/-/health`).catch(() => null);
          return health?.status === 200 ? printed : null;
        },
        () => `npm start to serve:\n${out}`,
        120_000,
        20,
      );
      const seconds = (performance.now() - began) / 1000;
      await annotate(`second npm start served /-/health after ${seconds.toFixed(2)} s`);
      console.log(`second npm start: ${url}/-/health answered after ${seconds.toFixed(2)} s`);
      expect(out).toContain('svc: build is up to date');
      // Neither the compiler nor the bundler ran.
      expect(out).not.toMatch(/> (svc@\S+ )?build|tsc -p|vite build|built in/);
    } finally {
      if (proc.exitCode === null) process.kill(-proc.pid!, 'SIGTERM');
      await new Promise((resolve) => (proc.exitCode === null ? proc.once('exit', resolve) : resolve(null)));
    }
  });
});
