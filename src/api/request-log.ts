import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * Which requests write a log line. Fastify writes two info lines per request by default ("incoming request",
 * "request completed"), which on a console bury what matters (the first start's root password, failures). Here,
 * at the default level, a request writes nothing unless it failed (5xx) or was slow; client errors (4xx) are the
 * client's to read in the answer, as GitLab keeps them out of its console too (its per-request lines go to
 * production_json.log). The access log (`SVC_ACCESS_LOG`) writes one info line per request, with the request
 * (URL credentials redacted), the status and the time; `SVC_LOG_LEVEL=debug` shows the same lines at debug.
 */
export class RequestLog extends LogController {
  private readonly accessLog: boolean;
  private readonly slowMs: number;

  constructor(opts: { accessLog: boolean; slowRequestMs: number }) {
    super();
    this.accessLog = opts.accessLog;
    this.slowMs = opts.slowRequestMs;
  }

  /** The completion line carries the request, so the arrival writes one only when tracing. */
  override incomingRequest(request: FastifyRequest): void {
    request.log.trace({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) {
      // The connection failed under the answer (reset, write error): the answer may not have reached the client.
      reply.log.warn({ ...line, err: error }, 'request errored');
    } else if (reply.statusCode >= 500) {
      reply.log.warn(line, 'request failed');
    } else if (this.slowMs > 0 && reply.elapsedTime > this.slowMs && !isGitTransfer(reply)) {
      reply.log.warn({ ...line, slowRequestMs: this.slowMs }, 'slow request');
    } else if (this.accessLog) {
      reply.log.info(line, 'request completed');
    } else {
      reply.log.debug(line, 'request completed');
    }
  }

  /** A 404 is answered to its client; the access log has it. */
  override routeNotFound(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'route not found');
  }

  /** A client that went away before the end of its answer is no failure of the server. */
  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      reply.log.debug({ res: reply }, 'stream closed prematurely');
    } else {
      super.streamError(error, request, reply);
    }
  }
}

/** Git smart HTTP answers stream as long as the clone or push takes: their time says little about svc. */
function isGitTransfer(reply: FastifyReply): boolean {
  return String(reply.raw.getHeader('content-type') ?? '').startsWith('application/x-git-');
}
