import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Turns one Ajv error into GitLab's (Grape's) parameter message: `name is missing`, `id is invalid`. */
function describe(err: NonNullable<FastifyError['validation']>[number], part: string | undefined): string {
  const path = (err.instancePath ?? '').split('/').filter(Boolean);
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required') return `${[...path, params.missingProperty].join('.')} is missing`;
  const name = path.length > 0 ? path.join('.') : (part ?? 'body');
  if (err.keyword === 'enum' || err.keyword === 'const' || err.keyword === 'anyOf') {
    return `${name} does not have a valid value`;
  }
  if (err.keyword === 'type' && part === 'body' && path.length === 0) return 'body is invalid';
  return `${name} is invalid`;
}

/** Installs GitLab-shaped error handling: AppError bodies as thrown, validation as `{"error": ...}`, 500s opaque. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.status).headers(error.headers).send(error.body);
    }
    if (error.validation) {
      return reply.status(400).send({ error: describe(error.validation[0]!, error.validationContext) });
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
