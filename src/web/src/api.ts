import type { Session } from './types';

/** An HTTP failure from the server, carrying the status and a readable message from its GitLab-shaped body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A model validation's reasons by field, each a sentence (`fieldMessages`); empty for other errors. */
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

// The CSRF token lives only in memory: it comes with the session response and goes out on every
// non-GET request, because the session cookie alone must never authorise a state change.
let csrfToken: string | null = null;
let onUnauthorized: (() => void) | null = null;

/** Registers what to do when an API call answers 401 (the session expired or was revoked). */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

/** Turns any GitLab-shaped error body (`message` string or field map, or `error`) into one line of text. */
export function errorMessage(body: unknown, status: number): string {
  if (body !== null && typeof body === 'object') {
    const { message, error } = body as { message?: unknown; error?: unknown };
    if (typeof message === 'string' && message !== '') return message;
    if (message !== null && typeof message === 'object') {
      // Model validation: {"message": {"name": ["has already been taken"]}}.
      const parts = Object.entries(message as Record<string, unknown>).map(([field, reasons]) =>
        `${field} ${Array.isArray(reasons) ? reasons.join(', ') : String(reasons)}`.trim(),
      );
      if (parts.length > 0) return parts.join('; ');
    }
    if (typeof error === 'string' && error !== '') return error;
  }
  return `${status} ${status >= 500 ? 'Server error' : 'Request failed'}`;
}

/**
 * GitLab's model validation body (`{"message": {"name": ["has already been taken"]}}`) as one sentence per
 * field ("Name has already been taken."), for showing next to the field it names; empty for any other body.
 */
export function fieldMessages(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (body === null || typeof body !== 'object') return out;
  const { message } = body as { message?: unknown };
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return out;
  for (const [field, reasons] of Object.entries(message as Record<string, unknown>)) {
    const text = (Array.isArray(reasons) ? reasons.map(String) : [String(reasons)]).join(', ').trim();
    const words = field.replaceAll('_', ' ').replaceAll('.', ' ');
    const sentence = `${words.charAt(0).toUpperCase()}${words.slice(1)} ${text}`.trim();
    out[field] = /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
  }
  return out;
}

/** The field sentences of a failed request (see `fieldMessages`); empty when it failed otherwise. */
export function fieldErrors(err: unknown): Readonly<Record<string, string>> {
  return err instanceof ApiError ? err.fields : {};
}

// The refusals of src/access's PAID_FEATURES ("On-call schedules need the Premium or Ultimate tier").
const PAID_TIER = /needs? the Premium or Ultimate tier/;

/** A user-facing message for anything a request can throw; a tier's refusal says how to lift it. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError && err.status === 403 && PAID_TIER.test(err.message)) {
    const reason = err.message.replace(/^403 Forbidden - /, '').replace(/\.?$/, '.');
    return `${reason} An administrator includes it by setting SVC_TIER=premium (or ultimate) and restarting svc.`;
  }
  if (err instanceof ApiError) return err.message;
  if (err instanceof TypeError) return 'Could not reach the server. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The last answer to each GET that carried an ETag: the next GET of the same path asks `If-None-Match` and, on
 * 304, gets the very same object back, so a list polled while unchanged costs no transfer and no re-render.
 * Bounded; the oldest path goes first.
 */
const validated = new Map<string, { etag: string; data: unknown; headers: Headers }>();
const VALIDATED_MAX = 200;

function remember(path: string, entry: { etag: string; data: unknown; headers: Headers }): void {
  validated.delete(path);
  validated.set(path, entry);
  if (validated.size > VALIDATED_MAX) validated.delete(validated.keys().next().value!);
}

/** A request body: a value sent as JSON, or text sent as is (`text/plain`). */
type Body = { readonly json: unknown } | { readonly text: string };

async function send<T>(
  method: string,
  path: string,
  body?: Body,
  withCsrf = method !== 'GET',
): Promise<{ data: T; headers: Headers }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'json' in body ? 'application/json' : 'text/plain';
  if (withCsrf && csrfToken !== null) headers['X-CSRF-Token'] = csrfToken;
  const cached = method === 'GET' ? validated.get(path) : undefined;
  if (cached) headers['If-None-Match'] = cached.etag;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? null : 'json' in body ? JSON.stringify(body.json) : body.text,
  });
  if (response.status === 304 && cached) return { data: cached.data as T, headers: cached.headers };
  const data = await readBody(response);
  const etag = response.headers.get('ETag');
  if (method === 'GET' && response.ok && etag !== null)
    remember(path, { etag, data, headers: response.headers });
  if (!response.ok) {
    if (response.status === 401 && path.startsWith('/api/')) onUnauthorized?.();
    throw new ApiError(response.status, errorMessage(data, response.status), fieldMessages(data));
  }
  return { data: data as T, headers: response.headers };
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await send<T>(method, path, body === undefined ? undefined : { json: body })).data;
}

/** GET a JSON resource with the session cookie. */
export function getJson<T>(path: string): Promise<T> {
  return request<T>('GET', path);
}

/**
 * GET a JSON resource with the session cookie and the CSRF token: for reads that act with stored secrets
 * (the error tracking Connect action), which the server refuses to a cookie alone.
 */
export async function getJsonWithCsrf<T>(path: string): Promise<T> {
  return (await send<T>('GET', path, undefined, true)).data;
}

/** One page of a GitLab-paginated list, with the page numbers from the `X-*` headers (null when absent). */
export interface Page<T> {
  readonly items: T[];
  readonly page: number;
  readonly nextPage: number | null;
  readonly prevPage: number | null;
  readonly total: number | null;
}

function pageHeader(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const n = Number(value);
  return Number.isInteger(n) ? n : null;
}

/** GET one page of a list, reading `X-Page`, `X-Next-Page`, `X-Prev-Page` and `X-Total`. */
export async function getPage<T>(path: string): Promise<Page<T>> {
  const { data, headers } = await send<T[]>('GET', path);
  // A 304 hands back the same array: hand back the same page too, so nothing downstream re-renders.
  const known = Array.isArray(data) ? pagesOf.get(data) : undefined;
  if (known) return known as Page<T>;
  const page = {
    items: Array.isArray(data) ? data : [],
    page: pageHeader(headers, 'X-Page') ?? 1,
    nextPage: pageHeader(headers, 'X-Next-Page'),
    prevPage: pageHeader(headers, 'X-Prev-Page'),
    total: pageHeader(headers, 'X-Total'),
  };
  if (Array.isArray(data)) pagesOf.set(data, page);
  return page;
}

const pagesOf = new WeakMap<object, Page<unknown>>();

/** POST, PUT or DELETE with an optional JSON body; resolves to the parsed response (null for 204). */
export function sendJson<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return request<T>(method, path, body);
}

/** POST text as is (`text/plain`), so the server, not the browser, judges whether it is valid JSON. */
export async function postText<T>(path: string, text: string): Promise<T> {
  return (await send<T>('POST', path, { text })).data;
}

/** Reads the current session; null when not signed in. */
export async function fetchSession(): Promise<Session | null> {
  try {
    const session = await request<Session>('GET', '/-/session');
    csrfToken = session.csrf_token;
    return session;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      csrfToken = null;
      return null;
    }
    throw err;
  }
}

/** Signs in with a username or email and a password; the server sets the HttpOnly session cookie. */
export async function signIn(login: string, password: string): Promise<Session> {
  const session = await request<Session>('POST', '/-/session', { login, password });
  csrfToken = session.csrf_token;
  return session;
}

/** Ends the session on the server (a 401 means it had already ended) and forgets the token. */
export async function signOut(): Promise<void> {
  try {
    await request<unknown>('DELETE', '/-/session');
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
  }
  csrfToken = null;
  validated.clear();
}

/** Forgets the CSRF token (after the server said the session is gone). */
export function clearSession(): void {
  csrfToken = null;
  validated.clear();
}
