import { rmSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildGoSender,
  bundleBrowserSdk,
  createSentryProject,
  debianGem,
  ENVIRONMENT,
  type ErrorJson,
  errorTrackingApi,
  fixture,
  lineOf,
  missingRuntime,
  RELEASE,
  type RunResult,
  runClient,
  type SentryProject,
  startStaticServer,
  tempDir,
} from '../helpers/sentry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

// Real Sentry clients (npm and Debian packages) against the real server's collector; each client gets its own
// project, sends one exception (thrown from a named function, per user) and one message, and everything is checked
// through the REST API. Senders live in test/e2e/sentry/ and run as child processes (the SDKs keep global state).

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const missing = {
  python: missingRuntime(
    ['/usr/bin/python3', '/usr/lib/python3/dist-packages/sentry_sdk/__init__.py'],
    'python3-sentry-sdk',
  ),
  ruby: missingRuntime(
    ['/usr/bin/ruby', debianGem('sentry-raven') ?? '/usr/share/rubygems-integration/all/gems/sentry-raven-*'],
    'ruby-sentry-raven',
  ),
  go: missingRuntime(
    ['/usr/bin/go', '/usr/share/gocode/src/github.com/getsentry/sentry-go/client.go'],
    'golang-go golang-github-getsentry-sentry-go-dev',
  ),
  chromium: missingRuntime([CHROMIUM], 'chromium'),
};

/** Skipped locally when the runtime is missing; in CI it runs and fails with the reason. */
const skipLocally = (reason: string | null) => reason !== null && !process.env.CI;
const requireRuntime = (reason: string | null) => {
  if (reason) throw new Error(`required in CI: ${reason}`);
};

/** What one client must have produced. */
interface Expected {
  readonly label: string;
  readonly platform: string;
  readonly exceptionType: string;
  readonly exceptionValue: string;
  readonly messageText: string;
  /** The sender file, and text on the line that raises, to check file names and line numbers. */
  readonly file: string;
  readonly raiseMarker: string;
  readonly sendsContext: boolean;
  readonly users: readonly string[];
}

let s: TestServer;
let goDir: string | undefined;
let goBinary: Promise<string> | undefined;
let projectCounter = 0;

beforeAll(async () => {
  // Build the Go sender while the server starts (offline, GOPATH mode over Debian's gocode).
  if (!missing.go) {
    goDir = tempDir('svc-sentry-go-');
    goBinary = buildGoSender(goDir);
    goBinary.catch(() => undefined); // reported by the Go test
  }
  s = await startTestServer({ env: { SVC_OFFERING: 'hosted' } });
});

afterAll(async () => {
  await goBinary?.catch(() => undefined);
  await s?.stop();
  if (goDir) rmSync(goDir, { recursive: true, force: true });
});

/** A project per client (names keep to GitLab's allowed characters). */
const newProject = (label: string): Promise<SentryProject> =>
  createSentryProject(
    s.url,
    s.rootToken,
    `Sentry ${label.replace(/[^\w .-]+/g, ' ').trim()} ${++projectCounter}`,
  );

/** The server must have answered every request of the SDK with 200 (events, sessions, client reports). */
function expectAllAccepted(run: RunResult) {
  expect(run.code, run.summary).toBe(0);
  const refused = run.sends.filter((x) => x.status !== 200);
  expect(refused, `requests the server did not answer with 200\n${run.summary}`).toEqual([]);
}

/** Checks errors, counts, users, dates, releases, stack trace and events of one client's project. */
async function expectReported(project: SentryProject, exp: Expected, run: RunResult, startedAt: number) {
  const api = errorTrackingApi(s.url, s.rootToken, project.id);
  const isException = (e: ErrorJson) => e.type === exp.exceptionType;
  const isMessage = (e: ErrorJson) =>
    `${e.title} ${e.message}`.includes(exp.messageText) && e.type !== exp.exceptionType;
  let last: ErrorJson[] = [];
  const errors = await until(
    async () => {
      last = await api.errors();
      const ex = last.find(isException);
      return ex && ex.count >= exp.users.length && last.some(isMessage) ? last : null;
    },
    () =>
      `${exp.label}: an exception error (${exp.exceptionType}, count ${exp.users.length}) and a message error; errors now:\n${JSON.stringify(last, null, 2)}\n${run.summary}`,
  );
  const ctx = `${exp.label}\nerrors: ${JSON.stringify(errors, null, 2)}\n${run.summary}`;
  const finishedAt = Date.now();
  expect(errors, ctx).toHaveLength(2);

  // The exception.
  const ex = errors.find(isException)!;
  expect(ex.title, ctx).toContain(exp.exceptionType);
  expect(`${ex.title} ${ex.message}`, ctx).toContain(exp.exceptionValue);
  expect(ex.platform, ctx).toBe(exp.platform);
  expect(ex.status, ctx).toBe('unresolved');
  expect(ex.count, ctx).toBe(exp.users.length);
  expect(ex.user_count, ctx).toBe(exp.users.length);
  expect(ex.culprit, ctx).toBeTruthy();
  expect(ex.tags.feature, ctx).toBe('checkout');
  expectSeen(ex, startedAt, finishedAt, ctx);
  expect([ex.first_release, ex.last_release, ex.environment], ctx).toEqual([RELEASE, RELEASE, ENVIRONMENT]);

  const trace = await api.stackTrace(ex.id);
  const tctx = `${exp.label}\nstack trace: ${JSON.stringify(trace, null, 2)}`;
  expect(String(trace.issue_id), tctx).toBe(String(ex.id));
  expect(Number.isNaN(Date.parse(trace.date_received)), tctx).toBe(false);
  const entries = trace.stack_trace_entries;
  expect(entries.length, tctx).toBeGreaterThanOrEqual(2);
  // Every frame has a file name (sentry-go sends only abs_path; svc derives the name).
  for (const f of entries) expect(f.filename, tctx).toBeTruthy();
  const inFile = entries.filter((f) => `${f.filename ?? ''} ${f.abs_path ?? ''}`.includes(exp.file));
  const fn = (name: string) => inFile.find((f) => f.function === name || f.function?.endsWith(`.${name}`));
  const divide = fn('divide');
  const checkout = fn('checkout');
  expect(divide, tctx).toBeDefined();
  expect(checkout, tctx).toBeDefined();
  // Frames are caller first: checkout comes before divide, and divide's line is the line that raises.
  expect(entries.indexOf(checkout!), tctx).toBeLessThan(entries.indexOf(divide!));
  const raiseLine = lineOf(exp.file, exp.raiseMarker);
  expect(divide!.lineNo, tctx).toBe(raiseLine);
  expect(checkout!.lineNo, tctx).toBe(lineOf(exp.file, 'divide(1, 0)'));
  if (exp.sendsContext) {
    const code = fixture(exp.file).split('\n')[raiseLine - 1];
    // raven-ruby sends context lines with their newline; svc stores the code only.
    expect(divide!.context, tctx).toContainEqual([raiseLine, code]);
    expect(divide!.context.length, tctx).toBeGreaterThan(1);
  }

  const exEvents = await api.events(ex.id);
  const ectx = `${exp.label}\nevents: ${JSON.stringify(exEvents, null, 2)}`;
  expect(exEvents, ectx).toHaveLength(exp.users.length);
  for (const e of exEvents) {
    expect(e.event_id, ectx).toMatch(/^[0-9a-f]{32}$/);
    expect([e.level, e.environment, e.release], ectx).toEqual(['error', ENVIRONMENT, RELEASE]);
    expect(e.user_key, ectx).toBeTruthy();
  }
  expect(new Set(exEvents.map((e) => e.user_key)).size, ectx).toBe(exp.users.length);
  expect(new Set(exEvents.map((e) => e.event_id)).size, ectx).toBe(exp.users.length);

  // The message.
  const msg = errors.find(isMessage)!;
  // Every SDK's captureMessage is a message error, with or without a synthetic exception.
  expect(msg.type, ctx).toBe('Message');
  expect(msg.culprit, ctx).toBe('');
  expect(msg.count, ctx).toBe(1);
  expect(msg.user_count, ctx).toBe(1);
  expect(msg.platform, ctx).toBe(exp.platform);
  expect(msg.status, ctx).toBe('unresolved');
  expectSeen(msg, startedAt, finishedAt, ctx);
  expect([msg.first_release, msg.last_release, msg.environment], ctx).toEqual([
    RELEASE,
    RELEASE,
    ENVIRONMENT,
  ]);
  const msgEvents = await api.events(msg.id);
  const mctx = `${exp.label}\nmessage events: ${JSON.stringify(msgEvents, null, 2)}`;
  expect(msgEvents, mctx).toHaveLength(1);
  expect([msgEvents[0]!.level, msgEvents[0]!.environment, msgEvents[0]!.release], mctx).toEqual([
    'warning',
    ENVIRONMENT,
    RELEASE,
  ]);
  expect(msgEvents[0]!.message, mctx).toContain(exp.messageText);
  expect(msgEvents[0]!.user_key, mctx).toBeTruthy();
}

/** First and last seen are the events' own times: within the run (a little slack for clock rounding). */
function expectSeen(e: ErrorJson, startedAt: number, finishedAt: number, ctx: string) {
  const first = Date.parse(e.first_seen);
  const last = Date.parse(e.last_seen);
  expect(Number.isNaN(first) || Number.isNaN(last), ctx).toBe(false);
  expect(first, ctx).toBeLessThanOrEqual(last);
  expect(first, ctx).toBeGreaterThanOrEqual(startedAt - 2_000);
  expect(last, ctx).toBeLessThanOrEqual(finishedAt + 2_000);
}

const nodeExpected = (label: string, pkg: string, users: string[]): Expected => ({
  label,
  platform: 'node',
  exceptionType: 'RangeError',
  exceptionValue: 'division by zero',
  messageText: `svc e2e message from ${pkg}`,
  file: 'node-send.mjs',
  raiseMarker: "throw new RangeError('division by zero')",
  sendsContext: true,
  users,
});

describe('real Sentry SDKs → integrated error tracking (hosted)', () => {
  for (const [label, pkg] of [
    ['@sentry/node (latest)', '@sentry/node'],
    ['@sentry/node 7.38.0', '@sentry/node-7'],
  ] as const) {
    it(`${label}: exception from two users and a message`, async () => {
      const project = await newProject(label);
      const startedAt = Date.now();
      const run = await runClient(process.execPath, ['node-send.mjs', pkg, project.dsn, '42,43']);
      expectAllAccepted(run);
      expect(
        run.sends.filter((x) => x.types?.includes('event')),
        run.summary,
      ).toHaveLength(3);
      await expectReported(project, nodeExpected(label, pkg, ['42', '43']), run, startedAt);
    });
  }

  it.skipIf(skipLocally(missing.python))(
    'Debian python3-sentry-sdk: exception from two users and a message',
    async () => {
      requireRuntime(missing.python);
      const project = await newProject('python');
      const startedAt = Date.now();
      // Debian's interpreter: `python3` on PATH may be another one that does not see dist-packages.
      const run = await runClient('/usr/bin/python3', ['python-send.py', project.dsn, '42,43']);
      expectAllAccepted(run);
      expect(run.sends, run.summary).toHaveLength(3);
      await expectReported(
        project,
        {
          label: 'sentry-python',
          platform: 'python',
          exceptionType: 'ZeroDivisionError',
          exceptionValue: 'division by zero',
          messageText: 'svc e2e message from sentry-python',
          file: 'python-send.py',
          raiseMarker: 'return a / b',
          sendsContext: true,
          users: ['42', '43'],
        },
        run,
        startedAt,
      );
    },
  );

  it.skipIf(skipLocally(missing.ruby))(
    'Debian ruby-sentry-raven: exception from two users and a message',
    async () => {
      requireRuntime(missing.ruby);
      const project = await newProject('ruby');
      const startedAt = Date.now();
      // Raven posts base64(zlib(JSON)) to /store/ and exits non-zero here when the server refused an event.
      const run = await runClient('/usr/bin/ruby', ['ruby-send.rb', project.dsn, '42,43']);
      expect(run.code, run.summary).toBe(0);
      expect(run.stderr, run.summary).not.toContain('Unable to record event');
      await expectReported(
        project,
        {
          label: 'raven-ruby',
          platform: 'ruby',
          exceptionType: 'ZeroDivisionError',
          exceptionValue: 'divided by 0',
          messageText: 'svc e2e message from raven-ruby',
          file: 'ruby-send.rb',
          raiseMarker: '  a / b',
          sendsContext: true,
          users: ['42', '43'],
        },
        run,
        startedAt,
      );
    },
  );

  it.skipIf(skipLocally(missing.go))(
    'Debian sentry-go (built offline): exception from two users and a message',
    async () => {
      requireRuntime(missing.go);
      const binary = await goBinary!;
      const project = await newProject('go');
      const startedAt = Date.now();
      const run = await runClient(binary, [project.dsn, '42,43']);
      expectAllAccepted(run);
      expect(run.sends, run.summary).toHaveLength(3);
      await expectReported(
        project,
        {
          label: 'sentry-go',
          platform: 'go',
          // pkg/errors' error type, as sentry-go reports it (reflect.TypeOf(err).String()).
          exceptionType: '*errors.fundamental',
          exceptionValue: 'division by zero',
          messageText: 'svc e2e message from sentry-go',
          file: 'go-send.go',
          raiseMarker: 'errors.New("division by zero")',
          sendsContext: true,
          users: ['42', '43'],
        },
        run,
        startedAt,
      );
    },
  );

  it.skipIf(skipLocally(missing.chromium))(
    '@sentry/browser in Chromium (cross-origin): exception and message',
    async () => {
      requireRuntime(missing.chromium);
      const project = await newProject('browser');
      const site = await startStaticServer({
        '/': { type: 'text/html; charset=utf-8', body: fixture('browser-page.html') },
        '/sentry.js': { type: 'text/javascript; charset=utf-8', body: await bundleBrowserSdk() },
        '/browser-page.js': { type: 'text/javascript; charset=utf-8', body: fixture('browser-page.js') },
        '/favicon.ico': { type: 'image/x-icon', body: '' },
      });
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      const log: string[] = [];
      let result: { flushed: boolean; sends: RunResult['sends']; error?: string; version?: string };
      const startedAt = Date.now();
      try {
        const page = await browser.newPage();
        page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
        page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
        page.on('requestfailed', (r) => log.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
        await page.goto(`${site.url}/?dsn=${encodeURIComponent(project.dsn)}&user=42`);
        await page.waitForFunction('window.__sentryDone', undefined, { timeout: 20_000 });
        result = (await page.evaluate('window.__sentryDone')) as typeof result;
      } finally {
        await browser.close();
        await site.close();
      }
      const run: RunResult = {
        code: result.flushed && !result.error ? 0 : 1,
        signal: null,
        stdout: '',
        stderr: log.join('\n'),
        sends: result.sends,
        summary: `@sentry/browser ${result.version ?? '?'} in Chromium: ${JSON.stringify(result)}\n${log.join('\n')}`,
      };
      expectAllAccepted(run);
      await expectReported(
        project,
        {
          label: '@sentry/browser',
          platform: 'javascript',
          exceptionType: 'RangeError',
          exceptionValue: 'division by zero',
          messageText: 'svc e2e message from @sentry/browser',
          file: 'browser-page.js',
          raiseMarker: "throw new RangeError('division by zero')",
          // The browser SDK cannot read source files: no context lines.
          sendsContext: false,
          users: ['42'],
        },
        run,
        startedAt,
      );
    },
  );
});
