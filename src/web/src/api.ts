import type { Session } from './types';

/** An HTTP failure from the server, carrying the status and a readable message from its GitLab-shaped body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
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

/** A user-facing message for anything a request can throw. */
export function describeError(err: unknown): string {
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

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['X-CSRF-Token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? null : JSON.stringify(body),
  });
  const data = await readBody(response);
  if (!response.ok) {
    if (response.status === 401 && path.startsWith('/api/')) onUnauthorized?.();
    throw new ApiError(response.status, errorMessage(data, response.status));
  }
  return data as T;
}

/** GET a JSON resource with the session cookie. */
export function getJson<T>(path: string): Promise<T> {
  return request<T>('GET', path);
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
}

/** Forgets the CSRF token (after the server said the session is gone). */
export function clearSession(): void {
  csrfToken = null;
}
