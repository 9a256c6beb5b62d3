import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, READ_ONLY_MESSAGE } from '../errors.js';
import { AccessLevel, canSee } from '../members/members.js';
import type { User } from '../users/users.js';
import type { ContainerKind } from './git.js';

/** `/<path>.git/info/refs`, `/<path>.git/git-upload-pack`, `/<path>.git/git-receive-pack`. */
const GIT_PATH = /^\/(.+?)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

type Service = 'git-upload-pack' | 'git-receive-pack';
type Action = 'info/refs' | Service;

const MIB = 1024 * 1024;
/**
 * Largest fetch negotiation (wants and haves) taken, after decompression. Real ones are kilobytes to a few
 * megabytes even for very large repositories.
 */
export const MAX_UPLOAD_PACK_REQUEST_BYTES = 64 * MIB;
/** A gzip request body may expand this many times its compressed size (beyond its first MiB); git's do ~3x. */
export const MAX_GZIP_RATIO = 100;
/**
 * Request body read and thrown away after git stopped reading (so that the client reads git's answer, e.g. the
 * push size error); beyond it the connection is closed.
 */
const MAX_DRAIN_BYTES = 64 * MIB;
/** Room for the ref update commands in front of the pack when checking the push size ourselves. */
const PUSH_COMMANDS_SLACK_BYTES = MIB;
/** Largest id the databases store (PostgreSQL `integer`): larger numbers name nothing. */
const MAX_ID = 2_147_483_647;

/** A git smart HTTP request: the repository path a client addresses and what it asks for. */
export interface GitRequest {
  readonly repoPath: string;
  readonly action: Action;
  readonly service: Service;
}

/** The message of a git request svc refuses: sent as text/plain, which git shows to its user as `remote: ...`. */
const refuse = (status: number, message: string) => new AppError(status, { message });

/**
 * Parses the request line of a git smart HTTP request. Returns null when the URL is no git path (the API
 * routes answer it); throws a 4xx AppError for a git path asked the wrong way.
 */
export function parseGitRequest(method: string | undefined, url: string): GitRequest | null {
  const q = url.indexOf('?');
  const rawPath = q >= 0 ? url.slice(0, q) : url;
  let pathname: string;
  try {
    pathname = decodeURIComponent(rawPath);
  } catch {
    return null; // Not valid percent-encoding: no repository path; the router answers it.
  }
  const m = GIT_PATH.exec(pathname);
  if (!m) return null;
  const action = m[2] as Action;
  const service =
    action === 'info/refs' ? new URLSearchParams(q >= 0 ? url.slice(q + 1) : '').get('service') : action;
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
    throw refuse(403, 'Only the smart HTTP protocol is supported');
  }
  if (method !== (action === 'info/refs' ? 'GET' : 'POST')) throw refuse(405, 'Method Not Allowed');
  return { repoPath: m[1]!, action, service };
}

/**
 * The content coding of a git request body: none, or one gzip layer (what git sends for large fetch
 * negotiations). Anything else, stacked layers included, is refused with 415.
 */
export function gitRequestEncoding(header: string | string[] | undefined): 'identity' | 'gzip' {
  if (header === undefined) return 'identity';
  const layers = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
  if (layers.length === 0) return 'identity';
  if (layers.length === 1 && (layers[0] === 'gzip' || layers[0] === 'x-gzip')) return 'gzip';
  throw refuse(415, 'Unsupported Content-Encoding: git requests take at most one layer of gzip');
}

/**
 * Counts the bytes a request feeds git and fails the stream beyond `limit` (and, for gzip bodies, beyond
 * MAX_GZIP_RATIO times the compressed size read so far).
 */
class ByteLimit extends Transform {
  private seen = 0;

  constructor(
    private readonly limit: number,
    private readonly tooLarge: () => AppError,
    private readonly compressed: (() => number) | null,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) done(this.tooLarge());
    else if (this.compressed && this.seen > MIB && this.seen > MAX_GZIP_RATIO * this.compressed()) {
      done(refuse(413, 'The gzip request body expands too much'));
    } else done(null, chunk);
  }
}

/** A repository as a git client addresses it, with what the caller may do. */
interface Target {
  readonly kind: ContainerKind;
  readonly id: number;
  readonly storage: string;
  readonly readOnly: boolean;
  readonly canRead: boolean;
  readonly canWrite: boolean;
}

const pkt = (line: string) => {
  const len = Buffer.byteLength(line) + 4;
  return `${len.toString(16).padStart(4, '0')}${line}`;
};

function fail(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(`${message}\n`);
}

/** Basic credentials: username and a personal access token (or the account password). */
async function authenticate(
  ctx: AppContext,
  req: IncomingMessage,
): Promise<{ user: User | null; scopes: Set<string> | null }> {
  const auth = req.headers.authorization;
  if (!auth || !/^basic\s+/i.test(auth)) return { user: null, scopes: null };
  const decoded = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const username = colon >= 0 ? decoded.slice(0, colon) : decoded;
  const secret = colon >= 0 ? decoded.slice(colon + 1) : '';
  try {
    const { user, token } = await ctx.users.authenticateToken(secret);
    return { user, scopes: new Set(token.scopes) };
  } catch {
    // Not a token: the account password (as git does with GitLab when the account has no 2FA).
    const session = await ctx.users.checkPassword(username, secret);
    if (session) return { user: session, scopes: null };
    throw new AppError(401, { message: '401 Unauthorized' });
  }
}

/** Resolves the container a git path names, for this caller. */
async function resolve(ctx: AppContext, user: User | null, path: string): Promise<Target | null> {
  // No repository path holds control characters (PostgreSQL refuses a NUL in a query parameter).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(path)) return null;
  // Ids beyond the databases' integer range name nothing (PostgreSQL would refuse the query).
  if (/(?:^|\/)\d{10,}(?:\.wiki)?$/.test(path) && path.match(/\d+/g)!.some((n) => Number(n) > MAX_ID)) {
    return null;
  }
  try {
    const wiki = /^groups\/(.+)\.wiki$/.exec(path);
    if (wiki) {
      const { group, level } = await ctx.groups.find(user, wiki[1]!);
      if (!group.repositoryStorage) return null;
      return {
        kind: 'group',
        id: group.id,
        storage: group.repositoryStorage,
        readOnly: group.repositoryReadOnly,
        canRead: canSee(group.visibility, user !== null, level) || user?.admin === true,
        canWrite: level >= AccessLevel.Developer,
      };
    }
    const snippet = /^(?:(.+)\/)?snippets\/(\d+)$/.exec(path);
    if (snippet) {
      const { snippet: s, level } = await ctx.snippets.find(user, Number(snippet[2]), snippet[1]);
      const mine = user !== null && (user.admin || s.author.id === user.id);
      return {
        kind: 'snippet',
        id: s.id,
        storage: s.repositoryStorage,
        readOnly: s.repositoryReadOnly,
        canRead: true,
        canWrite: mine || (s.projectId !== null && level >= AccessLevel.Maintainer),
      };
    }
    const { project, level } = await ctx.projects.find(user, path);
    // Reading code: public projects to anyone, internal to signed-in users, private from Reporter up.
    const open = project.visibility === 'public' || (project.visibility === 'internal' && user !== null);
    return {
      kind: 'project',
      id: project.id,
      storage: project.repositoryStorage,
      readOnly: project.repositoryReadOnly,
      canRead: open || level >= AccessLevel.Reporter,
      canWrite: level >= AccessLevel.Developer,
    };
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
}

/**
 * Git smart HTTP (clone, fetch, push) with the system git in `--stateless-rpc` mode, answered before Fastify
 * parses anything so pack data streams straight between the client and git. No request can end the process:
 * every stream has its errors handled, git is killed when the client goes away, and bad input is a 4xx.
 */
export function installSmartHttp(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request, reply) => {
    let parsed: GitRequest | null;
    try {
      parsed = parseGitRequest(request.raw.method, request.url);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      reply.hijack();
      return fail(reply.raw, err.status, err.message);
    }
    if (!parsed) return;
    reply.hijack();
    const req = request.raw;
    const res = reply.raw;
    const { action, service } = parsed;
    try {
      const { user, scopes } = await authenticate(ctx, req);
      const target = await resolve(ctx, user, parsed.repoPath);
      const write = service === 'git-receive-pack';
      const challenge = { 'www-authenticate': 'Basic realm="svc"' };
      if (!target)
        return user
          ? fail(res, 404, 'The project you were looking for could not be found.')
          : fail(res, 401, 'HTTP Basic: Access denied', challenge);
      const scoped =
        !scopes || scopes.has('api') || scopes.has(write ? 'write_repository' : 'read_repository');
      if (!(write ? target.canWrite : target.canRead) || !scoped) {
        return user
          ? fail(res, 403, 'You are not allowed to do that on this repository.')
          : fail(res, 401, 'HTTP Basic: Access denied', challenge);
      }
      const path = ctx.repositories.path(target.kind, target.id, target.storage);
      if (!(await ctx.repositories.git.exists(path))) {
        return fail(res, 404, 'The project you were looking for could not be found.');
      }
      const env = {
        GIT_PROTOCOL: typeof req.headers['git-protocol'] === 'string' ? req.headers['git-protocol'] : '',
      };
      if (action === 'info/refs') {
        res.writeHead(200, {
          'content-type': `application/x-${service}-advertisement`,
          'cache-control': 'no-cache',
        });
        res.write(`${pkt(`# service=${service}\n`)}0000`);
        if (write && target.readOnly) {
          // git prints "remote error: <message>" for an ERR packet.
          return void res.end(pkt(`ERR ${READ_ONLY_MESSAGE}`));
        }
        const run = await runGit(ctx, [service.slice(4), '--stateless-rpc', '--advertise-refs', path], env, {
          req,
          res,
          input: null,
        });
        return void finish(request.log, service, run, res);
      }
      if (write && target.readOnly) return fail(res, 403, READ_ONLY_MESSAGE);
      const gzip = gitRequestEncoding(req.headers['content-encoding']) === 'gzip';
      // GitLab's receive_max_input_size (MB, 0 = unlimited): git itself refuses a larger pack with a message
      // the client shows ("pack exceeds maximum allowed size"); our count is the backstop for the whole body.
      const maxPushMb = write ? (await ctx.settings.get()).receive_max_input_size : 0;
      const limit = write
        ? maxPushMb > 0
          ? maxPushMb * MIB + PUSH_COMMANDS_SLACK_BYTES
          : Number.POSITIVE_INFINITY
        : MAX_UPLOAD_PACK_REQUEST_BYTES;
      const tooLarge = () =>
        write
          ? refuse(413, `You are attempting to push more than the maximum push size of ${maxPushMb} MB.`)
          : refuse(413, `The fetch request is larger than ${MAX_UPLOAD_PACK_REQUEST_BYTES / MIB} MiB`);
      const args = [
        ...(maxPushMb > 0 ? ['-c', `receive.maxInputSize=${maxPushMb * MIB}`] : []),
        service.slice(4),
        '--stateless-rpc',
        path,
      ];
      res.setHeader('content-type', `application/x-${service}-result`);
      res.setHeader('cache-control', 'no-cache');
      const done = runGit(ctx, args, env, { req, res, input: { gzip, limit, tooLarge } });
      if (write) {
        const settled = done.then((run) => {
          if (run.exitCode !== 0) throw new Error('push failed');
        });
        settled.catch(() => undefined);
        await ctx.repositories.trackWrite(path, settled).catch(() => undefined);
        const run = await done;
        if (finish(request.log, service, run, res) && target.kind === 'project') {
          await ctx.projects.touchActivity(target.id);
        }
      } else {
        const run = await done;
        // A clone or fetch of a project is a repository download (audit events; spec 17.0 change).
        if (finish(request.log, service, run, res) && target.kind === 'project') {
          const { project } = await ctx.projects.find(user, String(target.id));
          await ctx.audit.recordDownload(user, project, request.ip, 'git');
        }
      }
    } catch (err) {
      if (err instanceof AppError && err.status === 401) {
        return fail(res, 401, 'HTTP Basic: Access denied', { 'www-authenticate': 'Basic realm="svc"' });
      }
      if (err instanceof AppError && err.status < 500) return fail(res, err.status, err.message);
      request.log.error({ err }, 'git smart HTTP failed');
      if (!res.headersSent) fail(res, 500, 'Internal error');
      else res.end();
    }
  });
}

/** How a git run ended. */
interface GitRun {
  /** git's exit status; null when it was killed. */
  readonly exitCode: number | null;
  readonly stderr: string;
  /** Why the request body could not be fed to git (bad gzip, over a limit), if so. */
  readonly inputError: AppError | null;
  /** The client went away before the answer was complete. */
  readonly clientGone: boolean;
}

/**
 * Answers after git ended: ends the response (with a 4xx when git wrote nothing because the request was bad)
 * and says whether git did its work.
 */
function finish(log: FastifyBaseLogger, service: Service, run: GitRun, res: ServerResponse): boolean {
  const ok = run.exitCode === 0 && !run.inputError && !run.clientGone;
  if (!ok && !run.clientGone) {
    log.info({ service, exitCode: run.exitCode, stderr: run.stderr.slice(0, 500) }, 'git request failed');
  }
  if (run.clientGone || res.writableEnded) return ok;
  if (!res.headersSent && !ok) {
    const err = run.inputError ?? refuse(400, `git ${service.slice(4)} could not read the request`);
    res.removeHeader('cache-control');
    fail(res, err.status, err.message, { connection: 'close' });
    return false;
  }
  res.end();
  return ok;
}

/**
 * Runs git with the request body (after at most one gzip layer, counted against `limit`) on its stdin and its
 * stdout streamed into the response. Resolves when git has exited; never rejects for what the client does.
 */
function runGit(
  ctx: AppContext,
  args: string[],
  env: Record<string, string>,
  io: {
    req: IncomingMessage;
    res: ServerResponse;
    input: { gzip: boolean; limit: number; tooLarge: () => AppError } | null;
  },
): Promise<GitRun> {
  const { req, res } = io;
  const child = ctx.repositories.git.spawn(args, env);
  let stderr = '';
  let inputError: AppError | null = null;
  let clientGone = false;
  let exited = false;
  const kill = () => {
    if (!exited) child.kill('SIGKILL');
  };
  // git may stop reading early (an upload-pack request that ends with a flush, a push over the size limit):
  // writes to its stdin then fail with EPIPE; its exit status and output say how it went.
  child.stdin.on('error', () => undefined);
  child.stdout.on('error', kill);
  child.stderr.on('error', kill);
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4096) stderr += String(d);
  });
  const onClose = () => {
    if (!res.writableFinished) {
      clientGone = true;
      kill();
    }
  };
  res.once('close', onClose);
  res.on('error', kill);
  req.on('error', kill);
  child.stdout.pipe(res, { end: false });

  // A client that stalls (sends and reads nothing) would hold git, and a storage move waiting for the push,
  // forever: after the idle timeout the connection is closed, which kills git (onClose).
  const idleMs = ctx.config.gitIdleTimeoutSeconds * 1000;
  let idle: NodeJS.Timeout | undefined;
  const active = () => {
    clearTimeout(idle);
    idle = setTimeout(() => req.socket.destroy(), idleMs);
  };
  active();
  req.on('data', active);
  child.stdout.on('data', active);

  let compressed = 0;
  if (io.input) {
    const { gzip, limit, tooLarge } = io.input;
    const failInput = (err: unknown) => {
      inputError ??= err instanceof AppError ? err : refuse(400, 'The request body is not valid gzip');
      req.unpipe();
      child.stdin.destroy();
      kill();
    };
    const counter = new ByteLimit(limit, tooLarge, gzip ? () => compressed : null);
    counter.on('error', failInput);
    if (gzip) {
      const gunzip = createGunzip();
      gunzip.on('error', failInput);
      req.on('data', (d: Buffer) => {
        compressed += d.length;
      });
      req.pipe(gunzip).pipe(counter).pipe(child.stdin);
    } else {
      req.pipe(counter).pipe(child.stdin);
    }
  } else {
    child.stdin.end();
  }

  return new Promise((resolvePromise) => {
    let settled = false;
    const settle = (exitCode: number | null) => {
      if (settled) return;
      settled = true;
      exited = true;
      clearTimeout(idle);
      res.off('close', onClose);
      child.stdout.unpipe(res);
      drain(req);
      resolvePromise({ exitCode, stderr, inputError, clientGone });
    };
    child.once('error', (err) => {
      stderr += String(err);
      settle(null);
    });
    child.once('close', (code) => settle(code));
  });
}

/**
 * After git ended, reads and discards what is left of the request body (up to MAX_DRAIN_BYTES) so the
 * client, still sending, gets to read the answer; beyond that, closes the connection.
 */
function drain(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  req.unpipe();
  let left = MAX_DRAIN_BYTES;
  req.on('data', (d: Buffer) => {
    left -= d.length;
    if (left < 0) req.socket.destroy();
  });
  req.resume();
}
