import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PayloadShapeError, PayloadTextError, TooManyAlertsError } from '../alerts/alerts.js';
import { AppError, type ErrorKind } from '../errors.js';
import { type MergeRefusal, MergeRefusedError } from '../merge-requests/merge-requests.js';
import { REMOVED_FIELDS } from './validation.js';

/** Turns one Ajv error into GitLab's (Grape's) parameter message: `name is missing`, `id is invalid`. */
function describe(err: NonNullable<FastifyError['validation']>[number], part: string | undefined): string {
  const path = (err.instancePath ?? '').split('/').filter(Boolean);
  const params = err.params as Record<string, unknown>;
  // A field the API version removed: the keyword's own message names the replacement (validation.ts).
  if (err.keyword === REMOVED_FIELDS && err.message) return err.message;
  if (err.keyword === 'required') return `${[...path, params.missingProperty].join('.')} is missing`;
  const name = path.length > 0 ? path.join('.') : (part ?? 'body');
  if (err.keyword === 'enum' || err.keyword === 'const' || err.keyword === 'anyOf') {
    return `${name} does not have a valid value`;
  }
  if (err.keyword === 'type' && part === 'body' && path.length === 0) return 'body is invalid';
  return `${name} is invalid`;
}

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22) that only a client's value can cause: a number out of the
 * column's range (an id like 99999999999999 in a path) or text PostgreSQL cannot store (`\u0000`). SQLite
 * stores 64-bit integers and NULs, so it raises none of these.
 */
function clientDataError(error: unknown): string | null {
  const code = (error as { code?: unknown }).code;
  if (code === '22003') return 'a number is out of range';
  if (code === '22021' || code === '22P05' || code === '22P02') return 'a value is invalid';
  return null;
}

/**
 * The one table from a domain error's kind to its HTTP status and the title of GitLab's status line
 * (`403 Forbidden`). Services name kinds; only this table knows statuses.
 */
export const ERROR_KINDS: Readonly<Record<ErrorKind, { readonly status: number; readonly title: string }>> = {
  bad_request: { status: 400, title: 'Bad request' },
  invalid: { status: 400, title: 'Bad request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  read_only: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  gone: { status: 410, title: 'Gone' },
  too_large: { status: 413, title: 'Request Entity Too Large' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  unprocessable: { status: 422, title: 'Unprocessable Entity' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  internal: { status: 500, title: 'Internal Server Error' },
};

/** The HTTP status of a domain error kind. */
export const statusOf = (kind: ErrorKind): number => ERROR_KINDS[kind].status;

/** The status, GitLab-shaped body and headers of an `AppError`. */
export function appErrorResponse(error: AppError): {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
} {
  const { status, title } = ERROR_KINDS[error.kind];
  const d = error.detail;
  const headers: Record<string, string> =
    error.retryAfterSeconds !== undefined ? { 'Retry-After': String(error.retryAfterSeconds) } : {};
  let body: Record<string, unknown>;
  switch (d.shape) {
    case 'titled':
      body = { message: d.reason ? `${status} ${title} - ${d.reason}` : `${status} ${title}` };
      break;
    case 'resource':
      body = { message: d.resource ? `${status} ${d.resource} Not Found` : `${status} Not Found` };
      break;
    case 'message':
      body = { message: d.message };
      break;
    case 'param':
      body = { error: d.text };
      break;
    case 'fields':
      body = { message: d.fields };
      break;
    case 'oauth':
      body = {
        error: d.error,
        error_description: d.description,
        ...(d.scope !== undefined ? { scope: d.scope } : {}),
      };
      break;
  }
  return { status, body, headers };
}

/** The one-line text of an `AppError`'s answer: its body's message (git clients and the CLI show it). */
export function appErrorText(error: AppError): string {
  const { body } = appErrorResponse(error);
  return typeof body.message === 'string' ? body.message : JSON.stringify(body);
}

/** GitLab's answers to the merge rules' refusals. */
const MERGE_REFUSALS: Record<MergeRefusal, { status: number; message: string }> = {
  not_open: { status: 405, message: '405 Method Not Allowed' },
  draft: { status: 406, message: '406 Branch cannot be merged: the merge request is a draft' },
  branch_missing: { status: 406, message: '406 Branch cannot be merged: a branch is missing' },
  conflicts: { status: 406, message: '406 Branch cannot be merged: the branches have conflicts' },
  sha_mismatch: { status: 409, message: 'SHA does not match HEAD of source branch' },
  target_changed: { status: 409, message: 'The target branch changed during the merge; try again' },
  // GitLab: a request that is not mergeable yet (approvals missing) is 405 Method Not Allowed.
  not_approved: { status: 405, message: '405 Method Not Allowed' },
};

/** The status and GitLab-shaped body for a domain error the services throw, or null for any other error. */
export function domainErrorResponse(error: unknown): { status: number; body: { message: string } } | null {
  if (error instanceof MergeRefusedError) {
    const { status, message } = MERGE_REFUSALS[error.reason];
    return { status, body: { message } };
  }
  // Alert payloads (spec: alert intake): unreadable text 400, too many alerts 413, the wrong shape 422.
  if (error instanceof PayloadTextError)
    return { status: 400, body: { message: `400 Bad request - ${error.message}` } };
  if (error instanceof TooManyAlertsError)
    return { status: 413, body: { message: `413 Request Entity Too Large - ${error.message}` } };
  if (error instanceof PayloadShapeError)
    return { status: 422, body: { message: `422 Unprocessable Entity - ${error.message}` } };
  return null;
}

/** Answers the router's own refusals (a malformed percent-encoding in the path) with GitLab's body shape. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send({ error: '400 Bad request - the URL is not valid' });
    return;
  }
  reply.status(error.statusCode ?? 400).send({ message: `${error.statusCode ?? 400} Bad request` });
}

/** Installs GitLab-shaped error handling: AppError bodies as thrown, validation as `{"error": ...}`, 500s opaque. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      const { status, body, headers } = appErrorResponse(error);
      return reply.status(status).headers(headers).send(body);
    }
    const domain = domainErrorResponse(error);
    if (domain) return reply.status(domain.status).send(domain.body);
    if (error.validation) {
      return reply.status(400).send({ error: describe(error.validation[0]!, error.validationContext) });
    }
    const dataError = clientDataError(error);
    if (dataError) {
      // The database refused a value the client sent (a number beyond its integer range, a NUL in text):
      // the request was bad, the transaction rolled back, nothing changed.
      request.log.warn({ err: error }, 'the database refused a value from the request');
      return reply.status(400).send({ message: `400 Bad request - ${dataError}` });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors: bad JSON, unsupported media type, body too large.
      if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return reply.status(415).send({ message: '415 Unsupported Media Type' });
      }
      if (status === 413) return reply.status(413).send({ message: '413 Request Entity Too Large' });
      return reply.status(status).send({ message: `${status} Bad request - ${error.message}` });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ message: '500 Internal Server Error' });
  });
}
