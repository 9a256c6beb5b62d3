import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * A weak ETag on every successful JSON GET of the API, and 304 Not Modified when the caller already holds that
 * body (`If-None-Match`). GitLab does the same with Rack::ETag (`ETag: W/"<digest>"`); the UI's lists poll
 * with it, so an unchanged list costs a query but no transfer and no re-render. The tag is a digest of the
 * body as sent, so it changes with anything the answer shows, pagination headers aside: those are hashed in.
 */
export function installEtags(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if (!request.url.startsWith('/api/')) return payload;
    if (reply.getHeader('etag') !== undefined) return payload;
    const hash = createHash('sha256').update(payload);
    // The same rows on another page, or a list whose total changed, must not answer 304.
    for (const name of ['x-total', 'x-page', 'x-next-page', 'x-prev-page', 'x-total-pages', 'link']) {
      hash.update(`\n${name}:${String(reply.getHeader(name) ?? '')}`);
    }
    const tag = `W/"${hash.digest('base64url').slice(0, 27)}"`;
    reply.header('ETag', tag);
    if (!reply.hasHeader('cache-control'))
      reply.header('Cache-Control', 'max-age=0, private, must-revalidate');
    if (!matches(request.headers['if-none-match'], tag)) return payload;
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    reply.removeHeader('content-security-policy');
    return '';
  });
}

/** `If-None-Match` holds a list of tags or `*`; weak comparison (RFC 9110 13.1.2) ignores the `W/` prefix. */
function matches(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const bare = tag.replace(/^W\//, '');
  return header.split(',').some((t) => {
    const candidate = t.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === bare;
  });
}
