import type { Static } from 'typebox';
import type { GeoSite, GeoSiteStatus } from '../../geo/geo.js';
import type { GeoSiteEntity, GeoSiteStatusEntity } from './geo.entities.js';

/** A Geo site; `self` is its URL under the family it was asked through (`.../geo_sites/1` or `.../geo_nodes/1`). */
export function geoSite(s: GeoSite, externalUrl: string, self: string): Static<typeof GeoSiteEntity> {
  return {
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
    web_edit_url: `${externalUrl}/admin/geo/sites/${s.id}/edit`,
    _links: { self, status: `${self}/status`, repair: `${self}/repair` },
  };
}

export function geoSiteStatus(st: GeoSiteStatus): Static<typeof GeoSiteStatusEntity> {
  return {
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
  };
}
