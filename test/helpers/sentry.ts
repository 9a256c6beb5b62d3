import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { http } from './http.js';

/** Sender scripts and fixtures of the Sentry SDK end-to-end test. */
export const SENTRY_DIR = fileURLToPath(new URL('../e2e/sentry/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The release and environment every sender script sets. */
export const RELEASE = 'svc-e2e@1.2.3';
export const ENVIRONMENT = 'e2e';

/** One row of `GET /projects/:id/error_tracking/errors`. */
export interface ErrorJson {
  id: number | string;
  title: string;
  type: string;
  message: string;
  culprit: string;
  platform: string;
  status: string;
  count: number;
  user_count: number;
  first_seen: string;
  last_seen: string;
  first_release: string | null;
  last_release: string | null;
  environment: string | null;
  tags: Record<string, string>;
}

export interface StackTraceEntryJson {
  filename: string | null;
  abs_path: string | null;
  function: string | null;
  lineNo: number | null;
  colNo: number | null;
  context: [number, string][];
}

export interface StackTraceJson {
  issue_id: number | string;
  date_received: string;
  stack_trace_entries: StackTraceEntryJson[];
}

export interface EventJson {
  event_id: string;
  timestamp: string;
  level: string;
  environment: string | null;
  release: string | null;
  message: string;
  user_key: string | null;
}

/** A project with integrated error tracking on and one client key. */
export interface SentryProject {
  readonly id: number;
  readonly dsn: string;
  readonly publicKey: string;
}

/**
 * Why a client cannot run here (`null` when it can). Outside CI the test skips that client and prints the reason;
 * in CI (`CI` set) a missing runtime is a failure, never a skip.
 */
export function missingRuntime(paths: readonly string[], debianPackages: string): string | null {
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length === 0) return null;
  const reason = `${missing.join(', ')} not found: install the Debian package(s) ${debianPackages}`;
  if (!process.env.CI) console.warn(`[sentry e2e] skipping: ${reason}`);
  return reason;
}

/** The directory of a gem installed from a Debian package (`ruby-<name>`), or null. */
export function debianGem(name: string): string | null {
  const dir = '/usr/share/rubygems-integration/all/gems';
  if (!existsSync(dir)) return null;
  const found = readdirSync(dir).find(
    (d) => d.startsWith(`${name}-`) && /^\d/.test(d.slice(name.length + 1)),
  );
  return found ? join(dir, found) : null;
}

const describeRes = (what: string, res: { status: number; body: unknown }) =>
  `${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`;

/** Creates a project, turns integrated error tracking on and creates a client key (DSN). */
export async function createSentryProject(base: string, token: string, name: string): Promise<SentryProject> {
  const api = http(base);
  const project = await api.post<{ id: number }>('/api/v4/projects', { token, body: { name } });
  if (project.status !== 201) throw new Error(describeRes('POST /projects', project));
  const id = project.body.id;
  const settings = await api.put(`/api/v4/projects/${id}/error_tracking/settings`, {
    token,
    body: { active: true, integrated: true },
  });
  if (settings.status !== 200) throw new Error(describeRes('PUT error_tracking/settings', settings));
  const key = await api.post<{ public_key: string; sentry_dsn: string; active: boolean }>(
    `/api/v4/projects/${id}/error_tracking/client_keys`,
    { token },
  );
  if (key.status !== 201) throw new Error(describeRes('POST error_tracking/client_keys', key));
  return { id, dsn: key.body.sentry_dsn, publicKey: key.body.public_key };
}

/** Reads the errors, stack traces and events of a project through the REST API. */
export function errorTrackingApi(base: string, token: string, projectId: number) {
  const api = http(base);
  const prefix = `/api/v4/projects/${projectId}/error_tracking/errors`;
  const get = async <T>(path: string): Promise<T> => {
    const res = await api.get<T>(path, { token });
    if (res.status !== 200) throw new Error(describeRes(`GET ${path}`, res));
    return res.body;
  };
  return {
    errors: () => get<ErrorJson[]>(`${prefix}?per_page=100`),
    stackTrace: (errorId: number | string) => get<StackTraceJson>(`${prefix}/${errorId}/stack_trace`),
    events: (errorId: number | string) => get<EventJson[]>(`${prefix}/${errorId}/events?per_page=100`),
  };
}

/** What a sender process did: its exit, output, and the `SEND {...}` lines it printed (one per HTTP request). */
export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly sends: { types?: string[]; path?: string; status?: number | null; error?: string }[];
  /** Exit, output tail and requests, for assertion messages. */
  readonly summary: string;
}

/** The environment for a client process: no proxies (the DSN is on loopback), no loader hooks of the test runner. */
export function clientEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(https?_proxy|all_proxy|no_proxy|node_options|sentry_.*)$/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs a client process to completion (killed after `timeoutMs`). */
export function runClient(
  cmd: string,
  args: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? SENTRY_DIR,
      env: opts.env ?? clientEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const sends = stdout
        .split('\n')
        .filter((l) => l.startsWith('SEND '))
        .map((l) => JSON.parse(l.slice(5)));
      const summary = [
        `${cmd} ${args.join(' ')} → exit ${code}${signal ? ` (${signal})` : ''}`,
        `stdout:\n${stdout.slice(-3000)}`,
        `stderr (tail):\n${stderr.slice(-3000)}`,
      ].join('\n');
      resolve({ code, signal, stdout, stderr, sends, summary });
    });
  });
}

/**
 * Builds the sentry-go sender offline: GOPATH mode over Debian's /usr/share/gocode (sentry-go 0.11 and its
 * dependencies, from golang-github-getsentry-sentry-go-dev), module proxy off, caches in a temporary directory.
 * Returns the path of the binary.
 */
export async function buildGoSender(outDir: string): Promise<string> {
  const out = join(outDir, 'go-send');
  const res = await runClient('/usr/bin/go', ['build', '-o', out, 'go-send.go'], {
    env: clientEnv({
      GO111MODULE: 'off',
      GOPATH: `${join(outDir, 'gopath')}:/usr/share/gocode`,
      GOCACHE: join(outDir, 'gocache'),
      GOPROXY: 'off',
      GOFLAGS: '',
      GOENV: 'off',
      GOTOOLCHAIN: 'local',
      // The standard library comes precompiled with cgo; without a C compiler fall back to a pure-Go build.
      CGO_ENABLED: existsSync('/usr/bin/gcc') ? '1' : '0',
    }),
    timeoutMs: 60_000,
  });
  if (res.code !== 0) throw new Error(`go build failed\n${res.summary}`);
  return out;
}

/**
 * Bundles the parts of @sentry/browser the page uses into one IIFE (global `Sentry`) with Vite, offline: the npm
 * package ships no prebuilt browser bundle (only build/npm/{esm,cjs}).
 */
export async function bundleBrowserSdk(): Promise<string> {
  const { build } = await import('vite');
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    root: REPO_ROOT,
    build: {
      write: false,
      minify: false,
      emptyOutDir: false,
      lib: {
        entry: join(SENTRY_DIR, 'browser-entry.mjs'),
        name: 'Sentry',
        formats: ['iife'],
        fileName: () => 'sentry.js',
      },
    },
  });
  const result = Array.isArray(out) ? out[0] : out;
  if (!result || !('output' in result)) throw new Error('vite build returned no output');
  const chunk = result.output.find((o) => o.type === 'chunk');
  if (!chunk || chunk.type !== 'chunk') throw new Error('vite build produced no chunk');
  return chunk.code;
}

/** A static file server on 127.0.0.1 (a page origin other than the DSN's, so the SDK posts cross-origin). */
export async function startStaticServer(
  files: Record<string, { type: string; body: string }>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://x').pathname];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const addr = srv.address();
  if (!addr || typeof addr !== 'object') throw new Error('static server has no port');
  return {
    url: `http://127.0.0.1:${addr.port}`,
    close: () => new Promise((resolve) => srv.close(() => resolve())),
  };
}

/** A fixture file of the Sentry test, as text. */
export const fixture = (name: string) => readFileSync(join(SENTRY_DIR, name), 'utf8');

/** The 1-based line of `file` that contains `marker` (each marker occurs once). */
export function lineOf(name: string, marker: string): number {
  const lines = fixture(name).split('\n');
  const i = lines.findIndex((l) => l.includes(marker));
  if (i < 0) throw new Error(`${marker} not found in ${name}`);
  return i + 1;
}

/** A temporary directory for build outputs. */
export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
