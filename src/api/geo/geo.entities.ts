import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

/** GitLab's GeoSite entity (`/geo_sites`, and `/geo_nodes` in v4). */
export const GeoSiteEntity = Type.Object({
  id: Int,
  name: Str,
  url: Str,
  internal_url: Str,
  primary: Bool,
  enabled: Bool,
  current: Bool,
  files_max_capacity: Int,
  repos_max_capacity: Int,
  selective_sync_type: Nullable(Str),
  sync_object_storage: Bool,
  web_edit_url: Str,
  _links: Type.Object({ self: Str, status: Str, repair: Str }),
});

/** A Geo site's status; GitLab keeps the key `geo_node_id` under both names. */
export const GeoSiteStatusEntity = Type.Object({
  geo_node_id: Int,
  healthy: Bool,
  health: Str,
  health_status: Str,
  repositories_pending_resync_count: Int,
  pending_resyncs: Type.Array(Type.Object({ type: Str, id: Int, reason: Str, created_at: Str })),
});
