import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { RateLimited } from '../../error-tracking/collector.service.js';
import { ProtocolError, parseJson } from '../../error-tracking/protocol.js';
import { FormErrors, ReportError } from '../../error-tracking/reports.js';
import { statusOf } from '../errors.js';

/** Largest request body accepted before decompression (Sentry's 20 MB). */
const BODY_LIMIT = 20 * 1024 * 1024;

const single = (v: string | string[] | undefined): string | undefined =>
  typeof v === 'string' ? v : undefined;

/** Each request's Content-Type as sent (the collector reads every body as bytes). */
const contentTypes = new WeakMap<FastifyRequest, string>();
const mediaType = (request: FastifyRequest) =>
  (contentTypes.get(request) ?? '').split(';')[0]!.trim().toLowerCase();

/** Security report bodies Sentry's Relay takes (CSP level 2, the Reporting API, Expect-CT, Expect-Staple). */
const SECURITY_TYPES = new Set([
  'application/json',
  'application/csp-report',
  'application/reports+json',
  'application/expect-ct-report',
  'application/expect-ct-report+json',
  'application/expect-staple-report',
]);

function cors(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Expose-Headers', 'X-Sentry-Error, X-Sentry-Rate-Limits, Retry-After');
  if (request.method === 'OPTIONS') {
    reply.header('Access-Control-Allow-Methods', 'POST, OPTIONS');
    const asked = request.headers['access-control-request-headers'];
    reply.header(
      'Access-Control-Allow-Headers',
      typeof asked === 'string' && asked ? asked : 'Content-Type, X-Sentry-Auth',
    );
    reply.header('Access-Control-Max-Age', '3600');
  }
}

/**
 * The report dialog `showReportDialog` injects with a script tag. Everything it shows is set as text (the query's
 * title, labels, name and email included), and it posts to its own URL, whose query carries the DSN and event id.
 * On close it tells the SDK with the message Sentry's dialog sends.
 */
const ERROR_PAGE_SCRIPT = `(function () {
  var script = document.currentScript;
  if (!script) return;
  var url = new URL(script.src);
  var q = url.searchParams;
  var opt = function (k, d) { return q.get(k) || d; };
  var el = function (tag, props, children) {
    var e = document.createElement(tag);
    Object.keys(props || {}).forEach(function (k) { if (k === 'text') e.textContent = props[k]; else e.setAttribute(k, props[k]); });
    (children || []).forEach(function (c) { e.appendChild(c); });
    return e;
  };
  var field = function (name, label, type, value) {
    var input = type === 'textarea' ? el('textarea', { name: name, required: '', rows: '4' }) : el('input', { name: name, type: type, required: '' });
    input.value = value || '';
    input.style.cssText = 'display:block;width:100%;box-sizing:border-box;margin:4px 0 12px;padding:6px;font:inherit';
    return el('label', { text: label }, [input]);
  };
  var status = el('p', { role: 'status' });
  var send = el('button', { type: 'submit', text: opt('labelSubmit', 'Submit Crash Report') });
  var cancel = el('button', { type: 'button', text: opt('labelClose', 'Close') });
  var form = el('form', { 'aria-label': opt('title', "It looks like we're having issues.") }, [
    el('h2', { text: opt('title', "It looks like we're having issues.") }),
    el('p', { text: opt('subtitle', 'Our team has been notified.') + ' ' + opt('subtitle2', "If you'd like to help, tell us what happened below.") }),
    field('name', opt('labelName', 'Name'), 'text', q.get('name')),
    field('email', opt('labelEmail', 'Email'), 'email', q.get('email')),
    field('comments', opt('labelComments', 'What happened?'), 'textarea', ''),
    status, send, cancel,
  ]);
  var dialog = el('div', { role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Report a problem' }, [form]);
  dialog.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;font:14px sans-serif';
  form.style.cssText = 'background:#fff;color:#111;padding:20px;max-width:480px;width:90%;border-radius:6px';
  var close = function () { dialog.remove(); window.postMessage('__sentry_reportdialog_closed__', '*'); };
  cancel.addEventListener('click', close);
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    send.disabled = true;
    status.textContent = '';
    fetch(url.toString(), { method: 'POST', headers: { Accept: 'application/json' }, body: new URLSearchParams(new FormData(form)) })
      .then(function (r) { return r.json().then(function (b) { return { ok: r.ok, body: b }; }); })
      .then(function (r) {
        if (r.ok) {
          form.replaceChildren(el('p', { role: 'status', text: opt('successMessage', 'Your feedback has been sent. Thank you!') }), cancel);
          return;
        }
        var errors = (r.body && r.body.errors) || {};
        status.textContent = Object.keys(errors).map(function (k) { return k + ': ' + [].concat(errors[k]).join(' '); }).join(' ') || opt('errorGeneric', 'An unknown error occurred while submitting your report. Please try again.');
        send.disabled = false;
      })
      .catch(function () { status.textContent = opt('errorGeneric', 'An unknown error occurred while submitting your report. Please try again.'); send.disabled = false; });
  });
  document.body.appendChild(dialog);
})();
`;

/**
 * The Sentry collector under the DSN's path: `POST /api/v4/error_tracking/collector/api/:id/store` and
 * `/envelope`, with or without a trailing slash, any content type (browsers send text/plain), CORS for browsers.
 */
export async function collectorRoutes(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'collector'>,
): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );
  app.addHook('onRequest', async (request, reply) => cors(request, reply));
  // Sentry's relay reads a store or envelope body whatever its Content-Type says, and so does the parser above;
  // but Fastify refuses a malformed or empty one before any parser runs. Bodies are bytes here, so say so.
  app.addHook('onRequest', async (request) => {
    const type = request.headers['content-type'];
    if (type !== undefined) {
      // The security and error page endpoints decide by the type that was sent.
      contentTypes.set(request, type);
      request.headers['content-type'] = 'application/octet-stream';
    }
  });
  // A wrong key in the URL or a header is refused before the body is read or decompressed.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return;
    const params = request.params as { id?: string };
    const query = request.query as Record<string, unknown>;
    if (!params.id) return;
    await ctx.collector.precheck({
      projectId: params.id,
      queryKey: typeof query.sentry_key === 'string' ? query.sentry_key || null : null,
      authHeader: single(request.headers['x-sentry-auth']),
      authorization: single(request.headers.authorization),
    });
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof RateLimited) {
      return (
        reply
          .status(429)
          .header('Retry-After', String(error.retryAfter))
          // Sentry's rate-limit header: retry_after:categories:scope (empty categories = all).
          .header('X-Sentry-Rate-Limits', `${error.retryAfter}::key`)
          .send({ message: error.message })
      );
    }
    if (error instanceof ProtocolError) {
      return reply
        .status(statusOf(error.kind))
        .header('X-Sentry-Error', error.message)
        .send({ message: error.message });
    }
    if (error.statusCode === 413) return reply.status(413).send({ message: '413 Request Entity Too Large' });
    // Fastify's other client errors (a broken body or header): the sender's fault, never a 500.
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      return reply
        .status(error.statusCode)
        .send({ message: `${error.statusCode} Bad request - ${error.message}` });
    request.log.error({ err: error }, 'collector error');
    return reply.status(500).send({ message: '500 Internal Server Error' });
  });

  // Sentry's HTTP check-in endpoint for cron jobs without an SDK (`curl ".../cron/<slug>/<key>/?status=ok"`): 202, no body.
  const cron = async (
    request: FastifyRequest<{
      Params: { id: string; slug: string; key: string };
      Querystring: Record<string, unknown>;
    }>,
    reply: FastifyReply,
  ) => {
    await ctx.collector.httpCheckIn({
      projectId: request.params.id,
      key: request.params.key,
      slug: request.params.slug,
      query: request.query ?? {},
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      contentEncoding: single(request.headers['content-encoding']),
    });
    return reply.status(202).send();
  };
  app.get('/api/:id/cron/:slug/:key/', cron);
  app.post('/api/:id/cron/:slug/:key/', cron);

  // Browsers post security reports here (`report-uri` / `report-to` naming the DSN's security URL with
  // `?sentry_key=`): each report an error of its own kind. 200 with no body, as Relay answers.
  app.options('/api/:id/security/', async (_request, reply) => reply.status(200).send());
  app.post<{ Params: { id: string }; Querystring: Record<string, unknown> }>(
    '/api/:id/security/',
    async (request, reply) => {
      if (!SECURITY_TYPES.has(mediaType(request)))
        throw new ProtocolError('unsupported_media_type', '415 Unsupported Media Type');
      const q = request.query ?? {};
      await ctx.collector.security({
        projectId: request.params.id,
        queryKey: typeof q.sentry_key === 'string' ? q.sentry_key || null : null,
        release: typeof q.sentry_release === 'string' ? q.sentry_release : null,
        environment: typeof q.sentry_environment === 'string' ? q.sentry_environment : null,
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        contentEncoding: single(request.headers['content-encoding']),
        userAgent: single(request.headers['user-agent']),
        clientIp: request.ip,
      });
      return reply.status(200).send();
    },
  );

  // The form Sentry's `showReportDialog` posts (`.../api/embed/error-page/?dsn=...&eventId=...`, urlencoded
  // `name`, `email`, `comments`): answered as Sentry answers it, `{}` or 400 `{"errors": {field: [reason]}}`.
  app.options('/api/embed/error-page/', async (_request, reply) => reply.status(200).send());
  // `showReportDialog` loads this script (its options in the query): it shows the form and posts it back here.
  app.get('/api/embed/error-page/', async (_request, reply) =>
    reply
      .status(200)
      .header('Cache-Control', 'no-cache')
      .type('application/javascript; charset=utf-8')
      .send(ERROR_PAGE_SCRIPT),
  );
  app.post<{ Querystring: Record<string, unknown> }>('/api/embed/error-page/', async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const type = mediaType(request);
    let form: Record<string, unknown>;
    if (type === 'application/json') {
      const parsed = parseJson(body);
      form =
        typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
          ? (parsed as Record<string, unknown>)
          : {};
    } else if (
      type === 'application/x-www-form-urlencoded' ||
      type === 'multipart/form-data' ||
      type === ''
    ) {
      if (type === 'multipart/form-data')
        throw new ProtocolError(
          'unsupported_media_type',
          '415 Unsupported Media Type - send the form urlencoded',
        );
      form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    } else throw new ProtocolError('unsupported_media_type', '415 Unsupported Media Type');
    const q = request.query ?? {};
    try {
      await ctx.collector.errorPageFeedback({ dsn: q.dsn, eventId: q.eventId, form });
    } catch (err) {
      if (err instanceof FormErrors) return reply.status(400).send({ errors: err.errors });
      if (err instanceof ReportError) return reply.status(400).send({ errors: { __all__: [err.message] } });
      throw err;
    }
    return reply.status(200).send({});
  });

  for (const kind of ['store', 'envelope'] as const) {
    // SDKs post to `.../store/` and `.../envelope/`; the router ignores a trailing slash, so one path takes both.
    const path = `/api/:id/${kind}/`;
    app.options(path, async (_request, reply) => reply.status(200).send());
    app.post<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
      path,
      async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const result = await ctx.collector.ingest({
          projectId: request.params.id,
          kind,
          // A repeated parameter or header arrives as a list: only a single value is a key.
          queryKey: typeof request.query.sentry_key === 'string' ? request.query.sentry_key || null : null,
          authHeader: single(request.headers['x-sentry-auth']),
          authorization: single(request.headers.authorization),
          contentEncoding: single(request.headers['content-encoding']),
          body,
          clientIp: request.ip,
        });
        return reply.status(200).send(result.id ? { id: result.id } : {});
      },
    );
  }
}
