import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { accessTokenRoutes } from './api/access-tokens/access-tokens.routes.js';
import { alertRoutes } from './api/alerts/alerts.routes.js';
import { intakeRoutes } from './api/alerts/intake.routes.js';
import { integrationRoutes } from './api/alerts/integrations.routes.js';
import { auditRoutes } from './api/audit/audit.routes.js';
import { authenticate } from './api/auth.js';
import { avatarRoutes } from './api/avatars/avatars.routes.js';
import { chatRoutes } from './api/chat/chat.routes.js';
import { deprecationRoutes, installDeprecationSignals } from './api/deprecations.js';
import { collectorRoutes } from './api/error-tracking/collector.routes.js';
import { errorTrackingRoutes } from './api/error-tracking/error-tracking.routes.js';
import { monitorRoutes } from './api/error-tracking/monitors.routes.js';
import { sentryApiRoutes } from './api/error-tracking/sentry-api.routes.js';
import { frameworkErrors, installErrorHandling } from './api/errors.js';
import { acknowledgeRoutes } from './api/escalation/acknowledge.routes.js';
import { escalationRoutes } from './api/escalation/escalation.routes.js';
import { installEtags } from './api/etag.js';
import { geoRoutes } from './api/geo/geo.routes.js';
import { repositoryRoutes } from './api/git/repositories.routes.js';
import { repositoryContentRoutes } from './api/git/repository-content.routes.js';
import { installSmartHttp } from './api/git/smart-http.routes.js';
import { groupRoutes } from './api/groups/groups.routes.js';
import { issueRoutes } from './api/issues/issues.routes.js';
import { mergeRequestApprovalRoutes } from './api/merge-requests/merge-request-approvals.routes.js';
import { mergeRequestRoutes } from './api/merge-requests/merge-requests.routes.js';
import { approvalRoutes } from './api/merge-requests/project-approval-rules.routes.js';
import { installMetrics } from './api/metrics.js';
import { noteRoutes } from './api/notes/notes.routes.js';
import { hookRoutes } from './api/notifications/hooks.routes.js';
import { oncallRoutes } from './api/oncall/oncall.routes.js';
import { OpenApiCollector } from './api/openapi.js';
import { projectRoutes } from './api/projects/projects.routes.js';
import { redactUrl } from './api/redact.js';
import { RequestLog } from './api/request-log.js';
import { runnerRegistrationRoutes } from './api/runners/registration.routes.js';
import { runnerRoutes } from './api/runners/runners.routes.js';
import { sessionRoutes } from './api/session.routes.js';
import { adminRoutes } from './api/settings/admin.routes.js';
import { maintenanceWindowRoutes } from './api/silences/maintenance-windows.routes.js';
import { silenceRoutes } from './api/silences/silences.routes.js';
import { snippetRoutes } from './api/snippets/snippets.routes.js';
import { storageMoveRoutes } from './api/storage-moves/storage-moves.routes.js';
import { tokenRoutes } from './api/users/tokens.routes.js';
import { userRoutes } from './api/users/users.routes.js';
import {
  FORM_BODY,
  lazySerializers,
  parseForm,
  parseQuery,
  UPLOADS,
  type UploadPart,
  uploadFields,
  validatorCompiler,
} from './api/validation.js';
import { API_VERSIONS, type ApiApp } from './api/version.js';
import type { AppContext } from './app-context.js';
import { forbidden, paramError } from './errors.js';
import { Readiness } from './readiness.js';
import { runInRequestContext } from './request-context.js';

/**
 * The UI's Content-Security-Policy: the built React app loads its own module scripts and stylesheets only (no
 * inline script), talks to its own origin, and may not be framed (clickjacking); images may come from elsewhere.
 */
const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Alert pages show the panel screenshot a monitoring tool links to (Grafana's imageURL), loaded without referrer.
  "img-src 'self' data: https: http:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
/** API answers are data, never documents: nothing may run or load from them, nor frame them. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/** Pino options: JSON logs with request ids; credentials never logged. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["private-token"]',
        'req.headers.cookie',
        'req.headers["x-sentry-auth"]',
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
  };
}

/** Where the built UI lives: dist/web beside dist/server, or dist/web from the source tree. */
function webRoot(): string | null {
  for (const rel of ['../web', '../dist/web']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}/index.html`)) return dir;
  }
  return null;
}

/** Builds the HTTP application. Never listens: the server and the tests do. */
export async function buildApp(
  ctx: AppContext,
  opts: {
    logger?: FastifyServerOptions['logger'];
    serverFactory?: FastifyServerOptions['serverFactory'];
  } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    // Quiet by default: only failed and slow requests write a line (see RequestLog).
    logController: new RequestLog(ctx.config),
    // A server already bound (start() on port 0 binds before it builds the app, to know its external URL).
    ...(opts.serverFactory && { serverFactory: opts.serverFactory }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
    trustProxy: false,
    // GitLab's router collapses repeated slashes and ignores a trailing one (python-gitlab asks for
    // `/features/` and `/features//name`); here before routing and before any hook reads the URL.
    rewriteUrl: (req) => collapseSlashes(req.url ?? '/'),
    // Rails-style `iids[]=1&iids[]=2` arrays in the query string (python-gitlab, gitbeaker).
    routerOptions: { ignoreTrailingSlash: true, querystringParser: parseQuery },
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors,
    schemaController: { compilersFactory: lazySerializers },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  await app.register(fastifyCookie);
  // The client address, for services that limit by it (password guessing), without passing HTTP objects down.
  // Registered before git smart HTTP's hook, which runs inside this context.
  app.addHook('onRequest', (request, _reply, done) => runInRequestContext({ ip: request.ip }, done));
  // Headers on every answer, set on the raw response so that hijacked answers (git smart HTTP) carry them too.
  app.addHook('onRequest', async (_request, reply) => {
    reply.raw.setHeader('X-Content-Type-Options', 'nosniff');
    reply.raw.setHeader('X-Frame-Options', 'DENY');
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    // A 304 has no body and no type: browsers merge its headers into the cached page, so it must not carry
    // the API policy over the UI's.
    if (reply.statusCode === 304) return;
    const type = String(reply.getHeader('content-type') ?? '');
    // A page that sets its own policy keeps it (the acknowledge link's page).
    if (!reply.hasHeader('Content-Security-Policy'))
      reply.header('Content-Security-Policy', type.startsWith('text/html') ? UI_CSP : API_CSP);
    // GitLab answers JSON as exactly `application/json` (JSON is UTF-8 by definition, RFC 8259), and clients
    // compare it exactly: python-gitlab 3.x (Debian 12's) refuses anything else (its issue 2503).
    if (type === 'application/json; charset=utf-8') reply.header('Content-Type', 'application/json');
  });
  installEtags(app);
  // An empty body with `Content-Type: application/json` is no body (python-gitlab sends that on every DELETE;
  // GitLab accepts it). Anything else goes through Fastify's own parser, prototype-poisoning checks included.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    parseJson(req, text, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, parseForm(body as string)),
  );
  // Multipart forms (gitbeaker sends some updates this way; python-gitlab and gitbeaker send avatars), parsed with
  // Node's built-in FormData. File parts are kept beside the fields for the routes that take them (`config.uploads`);
  // any other route refuses them (below) rather than dropping them.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer' },
    async (req: FastifyRequest, body: Buffer) => {
      let form: FormData;
      try {
        form = await new Response(body, {
          headers: { 'content-type': req.headers['content-type']! },
        }).formData();
      } catch {
        throw paramError('the multipart body could not be parsed');
      }
      const fields = new URLSearchParams();
      const files = new Map<string, UploadPart>();
      for (const [key, value] of form) {
        if (typeof value === 'string') fields.append(key, value);
        else files.set(key, { filename: value.name, data: Buffer.from(await value.arrayBuffer()) });
      }
      const parsed = parseForm(fields.toString());
      if (files.size > 0) Object.defineProperty(parsed, UPLOADS, { value: files, enumerable: false });
      return parsed;
    },
  );
  // GitLab (Grape) reads the query string and the body as one set of parameters, the body winning on a conflict:
  // `POST /projects?name=x` with no body or with `{}` (python-gitlab's `create(name=...)`) works, and so does
  // `DELETE ...?key_id=3`.
  app.addHook('preValidation', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
    const taken = request.routeOptions.config.uploads ?? [];
    for (const key of uploadFields(request.body))
      if (!taken.includes(key)) throw paramError(`${key} is a file upload, which svc does not accept here`);
    const q = request.url.indexOf('?');
    const query = q >= 0 ? parseForm(request.url.slice(q + 1)) : null;
    if (request.body === undefined || request.body === null) {
      request.body = query ?? Object.defineProperty({}, FORM_BODY, { value: true });
      return;
    }
    const body = request.body;
    if (!query || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) return;
    for (const [key, value] of Object.entries(query))
      if (!Object.hasOwn(body, key) && !CREDENTIAL_PARAMS.has(key))
        (body as Record<string, unknown>)[key] = value;
  });

  const registry = installMetrics(app, ctx.config.metricsAllowlist);
  installDeprecationSignals(app, registry, ctx.config.externalUrl);
  installSmartHttp(app, ctx);
  app.get('/-/health', async () => ({ status: 'ok' }));
  const readiness = new Readiness(ctx.db, ctx.config.dataDir, ctx.config.storages);
  app.get('/-/readiness', async (request, reply) => {
    const r = await readiness.check();
    if (r.ok) return { status: 'ok', checks: r.checks };
    // The reasons (paths, driver messages) go to the log only; the answer names the failing checks.
    request.log.warn({ failures: r.failures }, 'readiness check failed');
    const failed = r.failures.map((f) => f.check).join(', ');
    return reply.status(503).send({
      status: 'failed',
      message: `503 Service Unavailable: ${failed} not writable`,
      checks: r.checks,
    });
  });

  await app.register(async (scope) => sessionRoutes(scope as unknown as ApiApp, ctx));
  await app.register(async (scope) => avatarRoutes(scope as unknown as ApiApp, ctx));
  await app.register(async (scope) => intakeRoutes(scope, ctx));
  await app.register(async (scope) => acknowledgeRoutes(scope, ctx));
  await app.register(async (scope) => collectorRoutes(scope, ctx), {
    prefix: '/api/v4/error_tracking/collector',
  });
  // Sentry's web API as sentry-cli uses it (releases, source map uploads), at Sentry's own path.
  await app.register(async (scope) => sentryApiRoutes(scope, ctx), { prefix: '/api/0' });

  for (const api of API_VERSIONS) {
    const openapi = new OpenApiCollector();
    await app.register(
      async (scope) => {
        scope.addHook('onRoute', (route) => openapi.add(route));
        scope.addHook('preHandler', authenticate(ctx.users));
        // GitLab's Rack::Attack API throttles, once the caller is known: per user, or per address when anonymous.
        scope.addHook('preHandler', async (request, reply) => {
          const user = request.actor.user;
          const throttled = await ctx.apiThrottle.hit(user ? { userId: user.id } : { address: request.ip });
          if (!throttled) return;
          reply.code(429).headers(throttled.headers).type('text/plain').send(throttled.text);
          return reply;
        });
        const s = scope as unknown as ApiApp;
        userRoutes(s, ctx, api);
        tokenRoutes(s, ctx, api);
        accessTokenRoutes(s, ctx, api);
        groupRoutes(s, ctx, api);
        projectRoutes(s, ctx, api);
        snippetRoutes(s, ctx, api);
        adminRoutes(s, ctx, api);
        integrationRoutes(s, ctx, api);
        alertRoutes(s, ctx, api);
        issueRoutes(s, ctx, api);
        errorTrackingRoutes(s, ctx, api);
        hookRoutes(s, ctx, api);
        oncallRoutes(s, ctx, api);
        escalationRoutes(s, ctx, api);
        silenceRoutes(s, ctx);
        maintenanceWindowRoutes(s, ctx);
        monitorRoutes(s, ctx);
        chatRoutes(s, ctx, api);
        storageMoveRoutes(s, ctx, api);
        repositoryRoutes(s, ctx);
        repositoryContentRoutes(s, ctx, api);
        deprecationRoutes(s, ctx);
        geoRoutes(s, ctx, api);
        auditRoutes(s, ctx, api);
        runnerRegistrationRoutes(s, ctx, api);
        runnerRoutes(s, ctx, api);
        mergeRequestRoutes(s, ctx, api);
        approvalRoutes(s, ctx, api);
        mergeRequestApprovalRoutes(s, ctx, api);
        noteRoutes(s, ctx.config.externalUrl, api, {
          noteables: 'merge_requests',
          what: 'a merge request',
          notes: ctx.mergeRequestNotes,
        });
        s.get('/openapi.json', async () =>
          openapi.document(api.version, ctx.config.externalUrl, ctx.config.release),
        );
      },
      { prefix: `/api/v${api.version}` },
    );
  }

  const root = webRoot();
  if (root) await app.register(fastifyStatic, { root, prefix: '/', wildcard: false, index: ['index.html'] });
  await app.register(async (scope) => webRoutes(scope as unknown as ApiApp, ctx, root));
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ error: '404 Not Found' }));
  return app;
}

/** The Connect action's path (GitLab's UI JSON endpoint): `/<namespace>/<project>/-/error_tracking/projects.json`. */
const CONNECT = /^\/(.+)\/-\/error_tracking\/projects\.json$/;

/**
 * GET routes outside the API: the error tracking Connect action, and the single-page UI (unknown GET paths
 * outside the API load index.html).
 */
function webRoutes(app: ApiApp, ctx: Pick<AppContext, 'users' | 'errorTracking'>, root: string | null): void {
  app.addHook('preHandler', authenticate(ctx.users));
  app.get<{ Querystring: { api_host?: string; token?: string } }>('/*', async (request, reply) => {
    const path = decodeURIComponent(request.url.split('?')[0] ?? '');
    const connect = CONNECT.exec(path);
    if (connect) {
      // The Connect action sends the stored token to the given host: a cookie session alone (which a cross-site
      // link or image would carry) is not enough, the session's CSRF token must come in X-CSRF-Token too.
      const { via, csrfToken } = request.actor;
      if (via === 'session' && (!csrfToken || request.headers['x-csrf-token'] !== csrfToken)) {
        throw forbidden('CSRF token is missing or invalid');
      }
      const projects = await ctx.errorTracking.externalProjects(
        request.actor.user,
        connect[1]!,
        request.query.api_host ?? '',
        request.query.token ?? '',
      );
      // GitLab's UI JSON, outside the versioned API: v4's presenter.
      return API_VERSIONS[0]!.present.externalProjects(projects);
    }
    if (root && isUiPath(path)) return reply.sendFile('index.html');
    return reply.status(404).send({ error: '404 Not Found' });
  });
}

/** Paths under `/-/` that are pages of the UI: its own routes and the snippets' `web_url`s. */
const UI_DASH_PATHS = /^\/-\/(ui|snippets|project_snippets)(\/|$)/;
/** Files the UI build may reference: a missing one is a 404, never the page (a stale bundle must fail loudly). */
const ASSET_FILE = /\.(js|mjs|css|map|png|jpe?g|gif|svg|ico|webp|woff2?|ttf|txt|json|xml|webmanifest)$/i;

/**
 * Whether a GET path is a page of the single-page UI: its own routes, and every `web_url` the API emits
 * (`/<namespace>/<project>`, `/groups/<path>`, `/<username>`, `/-/snippets/<id>`, `/<project>/-/merge_requests/<iid>`),
 * whose paths may contain dots (`/john.doe`, `/group/my.app`). Not the API, not the other `/-/` endpoints, not assets.
 */
export function isUiPath(path: string): boolean {
  if (path.startsWith('/api/') || path === '/api') return false;
  if (path.startsWith('/-/')) return UI_DASH_PATHS.test(path);
  if (path.startsWith('/assets/')) return false;
  return !ASSET_FILE.test(path);
}

/** Query parameters that authenticate a request: never a resource's attribute. */
const CREDENTIAL_PARAMS = new Set(['private_token', 'access_token', 'job_token', 'sudo']);

/**
 * A request URL with each run of slashes in its path made one (the query string untouched). Only the usual
 * origin form (`/path`): an absolute-form target (`http://user:pass@host/path`) is left whole, so that what reads
 * its scheme and credentials (the log's redaction among them) still sees them.
 */
function collapseSlashes(url: string): string {
  if (!url.startsWith('/')) return url;
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  if (!path.includes('//')) return url;
  return path.replace(/\/{2,}/g, '/') + (q >= 0 ? url.slice(q) : '');
}
