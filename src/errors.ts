/**
 * Application errors. Services throw these; the API error handler sends `body` as is. The helpers produce
 * GitLab's shapes (../shared/reference/gitlab-api-versioning.md §7): `{"message": "404 Project Not Found"}`,
 * parameter errors `{"error": "title is missing"}`, model validation `{"message": {"field": ["reason"]}}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly body: Readonly<Record<string, unknown>>,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : JSON.stringify(body));
    this.name = 'AppError';
  }
}

const withReason = (prefix: string, reason?: string) => (reason ? `${prefix} - ${reason}` : prefix);

/** 400 `{"message": "400 Bad request - <reason>"}`. */
export const badRequest = (reason: string): AppError =>
  new AppError(400, { message: withReason('400 Bad request', reason) });
/** `{"error": "<text>"}`: GitLab's parameter-validation shape (`title is missing`), 400 by default. */
export const paramError = (text: string, status = 400): AppError => new AppError(status, { error: text });
/** 401 `{"message": "401 Unauthorized"}`. */
export const unauthorized = (reason?: string): AppError =>
  new AppError(401, { message: withReason('401 Unauthorized', reason) });
/** 401 with GitLab's OAuth-style body for expired and revoked tokens. */
export const invalidToken = (description: string): AppError =>
  new AppError(401, { error: 'invalid_token', error_description: description });
/** 403 `{"message": "403 Forbidden"}`. */
export const forbidden = (reason?: string): AppError =>
  new AppError(403, { message: withReason('403 Forbidden', reason) });
/** 403 with GitLab's body for a token that lacks a scope. */
export const insufficientScope = (scope: string): AppError =>
  new AppError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope,
  });
/** 404 `{"message": "404 <Resource> Not Found"}`. */
export const notFound = (resource?: string): AppError =>
  new AppError(404, { message: resource ? `404 ${resource} Not Found` : '404 Not Found' });
/** 409 `{"message": "<reason>"}`, as GitLab answers for a taken username or path. */
export const conflict = (message: string): AppError => new AppError(409, { message });
/** 410 `{"message": "410 Gone - <reason>"}`: a feature the release removed. */
export const gone = (reason: string): AppError =>
  new AppError(410, { message: withReason('410 Gone', reason) });
/** 422 `{"message": "<reason>"}`. */
export const unprocessable = (message: string): AppError => new AppError(422, { message });
/** 429 `{"message": "<message>"}` with `Retry-After: <seconds>`. */
export const tooManyRequests = (retryAfterSeconds: number, message: string): AppError =>
  new AppError(429, { message }, { 'Retry-After': String(retryAfterSeconds) });
/** `{"message": {"field": ["reason"]}}`: GitLab's model-validation shape, 400 by default. */
export const invalidFields = (fields: Record<string, string[]>, status = 400): AppError =>
  new AppError(status, { message: fields });

/** Spec/GitLab: the message for pushes and content writes while a repository is being moved. */
export const READ_ONLY_MESSAGE = 'The repository is temporarily read-only. Please try again later.';
/** 403 with the read-only message, for API writes to repository content during a storage move. */
export const readOnlyError = (): AppError => new AppError(403, { message: READ_ONLY_MESSAGE });
