import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { badRequest } from '../../errors.js';

/** `/<namespace>/<project>/alerts/notify/<name>/<endpoint_identifier>.json` (GitLab's route). */
const HTTP_NOTIFY = /^\/(.+)\/alerts\/notify\/[^/]+\/([A-Za-z0-9]+)(?:\.json)?$/;
/** `/<namespace>/<project>/prometheus/alerts/notify.json`: the project's default metrics-alerting integration. */
const PROMETHEUS_NOTIFY = /^\/(.+)\/prometheus\/alerts\/notify(?:\.json)?$/;

/** What a notify URL names: the project (full path or numeric id) and the endpoint identifier (none: Prometheus). */
export interface NotifyPath {
  readonly projectPath: string;
  readonly identifier: string | null;
}

/**
 * Parses the path of a notify request URL (the query is ignored): null when it is no notify URL (404), a 400
 * AppError when its percent-encoding is malformed.
 */
export function parseNotifyPath(url: string): NotifyPath | null {
  const raw = url.split('?')[0] ?? '';
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    throw badRequest('The URL is not valid percent-encoded UTF-8');
  }
  const http = HTTP_NOTIFY.exec(path);
  if (http) return { projectPath: http[1]!, identifier: http[2]! };
  const prometheus = PROMETHEUS_NOTIFY.exec(path);
  return prometheus ? { projectPath: prometheus[1]!, identifier: null } : null;
}

/**
 * The integration key: `Authorization: Bearer <key>`, or Basic with the key as the password (the username is
 * ignored, as GitLab; credentials in the URL arrive as Basic).
 */
export function keyFrom(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  if (typeof auth !== 'string') return null;
  const bearer = /^bearer\s+(.+)$/i.exec(auth);
  if (bearer) return bearer[1]!.trim();
  const basic = /^basic\s+(.+)$/i.exec(auth);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1]!.trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}

/** The alert notify endpoints, outside /api: they authenticate with the integration's key, not a user. */
export async function intakeRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'alertIntake' | 'config'>,
): Promise<void> {
  // The body is read as text here so that size (413), depth and JSON errors (400) get their own messages.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: ctx.config.alertPayloadLimitBytes },
    (_req, body, done) => done(null, body),
  );

  // A heartbeat integration's URL (GET or POST; the body is not read): `/-/alerts/heartbeat/<project id>/<id>`.
  const heartbeat = async (
    request: FastifyRequest<{ Params: { project: string; identifier: string } }>,
    reply: FastifyReply,
  ) => {
    const outcome = await ctx.alertIntake.notify({
      projectPath: request.params.project,
      identifier: request.params.identifier,
      key: keyFrom(request),
      body: '',
      heartbeatOnly: true,
    });
    return reply.status(200).send(outcome.alerts);
  };
  app.get('/-/alerts/heartbeat/:project/:identifier', heartbeat);
  app.post('/-/alerts/heartbeat/:project/:identifier', heartbeat);

  app.post('/*', async (request, reply) => {
    const target = parseNotifyPath(request.url);
    if (!target) return reply.status(404).send({ error: '404 Not Found' });

    // Authentication, the throttle (per integration, when enabled), parsing and storing: all the service's.
    const outcome = await ctx.alertIntake.notify({
      projectPath: target.projectPath,
      identifier: target.identifier,
      key: keyFrom(request),
      body: typeof request.body === 'string' ? request.body : '',
    });
    if (outcome.skipped.length > 0)
      request.log.warn(
        { integration: outcome.integrationId, skipped: outcome.skipped },
        'alert items skipped as invalid',
      );
    return reply.status(200).send(outcome.alerts);
  });
}
