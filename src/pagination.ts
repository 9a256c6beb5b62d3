/**
 * Pagination in the domain: page requests and results shared by services and repositories (offset and keyset).
 * The SQL side is db/pagination.ts (fetchPage); the HTTP side (query parameters, headers, Link, cursors) is
 * api/pagination.ts.
 */
/** Offset page request and result. */
export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
}

export interface Paged<T> {
  readonly items: readonly T[];
  /** Exact up to COUNT_LIMIT; a capped count (see fetchPage) says only "more than that" above it. */
  readonly total: number;
}

/** Above this many records GitLab omits `X-Total`, `X-Total-Pages` and the `last` link (and need not count them). */
export const COUNT_LIMIT = 10_000;

/** Keyset request: rows after `after` in `order` direction, `limit` of them. */
export interface KeysetRequest<K extends string = string> {
  readonly orderBy: K;
  readonly sort: 'asc' | 'desc';
  readonly limit: number;
  /** The last row of the previous page: its ordering value and id. */
  readonly after: { readonly value: string | number; readonly id: number } | null;
}
