import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PayloadShapeError, PayloadTextError, TooManyAlertsError } from '../alerts/alerts.js';
import { AppError } from '../errors.js';
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
      return reply.status(error.status).headers(error.headers).send(error.body);
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
