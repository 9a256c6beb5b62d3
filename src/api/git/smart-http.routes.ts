import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError, READ_ONLY_MESSAGE } from '../../errors.js';
import {
  fail,
  finish,
  type GitRequest,
  gitRequestEncoding,
  HIDDEN_REFS_ARGS,
  maxInputSizeArgs,
  PushCommands,
  parseGitRequest,
  pkt,
  requestLimit,
  runGit,
} from '../../git/smart-http.js';
import { appErrorText, statusOf } from '../errors.js';

const NOT_FOUND = 'The project you were looking for could not be found.';
const CHALLENGE = { 'www-authenticate': 'Basic realm="svc"' };
/** A refused git request's status and text, from the API's one error table. */
const answer = (err: AppError) => ({ status: statusOf(err.kind), text: appErrorText(err) });

/**
 * Git smart HTTP (clone, fetch, push) with the system git in `--stateless-rpc` mode, answered before Fastify
 * parses anything so pack data streams straight between the client and git. No request can end the process:
 * every stream has its errors handled, git is killed when the client goes away, and bad input is a 4xx. Who may
 * read or write what is the GitAccessService's; this hook speaks HTTP.
 */
export function installSmartHttp(app: FastifyInstance, ctx: Pick<AppContext, 'config' | 'gitAccess'>): void {
  const idleMs = ctx.config.gitIdleTimeoutSeconds * 1000;
  const access = ctx.gitAccess;
  app.addHook('onRequest', async (request, reply) => {
    let parsed: GitRequest | null;
    try {
      parsed = parseGitRequest(request.raw.method, request.url);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      reply.hijack();
      return fail(reply.raw, statusOf(err.kind), appErrorText(err));
    }
    if (!parsed) return;
    reply.hijack();
    const req = request.raw;
    const res = reply.raw;
    const { action, service } = parsed;
    try {
      const who = await access.authenticate(req.headers.authorization);
      const write = service === 'git-receive-pack';
      const granted = await access.access(who, parsed.repoPath, write);
      if (!granted.ok) {
        // Anonymous callers are asked for credentials rather than told what exists.
        if (granted.reason === 'missing' || (who.user && granted.reason === 'unknown')) {
          return fail(res, 404, NOT_FOUND);
        }
        if (who.user) return fail(res, 403, 'You are not allowed to do that on this repository.');
        return fail(res, 401, 'HTTP Basic: Access denied', CHALLENGE);
      }
      const { target, path } = granted;
      const spawn = (args: readonly string[], env: Record<string, string>) => access.spawn(args, env);
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
        const run = await runGit(
          spawn,
          [...HIDDEN_REFS_ARGS, service.slice(4), '--stateless-rpc', '--advertise-refs', path],
          env,
          { req, res, input: null, idleMs },
        );
        return void finish(request.log, service, run, res, answer);
      }
      if (write && target.readOnly) return fail(res, 403, READ_ONLY_MESSAGE);
      const gzip = gitRequestEncoding(req.headers['content-encoding']) === 'gzip';
      const maxPushMb = write ? await access.maxPushMb() : 0;
      // Recorded before git starts, then read-only checked again: a move scheduled meanwhile on any process either
      // refuses this push or waits for it (see PushTracker).
      const endPush = write ? await access.beginPush(target) : null;
      if (write && !endPush) return fail(res, 403, READ_ONLY_MESSAGE);
      const args = [
        ...HIDDEN_REFS_ARGS,
        ...maxInputSizeArgs(maxPushMb),
        service.slice(4),
        '--stateless-rpc',
        path,
      ];
      res.setHeader('content-type', `application/x-${service}-result`);
      res.setHeader('cache-control', 'no-cache');
      // A push's ref update commands, read on their way to git: what the push did, for its events.
      const commands = write ? new PushCommands() : undefined;
      const done = runGit(spawn, args, env, {
        req,
        res,
        input: { gzip, ...requestLimit(write, maxPushMb), ...(commands && { tap: commands }) },
        idleMs,
      });
      if (endPush) {
        await access.push(
          who.user,
          target,
          done.then((run) => finish(request.log, service, run, res, answer)),
          endPush,
          () => (commands?.complete ? commands.updates : []),
        );
      } else if (finish(request.log, service, await done, res, answer)) {
        await access.fetched(who.user, target, request.ip);
      }
    } catch (err) {
      if (err instanceof AppError && statusOf(err.kind) === 401) {
        return fail(res, 401, 'HTTP Basic: Access denied', CHALLENGE);
      }
      if (err instanceof AppError) return fail(res, statusOf(err.kind), appErrorText(err));
      request.log.error({ err }, 'git smart HTTP failed');
      if (!res.headersSent) fail(res, 500, 'Internal error');
      else res.end();
    }
  });
}
