import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { GeoSite } from '../../geo/geo.js';
import type { ApiApp, ApiVersion } from '../version.js';

const Input = Type.Object({
  name: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  internal_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  primary: Type.Optional(Type.Boolean()),
  enabled: Type.Optional(Type.Boolean()),
  files_max_capacity: Type.Optional(Type.Integer()),
  repos_max_capacity: Type.Optional(Type.Integer()),
});
const Id = Type.Object({ id: Type.Integer() });

/**
 * Geo sites (`/geo_sites`, v4 and v5) and their deprecated v4 name (`/geo_nodes`: same functionality, gone in
 * v5 per the spec's v4-to-v5 table). Admin only. GitLab's status objects keep the key `geo_node_id` in both.
 */
export function geoRoutes(app: ApiApp, ctx: Pick<AppContext, 'config' | 'geo'>, api: ApiVersion): void {
  const E = api.entities;
  const url = ctx.config.externalUrl;
  const families = api.removes('geo_nodes_api') ? ['geo_sites'] : ['geo_sites', 'geo_nodes'];
  for (const family of families) {
    const deprecated = family === 'geo_nodes';
    const tags = ['geo'];
    const signal = (reply: FastifyReply) => {
      if (deprecated) reply.deprecated('geo_nodes_api');
    };
    const site = (s: GeoSite) => api.present.geoSite(s, url, `${url}/api/v${api.version}/${family}/${s.id}`);
    const summary = (what: string) => `${what}${deprecated ? ' (deprecated: use /geo_sites)' : ''}`;

    app.post(
      `/${family}`,
      {
        schema: {
          tags,
          summary: summary('Create a Geo site (admin)'),
          body: Input,
          response: { 201: E.GeoSiteEntity },
        },
      },
      async (req, reply) => {
        signal(reply);
        return reply.status(201).send(site(await ctx.geo.create(req.actor.user, req.body)));
      },
    );
    app.get(
      `/${family}`,
      {
        schema: { tags, summary: summary('List Geo sites'), response: { 200: Type.Array(E.GeoSiteEntity) } },
      },
      async (req, reply) => {
        signal(reply);
        return (await ctx.geo.list(req.actor.user)).map(site);
      },
    );
    app.get(
      `/${family}/status`,
      {
        schema: {
          tags,
          summary: summary('Status of every Geo site'),
          response: { 200: Type.Array(E.GeoSiteStatusEntity) },
        },
      },
      async (req, reply) => {
        signal(reply);
        return (await ctx.geo.statuses(req.actor.user)).map(api.present.geoSiteStatus);
      },
    );
    app.get(
      `/${family}/:id`,
      {
        schema: { tags, summary: summary('Get a Geo site'), params: Id, response: { 200: E.GeoSiteEntity } },
      },
      async (req, reply) => {
        signal(reply);
        return site(await ctx.geo.get(req.actor.user, req.params.id));
      },
    );
    app.put(
      `/${family}/:id`,
      {
        schema: {
          tags,
          summary: summary('Change a Geo site'),
          params: Id,
          body: Input,
          response: { 200: E.GeoSiteEntity },
        },
      },
      async (req, reply) => {
        signal(reply);
        return site(await ctx.geo.update(req.actor.user, req.params.id, req.body ?? {}));
      },
    );
    app.delete(
      `/${family}/:id`,
      { schema: { tags, summary: summary('Delete a Geo site'), params: Id } },
      async (req, reply) => {
        signal(reply);
        await ctx.geo.delete(req.actor.user, req.params.id);
        return reply.status(204).send();
      },
    );
    app.get(
      `/${family}/:id/status`,
      {
        schema: {
          tags,
          summary: summary('Status of a Geo site'),
          params: Id,
          response: { 200: E.GeoSiteStatusEntity },
        },
      },
      async (req, reply) => {
        signal(reply);
        return api.present.geoSiteStatus(await ctx.geo.status(req.actor.user, req.params.id));
      },
    );
  }
}
