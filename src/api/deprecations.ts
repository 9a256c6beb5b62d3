import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { notFound } from '../errors.js';
import {
  announcedAt,
  type DeprecationId,
  filterCatalog,
  findDeprecation,
  isDeprecationId,
  sunsetAt,
} from '../versioning/catalog.js';
import type { Deprecation } from '../versioning/deprecation.js';
import { formatRelease } from '../versioning/release.js';
import { requireUser } from './auth.js';
import { DeprecationCatalogEntity, DeprecationEntity } from './deprecations.entities.js';
import type { ApiApp } from './version.js';

declare module 'fastify' {
  interface FastifyReply {
    /** Marks this response as having used something deprecated (catalog id): headers and a metric. */
    deprecated(id: DeprecationId): FastifyReply;
  }
}

/**
 * Deprecation signals on API responses: `Deprecation: @<unix seconds of the announcement>` (RFC 9745),
 * `Link: <...>; rel="deprecation"`, and `Sunset: <HTTP date>` (RFC 8594) when the removal has a date. Each use
 * is counted in `/-/metrics` by deprecation id, so an admin sees who still uses what.
 */
export function installDeprecationSignals(
  app: FastifyInstance,
  registry: Registry,
  externalUrl: string,
): void {
  const uses = new Counter({
    name: 'svc_deprecated_usage_total',
    help: 'Responses that used something deprecated, by catalog id',
    labelNames: ['deprecation'] as const,
    registers: [registry],
  });
  app.decorateReply('deprecated', function (this: FastifyReply, id: DeprecationId) {
    const d = findDeprecation(id);
    const announced = announcedAt(d);
    if (announced !== null) this.header('Deprecation', `@${announced}`);
    const link = `<${externalUrl}/api/v4/deprecations/${d.id}>; rel="deprecation"; type="application/json"`;
    const existing = this.getHeader('link');
    this.header('Link', existing ? `${existing}, ${link}` : link);
    const sunset = sunsetAt(d);
    if (sunset !== null) this.header('Sunset', sunset.toUTCString());
    uses.inc({ deprecation: d.id });
    return this;
  });
}

/** `GET /deprecations` (any signed-in user) and `GET /deprecations/:id`: the catalog, with what applies here. */
export function deprecationRoutes(app: ApiApp, ctx: Pick<AppContext, 'gates' | 'release'>): void {
  const present = (d: Deprecation) => ({
    ...d,
    applies: d.removal !== null && d.removal !== 'v5' && ctx.gates.isRemoved(d.id),
  });
  app.get(
    '/deprecations',
    {
      schema: {
        tags: ['deprecations'],
        summary: 'The deprecation catalog, with the instance release and what already applies',
        querystring: Type.Object({
          release: Type.Optional(Type.String({ pattern: '^\\d{1,2}\\.\\d{1,2}$' })),
          breaking: Type.Optional(Type.Boolean()),
          area: Type.Optional(Type.String()),
        }),
        response: { 200: DeprecationCatalogEntity },
      },
    },
    async (req) => {
      requireUser(req);
      return {
        instance_release: formatRelease(ctx.release),
        deprecations: filterCatalog({
          release: req.query.release,
          breaking: req.query.breaking,
          area: req.query.area,
        }).map(present),
      };
    },
  );
  app.get(
    '/deprecations/:id',
    {
      schema: {
        tags: ['deprecations'],
        summary: 'One catalog entry',
        params: Type.Object({ id: Type.String() }),
        response: { 200: DeprecationEntity },
      },
    },
    async (req) => {
      requireUser(req);
      const { id } = req.params;
      if (!isDeprecationId(id)) throw notFound('Deprecation');
      return present(findDeprecation(id));
    },
  );
}
