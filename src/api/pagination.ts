import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { paramError } from '../errors.js';
import { COUNT_LIMIT, type PageRequest } from '../pagination.js';

/** Offset pagination query parameters: `page` (default 1) and `per_page` (default 20, at most 100). */
export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type PageQuery = Static<typeof PageQuery>;

/** Keyset parameters (`pagination=keyset`, `cursor` or `id_after`). */
export const KeysetQuery = Type.Object({
  pagination: Type.Optional(Type.Union([Type.Literal('keyset'), Type.Literal('offset')])),
  cursor: Type.Optional(Type.String()),
  id_after: Type.Optional(Type.Integer()),
  id_before: Type.Optional(Type.Integer()),
});

const MAX_PER_PAGE = 100;

/** Reads page and per_page with GitLab's defaults; per_page above 100 is clamped to 100. */
export function pageRequest(q: PageQuery): PageRequest {
  return { page: q.page ?? 1, perPage: Math.min(q.per_page ?? 20, MAX_PER_PAGE) };
}

/** The request's URL on the external base, with some query parameters replaced. */
export function linkTo(externalUrl: string, request: FastifyRequest, params: Record<string, string>): string {
  const url = new URL(request.url, 'http://placeholder');
  // Credentials passed in the query are not echoed back in links.
  url.searchParams.delete('private_token');
  url.searchParams.delete('access_token');
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return `${externalUrl}${url.pathname}${url.search}`;
}

/**
 * Sets GitLab's offset pagination headers: X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page,
 * Link. A null `total` is not counted and there is a next page (a list computed only up to the page asked for):
 * as above COUNT_LIMIT, no X-Total, X-Total-Pages or `last` link.
 */
export function setPageHeaders(
  reply: FastifyReply,
  request: FastifyRequest,
  externalUrl: string,
  page: PageRequest,
  counted: number | null,
): void {
  const total = counted ?? Number.POSITIVE_INFINITY;
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  const next = page.page < totalPages ? String(page.page + 1) : '';
  const prev = page.page > 1 ? String(page.page - 1) : '';
  const link = (p: number | string, rel: string) =>
    `<${linkTo(externalUrl, request, { page: String(p), per_page: String(page.perPage) })}>; rel="${rel}"`;
  const links: string[] = [];
  if (prev) links.push(link(prev, 'prev'));
  if (next) links.push(link(next, 'next'));
  links.push(link(1, 'first'));
  if (total <= COUNT_LIMIT) links.push(link(totalPages, 'last'));
  reply.header('X-Per-Page', String(page.perPage));
  reply.header('X-Page', String(page.page));
  reply.header('X-Next-Page', next);
  reply.header('X-Prev-Page', prev);
  if (total <= COUNT_LIMIT) {
    reply.header('X-Total', String(total));
    reply.header('X-Total-Pages', String(totalPages));
  }
  appendLink(reply, links.join(', '));
}

/** Adds to the Link header (a deprecation link may already be there). */
function appendLink(reply: FastifyReply, value: string): void {
  const existing = reply.getHeader('link');
  reply.header('Link', existing ? `${String(existing)}, ${value}` : value);
}

/** Keyset cursor: the last row's ordering value and id, base64url JSON (opaque to clients). */
export function encodeCursor(value: string | number, id: number): string {
  return Buffer.from(JSON.stringify({ v: value, id })).toString('base64url');
}

export function decodeCursor(cursor: string): { value: string | number; id: number } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v: unknown;
      id: unknown;
    };
    if ((typeof parsed.v === 'string' || typeof parsed.v === 'number') && Number.isInteger(parsed.id)) {
      return { value: parsed.v, id: parsed.id as number };
    }
  } catch {
    // fall through
  }
  throw paramError('cursor is invalid');
}

/** Keyset responses carry only `Link: <...>; rel="next"`, and only when there may be more. */
export function setKeysetHeaders(
  reply: FastifyReply,
  request: FastifyRequest,
  externalUrl: string,
  perPage: number,
  next: Record<string, string> | null,
): void {
  reply.header('X-Per-Page', String(perPage));
  if (next)
    reply.header(
      'Link',
      `<${linkTo(externalUrl, request, { ...next, per_page: String(perPage) })}>; rel="next"`,
    );
}

/**
 * Headers of a list an external backend pages by cursor (Sentry) and does not count: X-Per-Page, and `Link`
 * rel="prev"/"next" to this request with the backend's cursor, only in the directions it has results. A request
 * by page number (no cursor) also gets X-Page, X-Next-Page and X-Prev-Page, so clients that page by number
 * (svc's UI) go on doing so; no X-Total, since the backend gives none.
 */
export function setCursorHeaders(
  reply: FastifyReply,
  request: FastifyRequest,
  externalUrl: string,
  page: PageRequest,
  byCursor: boolean,
  cursors: { readonly nextCursor: string | null; readonly prevCursor: string | null },
): void {
  reply.header('X-Per-Page', String(page.perPage));
  if (!byCursor) {
    reply.header('X-Page', String(page.page));
    reply.header('X-Next-Page', cursors.nextCursor ? String(page.page + 1) : '');
    reply.header('X-Prev-Page', page.page > 1 ? String(page.page - 1) : '');
  }
  const link = (cursor: string, rel: string) => {
    const href = new URL(linkTo(externalUrl, request, { cursor, per_page: String(page.perPage) }));
    // The cursor replaces the page number it was computed from.
    href.searchParams.delete('page');
    return `<${href.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (cursors.prevCursor) links.push(link(cursors.prevCursor, 'prev'));
  if (cursors.nextCursor) links.push(link(cursors.nextCursor, 'next'));
  if (links.length > 0) appendLink(reply, links.join(', '));
}
