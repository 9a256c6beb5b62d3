/**
 * Domain errors. Services throw an `AppError` with a kind (what went wrong, in the domain's words) and the
 * details of its answer; they never choose an HTTP status. The HTTP layer turns kinds into statuses and
 * GitLab-shaped bodies through one table (api/errors.ts): `{"message": "404 Project Not Found"}`, parameter
 * errors `{"error": "title is missing"}`, model validation `{"message": {"field": ["reason"]}}`
 * (../shared/reference/gitlab-api-versioning.md §7).
 */
export type ErrorKind =
  | 'bad_request'
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'read_only'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  /** A failure the caller cannot fix, answered with its message (a malformed answer from Sentry). */
  | 'internal';

/**
 * What the answer's body says, independent of its status:
 * - `titled`: GitLab's status line, `{"message": "403 Forbidden - <reason>"}`;
 * - `resource`: `{"message": "404 <Resource> Not Found"}`;
 * - `message`: the message as is, `{"message": "<message>"}` (or a list of messages, as Grape's `error!([...])`);
 * - `param`: `{"error": "<text>"}`; `fields`: `{"message": {"field": ["reason"]}}`;
 * - `oauth`: `{"error": "invalid_token", "error_description": ...}` (and `scope` when one is missing).
 */
export type ErrorDetail =
  | { readonly shape: 'titled'; readonly reason?: string }
  | { readonly shape: 'resource'; readonly resource?: string }
  | { readonly shape: 'message'; readonly message: string | readonly string[] }
  | { readonly shape: 'param'; readonly text: string }
  | { readonly shape: 'fields'; readonly fields: Readonly<Record<string, string[]>> }
  | {
      readonly shape: 'oauth';
      readonly error: string;
      readonly description: string;
      readonly scope?: string;
    };

const describe = (d: ErrorDetail): string => {
  switch (d.shape) {
    case 'titled':
      return d.reason ?? '';
    case 'resource':
      return d.resource ? `${d.resource} Not Found` : 'Not Found';
    case 'message':
      return typeof d.message === 'string' ? d.message : d.message.join('; ');
    case 'param':
      return d.text;
    case 'fields':
      return JSON.stringify(d.fields);
    case 'oauth':
      return d.description;
  }
};

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: ErrorDetail,
    /** Seconds a client should wait before it tries again (`rate_limited`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${kind}: ${describe(detail)}`);
    this.name = 'AppError';
  }
}

/** 400 `{"message": "400 Bad request - <reason>"}`. */
export const badRequest = (reason: string): AppError =>
  new AppError('bad_request', { shape: 'titled', reason });
/** `{"error": "<text>"}`: GitLab's parameter-validation shape (`title is missing`), 400 (`invalid`) by default. */
export const paramError = (text: string, kind: ErrorKind = 'invalid'): AppError =>
  new AppError(kind, { shape: 'param', text });
/** 401 `{"message": "401 Unauthorized"}`. */
export const unauthorized = (reason?: string): AppError =>
  new AppError('unauthorized', { shape: 'titled', reason });
/** 401 with GitLab's OAuth-style body for expired and revoked tokens. */
export const invalidToken = (description: string): AppError =>
  new AppError('unauthorized', { shape: 'oauth', error: 'invalid_token', description });
/** 403 `{"message": "403 Forbidden"}`. */
export const forbidden = (reason?: string): AppError =>
  new AppError('forbidden', { shape: 'titled', reason });
/** 403 with GitLab's body for a token that lacks a scope. */
export const insufficientScope = (scope: string): AppError =>
  new AppError('forbidden', {
    shape: 'oauth',
    error: 'insufficient_scope',
    description: 'The request requires higher privileges than provided by the access token.',
    scope,
  });
/** 404 `{"message": "404 <Resource> Not Found"}`. */
export const notFound = (resource?: string): AppError =>
  new AppError('not_found', { shape: 'resource', resource });
/** 409 `{"message": "<reason>"}`, as GitLab answers for a taken username or path. */
export const conflict = (message: string): AppError =>
  new AppError('conflict', { shape: 'message', message });
/** 410 `{"message": "410 Gone - <reason>"}`: a feature the release removed. */
export const gone = (reason: string): AppError => new AppError('gone', { shape: 'titled', reason });
/** 422 `{"message": "<reason>"}`. */
export const unprocessable = (message: string): AppError =>
  new AppError('unprocessable', { shape: 'message', message });
/** 429 `{"message": "<message>"}` with `Retry-After: <seconds>`. */
export const tooManyRequests = (retryAfterSeconds: number, message: string): AppError =>
  new AppError('rate_limited', { shape: 'message', message }, retryAfterSeconds);
/** `{"message": {"field": ["reason"]}}`: GitLab's model-validation shape, 400 (`invalid`) by default. */
export const invalidFields = (fields: Record<string, string[]>, kind: ErrorKind = 'invalid'): AppError =>
  new AppError(kind, { shape: 'fields', fields });
/** `{"message": "<message>"}` with the status of `kind`: GitLab's plain messages (`SHA does not match ...`). */
export const plainError = (kind: ErrorKind, message: string): AppError =>
  new AppError(kind, { shape: 'message', message });
/** `{"message": ["<message>", ...]}` with the status of `kind`: a model's errors on one attribute, as a list. */
export const messageList = (kind: ErrorKind, messages: readonly string[]): AppError =>
  new AppError(kind, { shape: 'message', message: messages });

/** Spec/GitLab: the message for pushes and content writes while a repository is being moved. */
export const READ_ONLY_MESSAGE = 'The repository is temporarily read-only. Please try again later.';
/** 403 with the read-only message, for API writes to repository content during a storage move. */
export const readOnlyError = (): AppError => plainError('read_only', READ_ONLY_MESSAGE);
