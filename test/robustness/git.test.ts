import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { relativePath } from '../../src/git/git.js';
import { databases } from '../helpers/databases.js';
import { authUrl, git, pushCommit } from '../helpers/git.js';
import { http } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);

/** A raw HTTP exchange (fetch cannot send some of what hostile clients send). */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, method, path, headers: { connection: 'close', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer and stop reading before the whole body is sent: that is allowed.
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls `check` until it returns true; fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((r) => setImmediate(r));
  }
}

/** git processes whose command line names `path`. */
async function gitProcessesOn(path: string): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'pid,args']);
  return stdout.split('\n').filter((l) => l.includes(path) && /\bgit\b/.test(l));
}

/**
 * The server runs in this process: an error nothing handled (which would end a real server) is recorded here
 * and fails the test that caused it.
 */
const crashes: unknown[] = [];
process.on('uncaughtException', (err) => crashes.push(err));
process.on('unhandledRejection', (err) => crashes.push(err));
afterEach(() => {
  expect(crashes.splice(0).map(String)).toEqual([]);
});

describe.each(await databases())('git smart HTTP and snippets under hostile input (%s)', (database) => {
  let s: TestServer;
  let api: ReturnType<typeof http>;
  let project: { id: number; http_url_to_repo: string; path_with_namespace: string };
  let repoDir: string;
  let refsBefore: string;

  const health = async () => (await api.get('/-/health')).status;
  const refs = async () => (await git(['for-each-ref'], repoDir)).stdout;
  const gitPath = (suffix: string) => `/${project.path_with_namespace}.git/${suffix}`;

  beforeAll(async () => {
    s = await startTestServer({ database });
    api = http(s.url);
    const p = await api.post('/api/v4/projects', {
      token: s.rootToken,
      body: { name: 'open-source', visibility: 'public' },
    });
    expect(p.status).toBe(201);
    project = p.body;
    repoDir = join(s.dataDir, 'repositories', relativePath('project', project.id));
    const { push } = await pushCommit(authUrl(project.http_url_to_repo, 'root', s.rootToken));
    expect(push.code).toBe(0);
    refsBefore = await refs();
    expect(refsBefore).toContain('refs/heads/main');
  });
  afterAll(() => s?.stop());

  it('survives an upload-pack request that ends with a flush and goes on for 1 MiB (EPIPE)', async () => {
    const body = Buffer.concat([Buffer.from('0000'), randomBytes(1024 * 1024)]);
    for (let i = 0; i < 3; i++) {
      const r = await raw(
        s.url,
        'POST',
        gitPath('git-upload-pack'),
        { 'content-type': 'application/x-git-upload-pack-request' },
        body,
      );
      // git reads the flush (no wants), answers nothing and exits: an empty result, not a crash.
      expect(r.status).toBe(200);
      expect(r.text).toBe('');
    }
    expect(await health()).toBe(200);
    expect(await refs()).toBe(refsBefore);
  });

  it('answers 400 to a gzip-labelled body that is not gzip, and 415 to other or stacked encodings', async () => {
    const post = (encoding: string, body: Buffer) =>
      raw(
        s.url,
        'POST',
        gitPath('git-upload-pack'),
        { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': encoding },
        body,
      );
    const notGzip = await post('gzip', Buffer.from('0123456789abcdef'));
    expect(notGzip.status).toBe(400);
    expect(notGzip.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(notGzip.text).toBe('The request body is not valid gzip\n');
    const truncated = await post('gzip', gzipSync(Buffer.from('0000')).subarray(0, 12));
    expect(truncated.status).toBe(400);
    for (const encoding of ['gzip, gzip', 'br', 'deflate', 'gzip, identity, gzip', 'compress']) {
      const r = await post(encoding, gzipSync(gzipSync(Buffer.from('0000'))));
      expect(r.status).toBe(415);
      expect(r.text).toBe('Unsupported Content-Encoding: git requests take at most one layer of gzip\n');
    }
    // One real gzip layer still works (what git sends for large negotiations).
    const ok = await post('gzip', gzipSync(Buffer.from('0000')));
    expect(ok.status).toBe(200);
    expect(await health()).toBe(200);
  });

  it('refuses a gzip bomb with 413 before git has read it all', async () => {
    // 64 MiB of the same want line (git keeps reading wants until a flush) in a few hundred KiB of gzip.
    const head = (await git(['rev-parse', 'main'], repoDir)).stdout.trim();
    const line = Buffer.from(`0032want ${head}\n`);
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024 - ((64 * 1024 * 1024) % line.length), line), {
      level: 9,
    });
    expect(bomb.length).toBeLessThan(512 * 1024);
    const r = await raw(
      s.url,
      'POST',
      gitPath('git-upload-pack'),
      { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      bomb,
    );
    expect(r.status).toBe(413);
    expect(r.text).toBe('The gzip request body expands too much\n');
    expect(await health()).toBe(200);
  });

  it('answers 4xx, never 500, to garbage and misrouted git requests', async () => {
    const garbage = await raw(s.url, 'POST', gitPath('git-upload-pack'), {}, Buffer.from('hello git\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.text).toBe('git upload-pack could not read the request\n');
    const cases: [string, string, number, string][] = [
      ['POST', gitPath('info/refs?service=git-upload-pack'), 405, 'Method Not Allowed\n'],
      ['GET', gitPath('git-upload-pack'), 405, 'Method Not Allowed\n'],
      ['GET', gitPath('info/refs?service=git-dumb'), 403, 'Only the smart HTTP protocol is supported\n'],
      ['GET', gitPath('info/refs'), 403, 'Only the smart HTTP protocol is supported\n'],
      [
        'GET',
        '/99999999999999999999.git/info/refs?service=git-upload-pack',
        401,
        'HTTP Basic: Access denied\n',
      ],
      [
        'GET',
        '/snippets/99999999999.git/info/refs?service=git-upload-pack',
        401,
        'HTTP Basic: Access denied\n',
      ],
      ['GET', '/groups/x.wiki.git/info/refs?service=git-upload-pack', 401, 'HTTP Basic: Access denied\n'],
      [
        'GET',
        '/root/open-source%00.git/info/refs?service=git-upload-pack',
        401,
        'HTTP Basic: Access denied\n',
      ],
      // A newline ends the path pattern: no git path, the API's not-found answer.
      ['POST', '/root/open-source%0A.git/git-upload-pack', 404, '{"error":"404 Not Found"}'],
    ];
    for (const [method, path, status, text] of cases) {
      const r = await raw(s.url, method, path);
      expect([path, r.status, r.text]).toEqual([path, status, text]);
    }
    const badEscape = await raw(s.url, 'GET', '/%E0%A4%A.git/info/refs?service=git-upload-pack');
    expect(badEscape.status).toBeGreaterThanOrEqual(400);
    expect(badEscape.status).toBeLessThan(500);
    // Pushing anonymously is refused before git runs.
    const push = await raw(s.url, 'POST', gitPath('git-receive-pack'), {}, Buffer.from('0000'));
    expect(push.status).toBe(401);
    expect(await health()).toBe(200);
    expect(await refs()).toBe(refsBefore);
  });

  it('kills git when the client goes away in the middle of a request', async () => {
    const u = new URL(s.url);
    const req = httpRequest({
      host: u.hostname,
      port: u.port,
      method: 'POST',
      path: gitPath('git-upload-pack'),
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined);
    // A want line of a real commit and no end: git waits for more.
    const head = (await git(['rev-parse', 'main'], repoDir)).stdout.trim();
    req.write(`0032want ${head}\n`);
    await eventually(async () => (await gitProcessesOn(repoDir)).length > 0);
    req.destroy();
    await eventually(async () => (await gitProcessesOn(repoDir)).length === 0);
    expect(await health()).toBe(200);
  });

  it('refuses a push over receive_max_input_size with a message git shows; smaller pushes and clones work', async () => {
    const settings = await api.get('/api/v4/application/settings', { token: s.rootToken });
    expect(settings.body.receive_max_input_size).toBe(0);
    const bad = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { receive_max_input_size: -1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: { receive_max_input_size: ['must be an integer from 0 to 1048576'] },
    });
    const set = await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { receive_max_input_size: 1 },
    });
    expect(set.status).toBe(200);
    expect(set.body.receive_max_input_size).toBe(1);

    const url = authUrl(project.http_url_to_repo, 'root', s.rootToken);
    const dir = mkdtempSync(join(tmpdir(), 'svc-git-'));
    expect((await git(['clone', '--quiet', url, 'w'], dir)).code).toBe(0);
    const w = join(dir, 'w');
    // 3 MiB of random bytes do not compress: the pack is larger than 1 MB.
    writeFileSync(join(w, 'big.bin'), randomBytes(3 * 1024 * 1024));
    await git(['add', 'big.bin'], w);
    await git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'big'], w);
    const push = await git(['push', 'origin', 'HEAD:main'], w);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('pack exceeds maximum allowed size');
    expect(await refs()).toBe(refsBefore);
    expect(await health()).toBe(200);

    // Under the limit a push goes through; with the limit back at 0 (unlimited) the big one does too.
    const small = await pushCommit(url, 'small.txt', 'small\n');
    expect(small.push.code).toBe(0);
    await api.put('/api/v4/application/settings', {
      token: s.rootToken,
      body: { receive_max_input_size: 0 },
    });
    const again = await git(
      [
        '-c',
        'user.name=T',
        '-c',
        'user.email=t@example.com',
        'pull',
        '--quiet',
        '--no-rebase',
        '--no-edit',
        'origin',
        'main',
      ],
      w,
    );
    expect(again.code).toBe(0);
    expect((await git(['push', '--quiet', 'origin', 'HEAD:main'], w)).code).toBe(0);
    const clone = mkdtempSync(join(tmpdir(), 'svc-clone-'));
    expect((await git(['clone', '--quiet', project.http_url_to_repo, 'c'], clone)).code).toBe(0);
    expect((await git(['log', '--format=%s'], join(clone, 'c'))).stdout).toContain('big');
  });

  describe('snippet file names', () => {
    const BAD: [string, string][] = [
      ['a\nb', "can't contain control characters (newline, tab, ...)"],
      ['a\tb', "can't contain control characters (newline, tab, ...)"],
      [
        `x\n160000 commit ${'1'.repeat(40)}\t.gitmodules`,
        "can't contain control characters (newline, tab, ...)",
      ],
      ['nul\u0000byte', "can't contain control characters (newline, tab, ...)"],
      ['.git', "can't be .git"],
      ['.GIT', "can't be .git"],
      ['.git. ', "can't be .git"],
      ['GIT~1', "can't be .git"],
      ['.g\u200cit', "can't be .git"],
      ['..', 'is invalid'],
      ['a/b', "can't contain directories (/ or \\)"],
      ['..\\x', "can't contain directories (/ or \\)"],
      ['', "can't be blank"],
      ['   ', "can't be blank"],
      ['n'.repeat(256), 'is too long (maximum is 255 characters)'],
    ];
    const count = async () => (await api.get('/api/v4/snippets', { token: s.rootToken })).body.length;

    it('refuses bad names with 400 before git sees them, on create (file_name and files[]) and update', async () => {
      const before = await count();
      for (const [name, reason] of BAD) {
        const viaName = await api.post('/api/v4/snippets', {
          token: s.rootToken,
          body: { title: 't', file_name: name, content: 'x' },
        });
        expect([name, viaName.status, viaName.body]).toEqual([
          name,
          400,
          { message: { file_name: [reason] } },
        ]);
        const viaFiles = await api.post(`/api/v4/projects/${project.id}/snippets`, {
          token: s.rootToken,
          body: { title: 't', files: [{ file_path: name, content: 'x' }] },
        });
        expect([name, viaFiles.status]).toEqual([name, 400]);
      }
      expect(await count()).toBe(before);
      const ok = await api.post('/api/v4/snippets', {
        token: s.rootToken,
        body: { title: 't', file_name: 'notes .gitignore.md', content: 'x' },
      });
      expect(ok.status).toBe(201);
      for (const [name] of BAD) {
        const r = await api.put(`/api/v4/snippets/${ok.body.id}`, {
          token: s.rootToken,
          body: { file_name: name },
        });
        expect([name, r.status]).toEqual([name, 400]);
      }
      const after = await api.get(`/api/v4/snippets/${ok.body.id}`, { token: s.rootToken });
      expect(after.body.file_name).toBe('notes .gitignore.md');
      // The snippet's repository holds exactly the one regular file, and git finds nothing wrong in it.
      const snippetRepo = join(s.dataDir, 'repositories', relativePath('snippet', ok.body.id));
      const tree = await git(['ls-tree', '-r', 'main'], snippetRepo);
      expect(tree.stdout).toMatch(/^100644 blob [0-9a-f]{40}\tnotes \.gitignore\.md\n$/);
      expect((await git(['fsck', '--strict'], snippetRepo)).code).toBe(0);
      expect(await health()).toBe(200);
    });
  });
});
