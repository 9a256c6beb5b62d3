/** Page requests and results shared by services and repositories (offset and keyset). */
/** Offset page request and result. */
export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
}

export interface Paged<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/** Keyset request: rows after `after` in `order` direction, `limit` of them. */
export interface KeysetRequest<K extends string = string> {
  readonly orderBy: K;
  readonly sort: 'asc' | 'desc';
  readonly limit: number;
  /** The last row of the previous page: its ordering value and id. */
  readonly after: { readonly value: string | number; readonly id: number } | null;
}
