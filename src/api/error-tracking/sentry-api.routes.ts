import { gunzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { ReleaseRef } from '../../error-tracking/releases.js';
import type { GitCommitInput } from '../../error-tracking/releases.service.js';
import { AppError, plainError } from '../../errors.js';
import { authenticate, requireUser } from '../auth.js';
import { appErrorResponse } from '../errors.js';
import * as P from './sentry-api.presenters.js';

/**
 * The part of Sentry's web API (`/api/0/`) that `sentry-cli` 3.x calls for releases and source maps, over svc's
 * projects: the organization is a namespace path, the project slug the project's path in it, the token an svc
 * personal or project access token (`SENTRY_AUTH_TOKEN`, sent as `Authorization: Bearer`). Answers and refusals
 * are Sentry's shapes (`{"detail": ...}`), since the CLI reads them.
 */

type Ctx = Pick<AppContext, 'releases' | 'users' | 'config'>;
type Req<P = Record<string, string>> = FastifyRequest<{ Params: P }>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** A date sentry-cli sends (RFC 3339), as stored; anything else is refused. */
function date(field: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(ms)) throw plainError('bad_request', `${field}: Enter a valid date/time.`);
  return new Date(ms).toISOString();
}

/** Projects as sentry-cli lists them: slugs, or objects with a slug. */
function slugs(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v
    .map((p) => (typeof p === 'string' ? p : isObject(p) ? text(p.slug) : null))
    .filter((p): p is string => p !== null);
}

function refs(v: unknown): ReleaseRef[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw plainError('bad_request', 'refs: Expected a list of items.');
  return v.map((r, i) => {
    if (!isObject(r) || !text(r.repository) || !text(r.commit))
      throw plainError('bad_request', `refs[${i}]: repository and commit are required.`);
    return {
      repository: r.repository as string,
      commit: r.commit as string,
      previousCommit: text(r.previousCommit),
    };
  });
}

function commits(v: unknown): GitCommitInput[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw plainError('bad_request', 'commits: Expected a list of items.');
  return v.map((c, i) => {
    if (!isObject(c) || !text(c.id)) throw plainError('bad_request', `commits[${i}]: id is required.`);
    return {
      id: c.id as string,
      repository: text(c.repository),
      message: text(c.message),
      authorName: text(c.author_name),
      authorEmail: text(c.author_email),
      timestamp: date(`commits[${i}].timestamp`, c.timestamp),
    };
  });
}

/** The text of a refusal without GitLab's status prefix (`404 Project Not Found` → `Project Not Found`). */
function detailOf(error: AppError): { status: number; detail: string } {
  const { status, body } = appErrorResponse(error);
  const raw =
    typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : '';
  const detail =
    (body.error_description as string | undefined) ??
    raw.replace(/^\d{3} /, '').replace(/^[A-Za-z ]+ - /, '');
  return { status, detail: detail || 'Error' };
}

interface ChunkPart {
  readonly name: string;
  readonly data: Buffer;
}

export async function sentryApiRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  const limits = ctx.releases.limits;
  app.removeContentTypeParser('multipart/form-data');
  // The chunk upload: every part named `file` (or `file_gzip`, gzipped) is one chunk, its file name its SHA-1.
  app.addContentTypeParser(
    'multipart/form-data',
    // The body may hold a request's worth of chunks and the form's boundaries besides.
    { parseAs: 'buffer', bodyLimit: limits.maxRequestSize + 1024 * 1024 },
    async (req: FastifyRequest, body: Buffer) => {
      let form: FormData;
      try {
        form = await new Response(body, {
          headers: { 'content-type': req.headers['content-type']! },
        }).formData();
      } catch {
        throw plainError('bad_request', 'The multipart body could not be parsed.');
      }
      const parts: ChunkPart[] = [];
      for (const [key, value] of form) {
        if (typeof value === 'string' || (key !== 'file' && key !== 'file_gzip')) continue;
        let data = Buffer.from(await value.arrayBuffer());
        if (key === 'file_gzip') {
          try {
            data = gunzipSync(data, { maxOutputLength: limits.chunkSize + 1 });
          } catch {
            throw plainError(
              'too_large',
              `Chunk ${value.name} cannot be unpacked within ${limits.chunkSize} bytes.`,
            );
          }
        }
        parts.push({ name: value.name, data });
      }
      return { chunks: parts };
    },
  );
  app.addHook('preHandler', authenticate(ctx.users));
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof AppError) {
      const { status, detail } = detailOf(error);
      return reply.status(status).send({ detail });
    }
    if (error.statusCode === 413)
      return reply.status(413).send({
        detail: `The request is larger than ${limits.maxRequestSize} bytes; send fewer chunks at once.`,
      });
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      return reply.status(error.statusCode).send({ detail: error.message });
    request.log.error({ err: error }, 'sentry api error');
    return reply.status(500).send({ detail: 'Internal Error' });
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).send({ detail: 'The requested resource does not exist' }),
  );

  const user = (req: FastifyRequest) => {
    if (req.actor.user === null)
      throw plainError('unauthorized', 'Authentication credentials were not provided.');
    return requireUser(req);
  };
  const body = (req: FastifyRequest): Record<string, unknown> => (isObject(req.body) ? req.body : {});

  // `sentry-cli info`: who the token belongs to.
  app.get('/', async (req) => {
    const u = req.actor.user;
    return {
      version: '0',
      auth: u
        ? { scopes: [...(req.actor.scopes ?? ['org:read', 'project:write', 'project:releases'])] }
        : null,
      user: u ? { id: String(u.id), name: u.name, username: u.username, email: u.email } : null,
    };
  });

  app.get('/organizations/:org/chunk-upload/', async (req: Req<{ org: string }>) => {
    const l = await ctx.releases.chunkOptions(user(req), req.params.org);
    return P.chunkOptions(req.params.org, l);
  });

  app.post('/organizations/:org/chunk-upload/', async (req: Req<{ org: string }>, reply: FastifyReply) => {
    const parts =
      isObject(req.body) && Array.isArray(req.body.chunks) ? (req.body.chunks as ChunkPart[]) : [];
    await ctx.releases.uploadChunks(user(req), req.params.org, parts);
    return reply.status(200).send({});
  });

  app.post('/organizations/:org/artifactbundle/assemble/', async (req: Req<{ org: string }>) => {
    const b = body(req);
    const result = await ctx.releases.assemble(user(req), req.params.org, {
      checksum: text(b.checksum) ?? '',
      chunks: Array.isArray(b.chunks) ? b.chunks.filter((c): c is string => typeof c === 'string') : [],
      projects: slugs(b.projects),
      version: text(b.version),
      dist: text(b.dist),
    });
    return P.assemble(result);
  });

  app.get('/organizations/:org/releases/', async (req: Req<{ org: string }>) =>
    (await ctx.releases.list(user(req), req.params.org, null)).map(P.release),
  );

  app.get('/projects/:org/:project/releases/', async (req: Req<{ org: string; project: string }>) =>
    (await ctx.releases.list(user(req), req.params.org, req.params.project)).map(P.release),
  );

  app.post('/organizations/:org/releases/', async (req: Req<{ org: string }>, reply: FastifyReply) => {
    const b = body(req);
    const release = await ctx.releases.create(user(req), req.params.org, {
      version: b.version,
      projects: slugs(b.projects),
      url: text(b.url),
      dateReleased: date('dateReleased', b.dateReleased),
    });
    return reply.status(201).send(P.release(release));
  });

  app.get('/organizations/:org/releases/:version/', async (req: Req<{ org: string; version: string }>) =>
    P.release(await ctx.releases.get(user(req), req.params.org, req.params.version)),
  );

  app.put('/organizations/:org/releases/:version/', async (req: Req<{ org: string; version: string }>) => {
    const b = body(req);
    const release = await ctx.releases.update(user(req), req.params.org, req.params.version, {
      projects: b.projects === undefined ? null : slugs(b.projects),
      url: b.url === undefined ? undefined : text(b.url),
      dateReleased: b.dateReleased === undefined ? undefined : date('dateReleased', b.dateReleased),
      refs: refs(b.refs),
      commits: commits(b.commits),
    });
    return P.release(release);
  });

  app.delete(
    '/organizations/:org/releases/:version/',
    async (req: Req<{ org: string; version: string }>, reply: FastifyReply) => {
      await ctx.releases.delete(user(req), req.params.org, req.params.version);
      return reply.status(204).send();
    },
  );

  app.get(
    '/organizations/:org/releases/:version/commits/',
    async (req: Req<{ org: string; version: string }>) =>
      (await ctx.releases.commits(user(req), req.params.org, req.params.version)).map(P.commit),
  );

  app.get(
    '/organizations/:org/releases/:version/previous-with-commits/',
    async (req: Req<{ org: string; version: string }>) => {
      const prev = await ctx.releases.previousWithCommits(user(req), req.params.org, req.params.version);
      return prev ? P.release(prev) : {};
    },
  );

  app.get('/organizations/:org/repos/', async (req: Req<{ org: string }>) =>
    (await ctx.releases.repositories(user(req), req.params.org, ctx.config.externalUrl)).map(P.repository),
  );
}
