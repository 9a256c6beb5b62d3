import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Errors nothing handled inside the in-process server (a real server would have ended). */
const crashes: unknown[] = [];
process.on('uncaughtException', (err) => crashes.push(err));
process.on('unhandledRejection', (err) => crashes.push(err));

/** Sends one raw request; resolves with the status (0 when the server closed the connection instead). */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | null,
): Promise<{ status: number; text: string }> {
  const u = new URL(base);
  // Framed explicitly: Node's client sends a GET or HEAD body unframed, which is a second (bad) request.
  const length: Record<string, string> = body ? { 'content-length': String(body.length) } : {};
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { connection: 'close', ...length, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', () => resolve({ status: 0, text: '' }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      // The server may answer and close before the whole body went out.
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? resolve({ status: 0, text: '' }) : reject(err),
    );
    req.end(body ?? undefined);
  });
}

/** Printable ASCII only: what an HTTP request line and header values can carry (others percent-encoded). */
const escapePath = (s: string) =>
  s.replace(/[^\x21-\x7e]/g, (c) =>
    [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
const headerValue = fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim());

describe.each(await databases())("git's front under arbitrary requests (property, %s)", (database) => {
  let s: TestServer;
  let project: { id: number; path_with_namespace: string; http_url_to_repo: string };
  let refsBefore: string;
  let repoDir: string;

  beforeAll(async () => {
    s = await startTestServer({ database });
    const api = http(s.url);
    project = (
      await api.post('/api/v4/projects', { token: s.rootToken, body: { name: 'pub', visibility: 'public' } })
    ).body;
    expect((await pushCommit(authUrl(project.http_url_to_repo, 'root', s.rootToken))).push.code).toBe(0);
    repoDir = join(s.dataDir, 'repositories', relativePath('project', project.id));
    refsBefore = (await git(['for-each-ref'], repoDir)).stdout;
  });
  afterAll(() => s?.stop());

  it('no method, path, header or body makes a 500 or ends the process', async () => {
    // Weighted toward the real public project and POST, where git runs and the streams matter.
    const prefix = fc.oneof(
      { weight: 4, arbitrary: fc.constant(() => `/${project.path_with_namespace}`) },
      fc.constantFrom('/root/nope', '/groups/x.wiki', '/snippets/1', '/99999999999', '/', '/%', '/..'),
    );
    const suffix = fc.constantFrom(
      '.git/info/refs?service=git-upload-pack',
      '.git/info/refs?service=git-receive-pack',
      '.git/info/refs',
      '.git/git-upload-pack',
      '.git/git-receive-pack',
      '.GIT/git-upload-pack',
      '.git/git-upload-pack?x=%E0',
    );
    // Mostly nothing between the project path and `.git`, so that most requests reach git.
    const junk = fc.oneof(
      { weight: 3, arbitrary: fc.constant('') },
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    const path = fc
      .tuple(prefix, junk, suffix)
      .map(([p, junk, sfx]) => `${typeof p === 'function' ? p() : p}${escapePath(junk)}${sfx}`);
    const method = fc.oneof(
      { weight: 4, arbitrary: fc.constant('POST') },
      { weight: 2, arbitrary: fc.constant('GET') },
      fc.constantFrom('PUT', 'HEAD', 'OPTIONS', 'DELETE'),
    );
    const body = fc.oneof(
      fc.constant(null),
      fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
      fc
        .constantFrom('0000', '0009done\n', '0014command=ls-refs\n0000', 'PACK', '00', 'ffff')
        .map(Buffer.from),
      fc.uint8Array({ maxLength: 512 }).map((b) => gzipSync(Buffer.from(b))),
    );
    const auth = fc.oneof(
      fc.constant(undefined),
      fc.constant(() => `Basic ${Buffer.from(`root:${s.rootToken}`).toString('base64')}`),
      fc.constantFrom(
        'Basic',
        'Basic !!!',
        'Bearer x',
        `Basic ${Buffer.from('root:wrong').toString('base64')}`,
      ),
      headerValue.map((v) => `Basic ${Buffer.from(v).toString('base64')}`),
    );
    const encoding = fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.constant('gzip') },
      fc.constantFrom('gzip', 'gzip, gzip', 'br', 'identity', 'deflate', 'x-gzip'),
      headerValue,
    );
    const request = fc.record({
      method,
      path,
      body,
      auth,
      encoding,
      protocol: fc.oneof(fc.constant(undefined), fc.constantFrom('version=2', 'version=1'), headerValue),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        const a = typeof r.auth === 'function' ? r.auth() : r.auth;
        if (a) headers.authorization = a;
        if (r.encoding) headers['content-encoding'] = r.encoding;
        if (r.protocol) headers['git-protocol'] = r.protocol;
        const res = await send(s.url, r.method, r.path, headers, r.body);
        // 0: the server closed the connection after answering early; never a 5xx.
        expect(res.status === 0 || (res.status >= 200 && res.status < 500), `${res.status} ${res.text}`).toBe(
          true,
        );
        expect(crashes.map(String)).toEqual([]);
      }),
      { numRuns: 200 },
    );
    expect((await send(s.url, 'GET', '/-/health', {}, null)).status).toBe(200);
    expect((await git(['for-each-ref'], repoDir)).stdout).toBe(refsBefore);
    // A real clone still works afterwards.
    const { dir } = await pushCommit(authUrl(project.http_url_to_repo, 'root', s.rootToken), 'after.txt');
    expect((await git(['log', '--format=%s', '-1'], dir)).stdout.trim()).toBe('Add after.txt');
  });
});
