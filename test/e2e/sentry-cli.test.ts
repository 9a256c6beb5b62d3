import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium, screenshotPath, withSignedInPage } from '../helpers/browser.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git } from '../helpers/git.js';
import { createUser, projectWithMembers } from '../helpers/members.js';
import {
  clientEnv,
  REPO_ROOT,
  type RunResult,
  runClient,
  startStaticServer,
  tempDir,
} from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// The real sentry-cli (npm @sentry/cli, its Linux binary from the optional package) against a real server:
// releases (new, set-commits from the project's own repository, finalize, list), `sourcemaps inject` and
// `sourcemaps upload` of a bundle esbuild minifies here, then events whose minified frames come back as the
// original file, line and function; who may do what, another project's token, and an oversized upload.

const CLI = join(REPO_ROOT, 'node_modules/@sentry/cli/bin/sentry-cli');
const SOURCE = join(REPO_ROOT, 'test/e2e/sentry-cli/app.js');
const LEVELS = { guest: 10, reporter: 20, developer: 30 } as const;
/** A small upload limit (an app with the browser SDK fits), so that an oversized bundle is cheap to make. */
const UPLOAD_LIMIT = 8 * 1024 * 1024;

const throwLine =
  readFileSync(SOURCE, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('THROW-HERE')) + 1;

interface Entry {
  filename: string | null;
  abs_path: string | null;
  function: string | null;
  lineNo: number | null;
  colNo: number | null;
  context: [number, string][];
  minified: Omit<Entry, 'minified'> | null;
}

describe.each(await databases())('sentry-cli releases and source maps (%s)', (database) => {
  let s: TestServer;
  let work: string;
  let org: string;
  let project: { id: number; path: string; tokens: Record<string, string> };
  let dsnKey: string;
  let outsider: { id: number; token: string };
  let outsiderProject: { id: number; key: string };
  let dist: string;
  let heads: string[];

  const cli = (args: string[], token: string, cwd = work): Promise<RunResult> =>
    runClient(CLI, args, {
      cwd,
      timeoutMs: 60_000,
      env: clientEnv({
        SENTRY_URL: s.url,
        SENTRY_AUTH_TOKEN: token,
        SENTRY_ORG: org,
        SENTRY_PROJECT: 'webapp',
        SENTRY_DISABLE_UPDATE_CHECK: 'true',
        SENTRY_NO_PROGRESS_BAR: '1',
        HOME: work,
      }),
    });

  const sentryApi = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${s.url}/api/0${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  /** Turns error tracking on and returns the project's client key. */
  async function clientKey(projectId: number, token: string): Promise<string> {
    const headers = { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' };
    const settings = await fetch(`${s.url}/api/v4/projects/${projectId}/error_tracking/settings`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ active: true, integrated: true }),
    });
    expect(settings.status).toBe(200);
    const key = await fetch(`${s.url}/api/v4/projects/${projectId}/error_tracking/client_keys`, {
      method: 'POST',
      headers,
    });
    expect(key.status).toBe(201);
    return ((await key.json()) as { public_key: string }).public_key;
  }

  /** Runs the minified bundle as a browser would load it from `url`, and returns the error it throws. */
  function runBundle(file: string, url: string): Error {
    const code = readFileSync(file, 'utf8');
    const sandbox: Record<string, unknown> = {};
    try {
      runInNewContext(`${code}\nrunCheckout();`, sandbox, { filename: url });
    } catch (err) {
      return err as Error;
    }
    throw new Error('the bundle did not throw');
  }

  /** A Sentry event built from a real V8 stack trace of the minified bundle (frames caller first). */
  function eventFrom(err: Error, release: string, debugImage: { url: string; debugId: string } | null) {
    const frames = (err.stack ?? '')
      .split('\n')
      .map((l) => /^\s+at (?:(\S+) \()?(.+):(\d+):(\d+)\)?$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({
        function: m[1] ?? '?',
        abs_path: m[2],
        filename: m[2]!.split('/').pop(),
        lineno: Number(m[3]),
        colno: Number(m[4]),
        in_app: true,
      }))
      .reverse();
    return {
      event_id: randomUUID().replaceAll('-', ''),
      platform: 'javascript',
      release,
      exception: { values: [{ type: 'Error', value: err.message, stacktrace: { frames } }] },
      ...(debugImage && {
        debug_meta: {
          images: [{ type: 'sourcemap', code_file: debugImage.url, debug_id: debugImage.debugId }],
        },
      }),
    };
  }

  async function send(projectId: number, key: string, event: object): Promise<void> {
    const res = await fetch(`${s.url}/api/v4/error_tracking/collector/api/${projectId}/store/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${key}, sentry_client=test/1.0`,
      },
      body: JSON.stringify(event),
    });
    expect(res.status).toBe(200);
  }

  async function latestStackTrace(projectId: number, token: string): Promise<Entry[]> {
    const headers = { 'PRIVATE-TOKEN': token };
    const errors = (await (
      await fetch(`${s.url}/api/v4/projects/${projectId}/error_tracking/errors?sort=last_seen`, { headers })
    ).json()) as { id: number }[];
    const st = (await (
      await fetch(
        `${s.url}/api/v4/projects/${projectId}/error_tracking/errors/${errors[0]!.id}/stack_trace`,
        {
          headers,
        },
      )
    ).json()) as { stack_trace_entries: Entry[] };
    return st.stack_trace_entries;
  }

  beforeAll(async () => {
    s = await startTestServer({
      database,
      env: { SVC_OFFERING: 'hosted', SVC_SENTRY_UPLOAD_LIMIT: String(UPLOAD_LIMIT) },
    });
    work = tempDir('svc-sentry-cli-');
    const p = await projectWithMembers(s, 'webapp', LEVELS, database);
    project = p;
    org = p.path.split('/')[0]!;
    dsnKey = await clientKey(p.id, s.rootToken);
    outsider = await createUser(s, `outsider-${database}`);
    const op = await fetch(`${s.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': outsider.token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'webapp' }),
    });
    const opId = ((await op.json()) as { id: number }).id;
    outsiderProject = { id: opId, key: await clientKey(opId, outsider.token) };

    // The project's repository, with three commits, checked out where the CLI runs.
    const info = (await (
      await fetch(`${s.url}/api/v4/projects/${p.id}`, { headers: { 'PRIVATE-TOKEN': s.rootToken } })
    ).json()) as { http_url_to_repo: string };
    const clone = await git(
      ['clone', '--quiet', authUrl(info.http_url_to_repo, 'root', s.rootToken), 'repo'],
      work,
    );
    expect(clone.code, clone.stderr).toBe(0);
    const repo = join(work, 'repo');
    for (const n of [1, 2, 3]) {
      writeFileSync(join(repo, `file${n}.txt`), `${n}\n`);
      await git(['add', '.'], repo);
      const c = await git(
        [
          '-c',
          'user.name=Ada Dev',
          '-c',
          'user.email=ada@example.com',
          'commit',
          '--quiet',
          '-m',
          `Change ${n}`,
        ],
        repo,
      );
      expect(c.code, c.stderr).toBe(0);
    }
    const push = await git(['push', '--quiet', 'origin', 'HEAD:main'], repo);
    expect(push.code, push.stderr).toBe(0);
    heads = (await git(['log', '--format=%H'], repo)).stdout.trim().split('\n');

    // The bundle: esbuild minifies the source with a source map (sources inlined in the map).
    dist = join(work, 'dist');
    const { build } = await import('esbuild');
    // The source sits beside the output, as in an app's checkout: the map names it `../src/app.js`.
    mkdirSync(join(work, 'src'));
    writeFileSync(join(work, 'src/app.js'), readFileSync(SOURCE));
    await build({
      entryPoints: [join(work, 'src/app.js')],
      bundle: true,
      minify: true,
      sourcemap: true,
      format: 'iife',
      outfile: join(dist, 'app.min.js'),
      logLevel: 'silent',
    });
  }, 120_000);

  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('makes, lists and finalizes releases and sets their commits from the project repository', async () => {
    const dev = project.tokens.developer!;
    const created = await cli(['releases', 'new', '1.0.0'], dev);
    expect(created.code, created.summary).toBe(0);
    expect(created.stdout).toContain('Created release 1.0.0');

    // --auto: the checkout's remote is the project's repository, which the organization's repos list.
    const auto = await cli(['releases', 'set-commits', '1.0.0', '--auto'], dev, join(work, 'repo'));
    expect(auto.code, auto.summary).toBe(0);
    const commits = await sentryApi('GET', `/organizations/${org}/releases/1.0.0/commits/`, dev);
    expect(commits.status).toBe(200);
    expect(commits.body.map((c: { id: string }) => c.id)).toEqual(heads);
    expect(commits.body[0]).toMatchObject({
      message: 'Change 3',
      author: { name: 'Ada Dev', email: 'ada@example.com' },
    });

    // Explicit commits: a range of the repository, named as the organization's repos name it.
    const second = await cli(['releases', 'new', '1.0.1'], dev);
    expect(second.code, second.summary).toBe(0);
    const explicit = await cli(
      ['releases', 'set-commits', '1.0.1', '--commit', `${project.path}@${heads[2]}..${heads[0]}`],
      dev,
    );
    expect(explicit.code, explicit.summary).toBe(0);
    const range = await sentryApi('GET', `/organizations/${org}/releases/1.0.1/commits/`, dev);
    expect(range.body.map((c: { id: string }) => c.id)).toEqual([heads[0], heads[1]]);

    const finalized = await cli(['releases', 'finalize', '1.0.0'], dev);
    expect(finalized.code, finalized.summary).toBe(0);
    const one = await sentryApi('GET', `/organizations/${org}/releases/1.0.0/`, dev);
    expect(one.body.dateReleased).not.toBeNull();
    expect(one.body.lastCommit.id).toBe(heads[0]);
    expect(one.body.projects).toEqual([expect.objectContaining({ slug: 'webapp' })]);

    const list = await cli(['releases', 'list'], project.tokens.reporter!);
    expect(list.code, list.summary).toBe(0);
    expect(list.stdout).toContain('1.0.0');
    expect(list.stdout).toContain('1.0.1');
    const raw = await cli(['releases', 'list', '--raw'], dev);
    expect(raw.stdout.trim().split('\n').sort()).toEqual(['1.0.0', '1.0.1']);

    const removed = await cli(['releases', 'delete', '1.0.1'], dev);
    expect(removed.code, removed.summary).toBe(0);
    expect((await sentryApi('GET', `/organizations/${org}/releases/1.0.1/`, dev)).status).toBe(404);
    // Sentry's rule for versions: no slashes.
    const bad = await sentryApi('POST', `/organizations/${org}/releases/`, dev, {
      version: 'a/b',
      projects: ['webapp'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/slashes/);
  });

  it('uploads an injected bundle and resolves minified frames by debug ID and by URL', async () => {
    const dev = project.tokens.developer!;
    const inject = await cli(['sourcemaps', 'inject', dist], dev);
    expect(inject.code, inject.summary).toBe(0);
    const minified = readFileSync(join(dist, 'app.min.js'), 'utf8');
    const debugId = /\/\/# debugId=([0-9a-f-]+)/.exec(minified)?.[1];
    expect(debugId, minified.slice(-300)).toBeDefined();

    const upload = await cli(['sourcemaps', 'upload', '--release', '1.0.0', dist], dev);
    expect(upload.code, upload.summary).toBe(0);
    expect(upload.stdout).toMatch(/File processing complete/);
    // A second upload of the same bundle finds it stored.
    const again = await cli(['sourcemaps', 'upload', '--release', '1.0.0', dist], dev);
    expect(again.code, again.summary).toBe(0);

    // By debug ID: the event's debug_meta names the script's URL and its debug ID.
    const url = 'https://shop.example.com/assets/app.min.js';
    const err = runBundle(join(dist, 'app.min.js'), url);
    await send(project.id, dsnKey, eventFrom(err, '1.0.0', { url, debugId: debugId! }));
    const entries = await latestStackTrace(project.id, s.rootToken);
    const thrown = entries[entries.length - 1]!;
    expect(thrown).toMatchObject({ function: 'computeTotal', lineNo: throwLine });
    expect(thrown).toMatchObject({ filename: 'src/app.js', abs_path: 'https://shop.example.com/src/app.js' });
    expect(thrown.context.find(([n]) => n === throwLine)?.[1]).toContain('THROW-HERE');
    expect(thrown.minified).toMatchObject({ abs_path: url, filename: 'app.min.js' });
    expect(thrown.minified!.function).not.toBe('computeTotal');
    expect(entries.find((e) => e.function === 'checkout')).toBeDefined();

    // The error page shows the original frame and, beside it, the minified one (desktop light, phone dark).
    const errorId = (
      (await (
        await fetch(`${s.url}/api/v4/projects/${project.id}/error_tracking/errors`, {
          headers: { 'PRIVATE-TOKEN': s.rootToken },
        })
      ).json()) as { id: number }[]
    )[0]!.id;
    const browser = await launchChromium();
    try {
      for (const [width, scheme] of [
        [1280, 'light'],
        [390, 'dark'],
      ] as const) {
        await withSignedInPage(
          browser,
          s,
          `sentry-cli-error-${width}-${database}`,
          async (page) => {
            await page.emulateMedia({ colorScheme: scheme });
            await page.goto(`${s.url}/-/ui/projects/${project.id}/errors/${errorId}`);
            const frames = page.getByRole('list', { name: 'Frames' });
            await frames.getByText('computeTotal').first().waitFor();
            expect(await frames.locator('.frame-minified').first().innerText()).toContain(url);
            expect(await frames.getByRole('listitem').first().innerText()).toContain('src/app.js');
            // The release sentry-cli made: its events' first and last sighting, finalized.
            const release = page
              .locator('dt', { hasText: 'Last release' })
              .locator('xpath=following-sibling::dd[1]');
            await release.getByText('first seen').waitFor();
            expect(await release.innerText()).toMatch(
              /^1\.0\.0 · first seen[\s\S]+· last seen[\s\S]+· finalized/,
            );
            await page.screenshot({
              path: screenshotPath(`sentry-cli-error-${width}-${scheme}.png`),
              fullPage: true,
            });
            expect(await axeViolations(page)).toEqual([]);
          },
          { width, height: 900 },
        );
      }
    } finally {
      await browser.close();
    }

    // By URL within the release (`~/app.min.js`), without debug_meta; the event page shows it too.
    const other = 'https://cdn.example.net/app.min.js';
    const byUrl = eventFrom(runBundle(join(dist, 'app.min.js'), other), '1.0.0', null);
    await send(project.id, dsnKey, byUrl);
    const headers = { 'PRIVATE-TOKEN': s.rootToken };
    const errors = (await (
      await fetch(`${s.url}/api/v4/projects/${project.id}/error_tracking/errors`, { headers })
    ).json()) as { id: number }[];
    let detail: { stack_trace_entries: Entry[] } | undefined;
    for (const e of errors) {
      const res = await fetch(
        `${s.url}/api/v4/projects/${project.id}/error_tracking/errors/${e.id}/events/${byUrl.event_id}`,
        { headers },
      );
      if (res.status === 200) detail = (await res.json()) as { stack_trace_entries: Entry[] };
    }
    if (!detail) throw new Error('the event was not stored');
    const last = detail.stack_trace_entries[detail.stack_trace_entries.length - 1]!;
    expect(last).toMatchObject({
      function: 'computeTotal',
      lineNo: throwLine,
      minified: { abs_path: other },
    });

    // The release now has events: first and last seen, and the error it introduced.
    const release = await sentryApi('GET', `/organizations/${org}/releases/1.0.0/`, dev);
    expect(release.body.firstEvent).not.toBeNull();
    expect(release.body.lastEvent).not.toBeNull();
    expect(release.body.newGroups).toBeGreaterThanOrEqual(1);

    // Another project's events never reach this project's files, whatever they name.
    await send(
      outsiderProject.id,
      outsiderProject.key,
      eventFrom(runBundle(join(dist, 'app.min.js'), url), '1.0.0', { url, debugId: debugId! }),
    );
    const foreign = await latestStackTrace(outsiderProject.id, outsider.token);
    expect(foreign.every((e) => e.minified === null)).toBe(true);
  });

  it('takes a minified browser error from @sentry/browser in Chromium to its original line (Vite bundle)', async () => {
    const dev = project.tokens.developer!;
    // The app with the SDK, minified with a source map by Vite, then injected and uploaded as a release's bundle.
    const app = join(work, 'browser');
    mkdirSync(join(app, 'src'), { recursive: true });
    writeFileSync(join(app, 'src/app.js'), readFileSync(SOURCE));
    writeFileSync(
      join(app, 'src/main.js'),
      readFileSync(join(REPO_ROOT, 'test/e2e/sentry-cli/browser-app.js')),
    );
    const { build } = await import('vite');
    await build({
      configFile: false,
      logLevel: 'silent',
      root: app,
      resolve: { alias: { '@sentry/browser': join(REPO_ROOT, 'node_modules/@sentry/browser') } },
      build: {
        outDir: join(app, 'dist'),
        emptyOutDir: true,
        minify: true,
        sourcemap: true,
        rollupOptions: {
          input: join(app, 'src/main.js'),
          output: { format: 'iife', entryFileNames: 'app.min.js' },
        },
      },
    });
    const bundleDir = join(app, 'dist');
    expect((await cli(['releases', 'new', '2.0.0'], dev)).code).toBe(0);
    const inject = await cli(['sourcemaps', 'inject', bundleDir], dev);
    expect(inject.code, inject.summary).toBe(0);
    const upload = await cli(['sourcemaps', 'upload', '--release', '2.0.0', bundleDir], dev);
    expect(upload.code, upload.summary).toBe(0);

    const dsn = (
      (await (
        await fetch(`${s.url}/api/v4/projects/${project.id}/error_tracking/client_keys`, {
          headers: { 'PRIVATE-TOKEN': s.rootToken },
        })
      ).json()) as { public_key: string; sentry_dsn: string }[]
    ).find((k) => k.public_key === dsnKey)!.sentry_dsn;
    const site = await startStaticServer({
      '/': {
        type: 'text/html; charset=utf-8',
        body: '<!doctype html><title>shop</title><script src="/assets/app.min.js"></script>',
      },
      '/assets/app.min.js': {
        type: 'text/javascript; charset=utf-8',
        body: readFileSync(join(bundleDir, 'app.min.js'), 'utf8'),
      },
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${site.url}/`);
      // The page's origin is not the DSN's: the SDK posts cross-origin, as in real life.
      expect(
        await page.evaluate(
          ([d]) =>
            (
              globalThis as unknown as { reportCheckout: (d: string, r: string) => Promise<boolean> }
            ).reportCheckout(d!, '2.0.0'),
          [dsn],
        ),
      ).toBe(true);
    } finally {
      await browser.close();
      await site.close();
    }
    // The SDK's own event, grouped with (or beside) the earlier ones: its newest event is the one to read.
    const headers = { 'PRIVATE-TOKEN': s.rootToken };
    const errors = (await (
      await fetch(`${s.url}/api/v4/projects/${project.id}/error_tracking/errors?sort=last_seen`, { headers })
    ).json()) as { id: number; last_release: string | null }[];
    const error = errors.find((e) => e.last_release === '2.0.0');
    expect(error, JSON.stringify(errors)).toBeDefined();
    const st = (await (
      await fetch(`${s.url}/api/v4/projects/${project.id}/error_tracking/errors/${error!.id}/stack_trace`, {
        headers,
      })
    ).json()) as { stack_trace_entries: Entry[] };
    const thrown = st.stack_trace_entries[st.stack_trace_entries.length - 1]!;
    expect(thrown, JSON.stringify(st.stack_trace_entries)).toMatchObject({
      function: 'computeTotal',
      lineNo: throwLine,
    });
    expect(thrown.filename).toMatch(/src\/app\.js$/);
    expect(thrown.context.find(([n]) => n === throwLine)?.[1]).toContain('THROW-HERE');
    // The SDK names the script in `filename` (no `abs_path`), as every browser SDK does.
    expect(thrown.minified).toMatchObject({ filename: `${site.url}/assets/app.min.js`, abs_path: null });
  });

  it('refuses Guests and Reporters, other namespaces and tokens, in Sentry shape', async () => {
    const body = { version: '2.0.0', projects: ['webapp'] };
    for (const role of ['guest', 'reporter'] as const) {
      const res = await sentryApi('POST', `/organizations/${org}/releases/`, project.tokens[role]!, body);
      expect(res.status, role).toBe(403);
      expect(typeof res.body.detail).toBe('string');
      const chunks = await sentryApi('GET', `/organizations/${org}/chunk-upload/`, project.tokens[role]!);
      expect(chunks.status, role).toBe(403);
      expect(chunks.body.detail).toMatch(/permission/);
    }
    const cliRefused = await cli(['releases', 'new', '2.0.0'], project.tokens.reporter!);
    expect(cliRefused.code).not.toBe(0);
    expect(`${cliRefused.stdout}${cliRefused.stderr}`).toMatch(/403|permission/i);
    // Reporters read; Guests do not.
    expect(
      (await sentryApi('GET', `/projects/${org}/webapp/releases/`, project.tokens.reporter!)).status,
    ).toBe(200);
    expect((await sentryApi('GET', `/projects/${org}/webapp/releases/`, project.tokens.guest!)).status).toBe(
      403,
    );

    // Someone with no part in the project sees nothing of it, and cannot upload to it from their own org.
    const foreign = await sentryApi('POST', `/organizations/${org}/releases/`, outsider.token, body);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: expect.any(String) });
    expect((await sentryApi('GET', `/organizations/${org}/releases/1.0.0/`, outsider.token)).status).toBe(
      404,
    );
    const assemble = await sentryApi(
      'POST',
      `/organizations/outsider-${database}/artifactbundle/assemble/`,
      outsider.token,
      {
        checksum: 'a'.repeat(40),
        chunks: ['a'.repeat(40)],
        projects: ['webapp-missing'],
      },
    );
    expect(assemble.status).toBe(404);
    const upload = await cli(['sourcemaps', 'upload', '--release', '1.0.0', dist], outsider.token);
    expect(upload.code).not.toBe(0);

    // Project access tokens: this project's (Developer) works; another project's is refused.
    const projectToken = async (projectId: number, token: string) => {
      const res = await fetch(`${s.url}/api/v4/projects/${projectId}/access_tokens`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci', scopes: ['api'], access_level: 30 }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { token: string }).token;
    };
    const own = await cli(['releases', 'new', '3.0.0'], await projectToken(project.id, s.rootToken));
    expect(own.code, own.summary).toBe(0);
    const othersToken = await projectToken(outsiderProject.id, outsider.token);
    expect((await sentryApi('POST', `/organizations/${org}/releases/`, othersToken, body)).status).toBe(404);
    const othersCli = await cli(['releases', 'new', '3.0.1'], othersToken);
    expect(othersCli.code).not.toBe(0);
    expect((await sentryApi('GET', `/organizations/${org}/releases/`, 'not-a-token')).status).toBe(401);
    expect((await sentryApi('GET', `/organizations/${org}/releases/`, outsider.token)).status).toBe(404);
  });

  it('refuses an upload beyond the limit, and a chunk larger than announced', async () => {
    const dev = project.tokens.developer!;
    const big = join(work, 'big');
    mkdirSync(big);
    // Random text does not compress: the bundle stays larger than the limit.
    writeFileSync(
      join(big, 'huge.js'),
      `var blob = "${randomBytes(UPLOAD_LIMIT * 2).toString('base64')}";\n`,
    );
    const upload = await cli(['sourcemaps', 'upload', '--release', '1.0.0', big], dev);
    expect(upload.code, upload.summary).not.toBe(0);
    expect(`${upload.stdout}${upload.stderr}`).toMatch(/too large/);

    const options = await sentryApi('GET', `/organizations/${org}/chunk-upload/`, dev);
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({
      chunkSize: UPLOAD_LIMIT,
      maxFileSize: UPLOAD_LIMIT,
      hashAlgorithm: 'sha1',
    });
    const chunk = randomBytes(UPLOAD_LIMIT + 1);
    const form = new FormData();
    const sha = (await import('node:crypto')).createHash('sha1').update(chunk).digest('hex');
    form.append('file', new Blob([chunk]), sha);
    const res = await fetch(`${s.url}/api/0/organizations/${org}/chunk-upload/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev}` },
      body: form,
    });
    expect(res.status).toBe(413);
    // A chunk whose bytes do not match its name is refused, and nothing is kept.
    const wrong = new FormData();
    wrong.append('file', new Blob([Buffer.from('hello')]), 'f'.repeat(40));
    const mismatch = await fetch(`${s.url}/api/0/organizations/${org}/chunk-upload/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev}` },
      body: wrong,
    });
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { detail: string }).detail).toMatch(/does not match its checksum/);
    expect(((await res.json()) as { detail: string }).detail).toContain(`at most ${UPLOAD_LIMIT} bytes`);
  });
});
