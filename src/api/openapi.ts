import type { RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    tags?: readonly string[];
    deprecated?: boolean;
  }
}

interface CollectedRoute {
  method: string;
  url: string;
  schema: Record<string, unknown>;
}

/** Collects the routes of one API version and renders an OpenAPI 3.0 document from their schemas. */
export class OpenApiCollector {
  private readonly routes: CollectedRoute[] = [];

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || !route.schema) continue;
      this.routes.push({
        method: method.toLowerCase(),
        url: route.url,
        schema: route.schema as Record<string, unknown>,
      });
    }
  }

  document(version: number, externalUrl: string, release: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    const prefix = `/api/v${version}`;
    for (const r of this.routes) {
      if (!r.url.startsWith(prefix) || r.url.endsWith('/openapi.json')) continue;
      const path = r.url.slice(prefix.length).replace(/:([A-Za-z_]+)/g, '{$1}') || '/';
      const parameters: unknown[] = [];
      for (const [where, key] of [
        ['path', 'params'],
        ['query', 'querystring'],
      ] as const) {
        const s = r.schema[key] as { properties?: Record<string, unknown>; required?: string[] } | undefined;
        for (const [name, schema] of Object.entries(s?.properties ?? {})) {
          parameters.push({
            name,
            in: where,
            required: where === 'path' || (s?.required ?? []).includes(name),
            schema,
          });
        }
      }
      const responses: Record<string, unknown> = {};
      for (const [code, schema] of Object.entries((r.schema.response as Record<string, unknown>) ?? {})) {
        responses[code] = { description: `${code} response`, content: { 'application/json': { schema } } };
      }
      if (Object.keys(responses).length === 0) responses.default = { description: 'response' };
      paths[path] ??= {};
      paths[path][r.method] = {
        summary: r.schema.summary,
        tags: r.schema.tags,
        ...(r.schema.deprecated === true && { deprecated: true }),
        parameters,
        ...(r.schema.body !== undefined && {
          requestBody: { content: { 'application/json': { schema: r.schema.body } } },
        }),
        responses,
        security: [{ privateToken: [] }, { bearer: [] }],
      };
    }
    return {
      openapi: '3.0.3',
      info: {
        title: `svc REST API v${version}`,
        version: `${version}.0`,
        description: `Instance release ${release}`,
      },
      servers: [{ url: `${externalUrl}${prefix}` }],
      components: {
        securitySchemes: {
          privateToken: { type: 'apiKey', in: 'header', name: 'PRIVATE-TOKEN' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      paths,
    };
  }
}
