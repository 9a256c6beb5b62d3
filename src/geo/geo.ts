/** Geo sites and the repositories they must resync. */

export interface GeoSite {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly internalUrl: string | null;
  readonly primary: boolean;
  readonly enabled: boolean;
  readonly filesMaxCapacity: number;
  readonly reposMaxCapacity: number;
  readonly createdAt: string;
}

export interface GeoSiteStatus {
  readonly siteId: number;
  readonly healthy: boolean;
  readonly repositoriesPendingResync: number;
  readonly pendingResyncs: readonly PendingResync[];
}

export interface GeoSiteInput {
  name?: string;
  url?: string;
  internal_url?: string | null;
  primary?: boolean;
  enabled?: boolean;
  files_max_capacity?: number;
  repos_max_capacity?: number;
}

/** A repository a secondary site must resync (spec rule 9: after a storage move). */
export interface PendingResync {
  readonly containerType: string;
  readonly containerId: number;
  readonly reason: string;
  readonly createdAt: string;
}
