import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { AccessLevel, canSee, type User } from '../accounts/accounts.js';
import type { AppContext } from '../context.js';
import { AppError, READ_ONLY_MESSAGE } from '../errors.js';
import type { ContainerKind } from './git.js';

/** `/<path>.git/info/refs`, `/<path>.git/git-upload-pack`, `/<path>.git/git-receive-pack`. */
const GIT_PATH = /^\/(.+?)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

type Service = 'git-upload-pack' | 'git-receive-pack';

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
 * parses anything so pack data streams straight between the client and git.
 */
export function installSmartHttp(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onRequest', async (request, reply) => {
    const url = new URL(request.url, 'http://svc');
    const m = GIT_PATH.exec(decodeURIComponent(url.pathname));
    if (!m) return;
    reply.hijack();
    const req = request.raw;
    const res = reply.raw;
    try {
      const action = m[2]!;
      const service: Service | null =
        action === 'info/refs'
          ? ((url.searchParams.get('service') as Service | null) ?? null)
          : (action as Service);
      if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
        return fail(res, 403, 'Only the smart HTTP protocol is supported');
      }
      if ((action === 'info/refs') !== (req.method === 'GET')) return fail(res, 405, 'Method Not Allowed');
      const { user, scopes } = await authenticate(ctx, req);
      const target = await resolve(ctx, user, m[1]!);
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
        return await pipeGit(ctx, service, ['--stateless-rpc', '--advertise-refs', path], null, res, env);
      }
      if (write && target.readOnly) return fail(res, 403, READ_ONLY_MESSAGE);
      const input = req.headers['content-encoding'] === 'gzip' ? req.pipe(createGunzip()) : req;
      res.writeHead(200, { 'content-type': `application/x-${service}-result`, 'cache-control': 'no-cache' });
      const done = pipeGit(ctx, service, ['--stateless-rpc', path], input, res, env);
      if (write) {
        await ctx.repositories.trackWrite(path, done);
        if (target.kind === 'project') await ctx.projects.touchActivity(target.id);
      } else {
        await done;
        // A clone or fetch of a project is a repository download (audit events; spec 17.0 change).
        if (target.kind === 'project') {
          const { project } = await ctx.projects.find(user, String(target.id));
          await ctx.audit.recordDownload(user, project, request.ip, 'git');
        }
      }
    } catch (err) {
      if (err instanceof AppError && err.status === 401) {
        return fail(res, 401, 'HTTP Basic: Access denied', { 'www-authenticate': 'Basic realm="svc"' });
      }
      request.log.error({ err }, 'git smart HTTP failed');
      if (!res.headersSent) fail(res, 500, 'Internal error');
      else res.end();
    }
  });
}

function pipeGit(
  ctx: AppContext,
  service: Service,
  args: string[],
  input: NodeJS.ReadableStream | null,
  res: ServerResponse,
  env: Record<string, string>,
): Promise<void> {
  const child = ctx.repositories.git.spawn([service.slice(4), ...args], env);
  if (input) input.pipe(child.stdin);
  else child.stdin.end();
  child.stdout.pipe(res);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${service} exited ${code}: ${stderr.trim()}`)),
    );
  });
}
