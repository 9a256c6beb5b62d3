import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { addressAllowed, parseCidrList } from '../ip-allowlist.js';

/**
 * Prometheus metrics of one app instance: request counts and latencies by route, plus process metrics.
 * `/-/metrics` answers only clients inside `allowlist` (GitLab's `monitoring_whitelist`, loopback by default) and
 * 404 to everyone else, as GitLab does. The socket's address is used (svc does not trust forwarding headers).
 */
export function installMetrics(app: FastifyInstance, allowlistText: readonly string[]): Registry {
  const allowlist = parseCidrList(allowlistText.join(','));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by method, route and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: keeps label cardinality bounded and secrets out of labels.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  app.get('/-/metrics', async (request, reply) => {
    if (!addressAllowed(request.socket.remoteAddress, allowlist)) {
      return reply.status(404).send({ error: '404 Not Found' });
    }
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
  return registry;
}
