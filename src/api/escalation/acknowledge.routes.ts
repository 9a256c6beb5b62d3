import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { AckLinkView, AckOutcome } from '../../escalation/escalation.service.js';

/**
 * The page's own policy: no script at all, its one inline style, the form posting back here only. Set here, the
 * app's UI policy (which allows no inline style) is not applied over it.
 */
const ACK_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE =
  'body{font:16px/1.4 system-ui,sans-serif;margin:0;padding:16px;color:#222;background:#f6f6f6}' +
  'main{max-width:480px;margin:0 auto;background:#fff;border-radius:8px;padding:20px;box-shadow:0 1px 3px #0002}' +
  'h1{font-size:20px;margin:0 0 12px}p{margin:8px 0;overflow-wrap:anywhere}' +
  'button{width:100%;font-size:18px;padding:14px;margin-top:16px;border:0;border-radius:6px;background:#1f75cb;color:#fff}' +
  '.muted{color:#666;font-size:14px}';

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex,nofollow">' +
    `<title>${html(title)}</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${html(title)}</h1>${body}</main></body></html>`
  );
}

function what(v: AckLinkView): string {
  const t = v.target!;
  const ref = t.kind === 'alert' ? `Alert #${t.iid}` : `Incident #${t.iid}`;
  return (
    `<p><strong>${html(ref)}</strong>: ${html(t.title)}</p>` +
    `<p class="muted">Project ${html(v.projectPath ?? '')} · status ${html(t.status)}` +
    `${v.user ? ` · paged: @${html(v.user)}` : ''}</p>`
  );
}

/** The answer for a link that cannot be used: 404 unknown, 410 used or expired; nothing was changed. */
function refused(reply: FastifyReply, v: AckLinkView): FastifyReply {
  if (v.state === 'unknown')
    return send(
      reply,
      404,
      page('Link not found', '<p>This acknowledge link is not valid. Nothing was changed.</p>'),
    );
  const why =
    v.state === 'used' ? 'This acknowledge link was already used.' : 'This acknowledge link has expired.';
  return send(
    reply,
    410,
    page(
      v.state === 'used' ? 'Link already used' : 'Link expired',
      `${what(v)}<p>${why} Nothing was changed. Sign in to svc to act on it.</p>`,
    ),
  );
}

function send(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .status(status)
    .header('Content-Security-Policy', ACK_CSP)
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(html);
}

function done(reply: FastifyReply, r: AckOutcome): FastifyReply {
  if (r.state === 'unknown') return refused(reply, r);
  if (r.acknowledged)
    return send(
      reply,
      200,
      page(
        'Acknowledged',
        `${what(r)}<p>Acknowledged${r.user ? ` as @${html(r.user)}` : ''}. Thank you.</p>`,
      ),
    );
  if (!r.usedNow) return refused(reply, r);
  // The link was used by this request, but the alert or incident was no longer triggered: nothing to acknowledge.
  return send(
    reply,
    200,
    page('Nothing to acknowledge', `${what(r)}<p>It is no longer triggered: nothing was changed.</p>`),
  );
}

/**
 * A page's one-use acknowledge link (`/-/acknowledge/<token>`), without signing in: the token is the credential,
 * and it acknowledges its one alert or incident only. GET shows what it would acknowledge and a button, and changes
 * nothing (mail scanners fetch links); the button's POST acknowledges. The token is never logged (src/api/redact.ts).
 */
export function acknowledgeRoutes(app: FastifyInstance, ctx: Pick<AppContext, 'escalations'>): void {
  const Params = {
    type: 'object',
    properties: { token: { type: 'string', maxLength: 200 } },
    required: ['token'],
  } as const;
  app.get<{ Params: { token: string } }>(
    '/-/acknowledge/:token',
    { schema: { params: Params } },
    async (req, reply) => {
      const v = await ctx.escalations.acknowledgeLink(req.params.token);
      if (v.state !== 'valid') return refused(reply, v);
      return send(
        reply,
        200,
        page(
          'Acknowledge this page?',
          `${what(v)}<form method="post"><button type="submit">Acknowledge</button></form>` +
            '<p class="muted">One use: the link stops working once used.</p>',
        ),
      );
    },
  );
  app.post<{ Params: { token: string } }>(
    '/-/acknowledge/:token',
    { schema: { params: Params } },
    async (req, reply) => done(reply, await ctx.escalations.acknowledgeWithLink(req.params.token)),
  );
}
