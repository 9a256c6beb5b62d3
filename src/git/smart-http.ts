import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { AppError, type ErrorKind, plainError } from '../errors.js';
import type { Git } from './git.js';

/** `/<path>.git/info/refs`, `/<path>.git/git-upload-pack`, `/<path>.git/git-receive-pack`. */
const GIT_PATH = /^\/(.+?)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/** The git service a request runs: fetch (upload-pack) or push (receive-pack). */
export type GitService = 'git-upload-pack' | 'git-receive-pack';
type Action = 'info/refs' | GitService;

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

/**
 * How much request body git may be fed, and the refusal beyond it: for a push GitLab's `receive_max_input_size`
 * (MB, 0 = unlimited) plus room for the ref update commands (git itself refuses a larger pack with a message the
 * client shows, "pack exceeds maximum allowed size"; this count is the backstop for the whole body); for a fetch
 * MAX_UPLOAD_PACK_REQUEST_BYTES.
 */
export function requestLimit(write: boolean, maxPushMb: number): { limit: number; tooLarge: () => AppError } {
  if (!write) {
    return {
      limit: MAX_UPLOAD_PACK_REQUEST_BYTES,
      tooLarge: () =>
        refuse('too_large', `The fetch request is larger than ${MAX_UPLOAD_PACK_REQUEST_BYTES / MIB} MiB`),
    };
  }
  return {
    limit: maxPushMb > 0 ? maxPushMb * MIB + PUSH_COMMANDS_SLACK_BYTES : Number.POSITIVE_INFINITY,
    tooLarge: () =>
      refuse('too_large', `You are attempting to push more than the maximum push size of ${maxPushMb} MB.`),
  };
}

/** `receive.maxInputSize` for git: the push limit in bytes (MB, 0 = unlimited). */
/**
 * Refs svc keeps for itself (`refs/keep-around/*`: the commits of merge request diff versions): never advertised
 * to clients, and so never updated or deleted by a push either. The merge requests' refs (`refs/merge-requests/*`,
 * the merge ref) are fetched as in GitLab but written by svc only: hidden from pushes.
 */
export const HIDDEN_REFS_ARGS = [
  '-c',
  'transfer.hideRefs=refs/keep-around',
  '-c',
  'receive.hideRefs=refs/merge-requests',
] as const;

export const maxInputSizeArgs = (maxPushMb: number): string[] =>
  maxPushMb > 0 ? ['-c', `receive.maxInputSize=${maxPushMb * MIB}`] : [];

/** A git smart HTTP request: the repository path a client addresses and what it asks for. */
export interface GitRequest {
  readonly repoPath: string;
  readonly action: Action;
  readonly service: GitService;
}

/** The message of a git request svc refuses: sent as text/plain, which git shows to its user as `remote: ...`. */
export const refuse = (kind: ErrorKind, message: string): AppError => plainError(kind, message);

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
    throw refuse('forbidden', 'Only the smart HTTP protocol is supported');
  }
  if (method !== (action === 'info/refs' ? 'GET' : 'POST'))
    throw refuse('method_not_allowed', 'Method Not Allowed');
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
  throw refuse(
    'unsupported_media_type',
    'Unsupported Content-Encoding: git requests take at most one layer of gzip',
  );
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
      done(refuse('too_large', 'The gzip request body expands too much'));
    } else done(null, chunk);
  }
}

/** A ref update a push asks for: `<old> <new> <ref>`, the commands in front of its pack. */
export interface RefUpdate {
  readonly before: string;
  readonly after: string;
  readonly ref: string;
}

/** The most bytes of commands read from the head of a push; a longer command list is not reported. */
const MAX_PUSH_COMMANDS_BYTES = MIB;
const COMMAND = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (refs\/\S+)$/;

/**
 * Reads the ref update commands at the head of a push request body as it passes to git (git's receive-pack
 * protocol: pkt-lines up to a flush-pkt, the first with its capabilities after a NUL), so that what the push did
 * can be told afterwards. `complete` is false when the list could not be read whole (too long, a push certificate,
 * a malformed line): then nothing is reported.
 */
export class PushCommands extends Transform {
  readonly updates: RefUpdate[] = [];
  complete = false;
  private head: Buffer | null = Buffer.alloc(0);
  private seen = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.head) {
      this.seen += chunk.length;
      // The commands come first; a list this long is not read (the pack behind it never is).
      if (this.seen > MAX_PUSH_COMMANDS_BYTES + chunk.length) this.giveUp();
      else this.parse(Buffer.concat([this.head, chunk]));
    }
    done(null, chunk);
  }

  private parse(b: Buffer): void {
    let off = 0;
    while (b.length - off >= 4) {
      const len = Number.parseInt(b.toString('latin1', off, off + 4), 16);
      if (len === 0) {
        this.complete = true;
        this.head = null;
        return;
      }
      if (!Number.isInteger(len) || len < 4) {
        this.giveUp();
        return;
      }
      if (b.length - off < len) break;
      const line = b
        .toString('utf8', off + 4, off + len)
        .split('\0')[0]!
        .replace(/\n$/, '');
      off += len;
      if (line.startsWith('shallow ')) continue;
      const m = COMMAND.exec(line);
      if (!m) {
        this.giveUp();
        return;
      }
      this.updates.push({ before: m[1]!, after: m[2]!, ref: m[3]! });
    }
    this.head = b.subarray(off);
  }

  private giveUp(): void {
    this.head = null;
    this.updates.length = 0;
  }
}

/** One pkt-line: its length in four hex digits, then the line. */
export const pkt = (line: string): string => {
  const len = Buffer.byteLength(line) + 4;
  return `${len.toString(16).padStart(4, '0')}${line}`;
};

/** Answers with a message git shows its user (`remote: ...`). */
export function fail(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(`${message}\n`);
}

/** How a git run ended. */
export interface GitRun {
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
export function finish(
  log: { info(details: object, message: string): void },
  service: GitService,
  run: GitRun,
  res: ServerResponse,
  /** The status and text of a refused request's answer (the HTTP layer's error table). */
  answer: (err: AppError) => { status: number; text: string },
): boolean {
  const ok = run.exitCode === 0 && !run.inputError && !run.clientGone;
  if (!ok && !run.clientGone) {
    log.info({ service, exitCode: run.exitCode, stderr: run.stderr.slice(0, 500) }, 'git request failed');
  }
  if (run.clientGone || res.writableEnded) return ok;
  if (!res.headersSent && !ok) {
    const err = run.inputError ?? refuse('bad_request', `git ${service.slice(4)} could not read the request`);
    res.removeHeader('cache-control');
    const { status, text } = answer(err);
    fail(res, status, text, { connection: 'close' });
    return false;
  }
  res.end();
  return ok;
}

/**
 * Runs git with the request body (after at most one gzip layer, counted against `limit`) on its stdin and its
 * stdout streamed into the response. Resolves when git has exited; never rejects for what the client does.
 */
export function runGit(
  spawn: (args: readonly string[], env: Record<string, string>) => ReturnType<Git['spawn']>,
  args: string[],
  env: Record<string, string>,
  io: {
    req: IncomingMessage;
    res: ServerResponse;
    input: { gzip: boolean; limit: number; tooLarge: () => AppError; tap?: Transform } | null;
    /** No bytes in either direction for this long closes the connection (and so kills git). */
    idleMs: number;
  },
): Promise<GitRun> {
  const { req, res } = io;
  const child = spawn(args, env);
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
  const { idleMs } = io;
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
      inputError ??=
        err instanceof AppError ? err : refuse('bad_request', 'The request body is not valid gzip');
      req.unpipe();
      child.stdin.destroy();
      kill();
    };
    const counter = new ByteLimit(limit, tooLarge, gzip ? () => compressed : null);
    counter.on('error', failInput);
    // What git is fed passes the tap first (a push's commands are read on the way).
    const toGit = io.input.tap ? counter.pipe(io.input.tap) : counter;
    if (gzip) {
      const gunzip = createGunzip();
      gunzip.on('error', failInput);
      req.on('data', (d: Buffer) => {
        compressed += d.length;
      });
      req.pipe(gunzip).pipe(counter);
    } else {
      req.pipe(counter);
    }
    toGit.pipe(child.stdin);
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
