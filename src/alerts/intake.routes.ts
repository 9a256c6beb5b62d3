import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { FixedWindowThrottle } from '../throttle.js';
import { IntakeService } from './intake.service.js';

/** `/<namespace>/<project>/alerts/notify/<name>/<endpoint_identifier>.json` (GitLab's route). */
const HTTP_NOTIFY = /^\/(.+)\/alerts\/notify\/[^/]+\/([A-Za-z0-9]+)(?:\.json)?$/;
/** `/<namespace>/<project>/prometheus/alerts/notify.json`: the project's default metrics-alerting integration. */
const PROMETHEUS_NOTIFY = /^\/(.+)\/prometheus\/alerts\/notify(?:\.json)?$/;

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
export async function intakeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const throttle = new FixedWindowThrottle();
  // The body is read as text here so that size (413), depth and JSON errors (400) get their own messages.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: ctx.config.alertPayloadLimitBytes },
    (_req, body, done) => done(null, body),
  );

  app.post('/*', async (request, reply) => {
    const path = decodeURIComponent(request.url.split('?')[0] ?? '');
    const http = HTTP_NOTIFY.exec(path);
    const prometheus = http ? null : PROMETHEUS_NOTIFY.exec(path);
    const match = http ?? prometheus;
    if (!match) return reply.status(404).send({ error: '404 Not Found' });

    const settings = await ctx.settings.get();
    if (settings.throttle_incident_management_notification_enabled) {
      const wait = throttle.hit(
        path,
        settings.throttle_incident_management_notification_per_period,
        settings.throttle_incident_management_notification_period_in_seconds,
        ctx.clock.now().getTime(),
      );
      if (wait > 0) {
        throw new AppError(429, { message: 'Retry later' }, { 'Retry-After': String(wait) });
      }
    }

    const { project, integration } = await ctx.alertIntake.authenticate(
      match[1]!,
      http ? match[2]! : null,
      keyFrom(request),
    );
    const text = typeof request.body === 'string' ? request.body : '';
    if (text.trim() === '') throw new AppError(400, { message: '400 Bad request - The payload is empty' });
    const payload = IntakeService.parseBody(text);
    return reply.status(200).send(await ctx.alertIntake.receive(project, integration, payload));
  });
}
