import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { ApiApp, ApiVersion } from '../api/version.js';
import type { AppContext } from '../context.js';
import type { GeoSite, GeoSiteStatus } from './geo.js';

const Site = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  url: Type.String(),
  internal_url: Type.String(),
  primary: Type.Boolean(),
  enabled: Type.Boolean(),
  current: Type.Boolean(),
  files_max_capacity: Type.Integer(),
  repos_max_capacity: Type.Integer(),
  selective_sync_type: Type.Union([Type.String(), Type.Null()]),
  sync_object_storage: Type.Boolean(),
  web_edit_url: Type.String(),
  _links: Type.Object({ self: Type.String(), status: Type.String(), repair: Type.String() }),
});
const Status = Type.Object({
  geo_node_id: Type.Integer(),
  healthy: Type.Boolean(),
  health: Type.String(),
  health_status: Type.String(),
  repositories_pending_resync_count: Type.Integer(),
  pending_resyncs: Type.Array(
    Type.Object({
      type: Type.String(),
      id: Type.Integer(),
      reason: Type.String(),
      created_at: Type.String(),
    }),
  ),
});
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
  const url = ctx.config.externalUrl;
  const families = api.removes('geo_nodes_api') ? ['geo_sites'] : ['geo_sites', 'geo_nodes'];
  for (const family of families) {
    const deprecated = family === 'geo_nodes';
    const tags = ['geo'];
    const signal = (reply: FastifyReply) => {
      if (deprecated) reply.deprecated('geo_nodes_api');
    };
    const present = (s: GeoSite) => ({
      id: s.id,
      name: s.name,
      url: s.url,
      internal_url: s.internalUrl ?? s.url,
      primary: s.primary,
      enabled: s.enabled,
      current: false,
      files_max_capacity: s.filesMaxCapacity,
      repos_max_capacity: s.reposMaxCapacity,
      selective_sync_type: null,
      sync_object_storage: false,
      web_edit_url: `${url}/admin/geo/sites/${s.id}/edit`,
      _links: {
        self: `${url}/api/v${api.version}/${family}/${s.id}`,
        status: `${url}/api/v${api.version}/${family}/${s.id}/status`,
        repair: `${url}/api/v${api.version}/${family}/${s.id}/repair`,
      },
    });
    const presentStatus = (st: GeoSiteStatus) => ({
      geo_node_id: st.siteId,
      healthy: st.healthy,
      health: st.healthy ? 'Healthy' : 'Geo site is disabled',
      health_status: st.healthy ? 'Healthy' : 'Unhealthy',
      repositories_pending_resync_count: st.repositoriesPendingResync,
      pending_resyncs: st.pendingResyncs.map((r) => ({
        type: r.containerType,
        id: r.containerId,
        reason: r.reason,
        created_at: r.createdAt,
      })),
    });
    const summary = (what: string) => `${what}${deprecated ? ' (deprecated: use /geo_sites)' : ''}`;

    app.post(
      `/${family}`,
      {
        schema: { tags, summary: summary('Create a Geo site (admin)'), body: Input, response: { 201: Site } },
      },
      async (req, reply) => {
        signal(reply);
        return reply.status(201).send(present(await ctx.geo.create(req.actor.user, req.body)));
      },
    );
    app.get(
      `/${family}`,
      { schema: { tags, summary: summary('List Geo sites'), response: { 200: Type.Array(Site) } } },
      async (req, reply) => {
        signal(reply);
        return (await ctx.geo.list(req.actor.user)).map(present);
      },
    );
    app.get(
      `/${family}/status`,
      {
        schema: { tags, summary: summary('Status of every Geo site'), response: { 200: Type.Array(Status) } },
      },
      async (req, reply) => {
        signal(reply);
        return (await ctx.geo.statuses(req.actor.user)).map(presentStatus);
      },
    );
    app.get(
      `/${family}/:id`,
      { schema: { tags, summary: summary('Get a Geo site'), params: Id, response: { 200: Site } } },
      async (req, reply) => {
        signal(reply);
        return present(await ctx.geo.get(req.actor.user, req.params.id));
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
          response: { 200: Site },
        },
      },
      async (req, reply) => {
        signal(reply);
        return present(await ctx.geo.update(req.actor.user, req.params.id, req.body ?? {}));
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
      { schema: { tags, summary: summary('Status of a Geo site'), params: Id, response: { 200: Status } } },
      async (req, reply) => {
        signal(reply);
        return presentStatus(await ctx.geo.status(req.actor.user, req.params.id));
      },
    );
  }
}
