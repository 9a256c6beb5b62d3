import type { Kysely, Selectable } from 'kysely';
import { readBool, readCount, readTimestamp, writeBool } from '../db/dialect.js';
import type { Database, GeoSitesTable } from '../db/schema.js';
import type { GeoSite, PendingResync } from './geo.js';

function toSite(r: Selectable<GeoSitesTable>): GeoSite {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    internalUrl: r.internal_url,
    primary: readBool(r.primary),
    enabled: readBool(r.enabled),
    filesMaxCapacity: r.files_max_capacity,
    reposMaxCapacity: r.repos_max_capacity,
    createdAt: readTimestamp(r.created_at),
  };
}

/** The fields of a site as stored (all of them when creating; those given when updating). */
export type GeoSiteFields = Omit<GeoSite, 'id' | 'createdAt'>;

/** Geo sites and their pending resyncs. */
export class GeoRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(): Promise<GeoSite[]> {
    return (await this.db.selectFrom('geo_sites').selectAll().orderBy('id').execute()).map(toSite);
  }

  async find(id: number): Promise<GeoSite | null> {
    const r = await this.db.selectFrom('geo_sites').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toSite(r) : null;
  }

  async nameTaken(name: string): Promise<boolean> {
    const r = await this.db.selectFrom('geo_sites').select('id').where('name', '=', name).executeTakeFirst();
    return r !== undefined;
  }

  async insert(site: GeoSiteFields, now: string): Promise<GeoSite> {
    const r = await this.db
      .insertInto('geo_sites')
      .values({
        name: site.name,
        url: site.url,
        internal_url: site.internalUrl,
        primary: writeBool(site.primary),
        enabled: writeBool(site.enabled),
        files_max_capacity: site.filesMaxCapacity,
        repos_max_capacity: site.reposMaxCapacity,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSite(r);
  }

  async update(id: number, change: Partial<GeoSiteFields>, now: string): Promise<void> {
    await this.db
      .updateTable('geo_sites')
      .set({
        ...(change.name !== undefined && { name: change.name }),
        ...(change.url !== undefined && { url: change.url }),
        ...(change.internalUrl !== undefined && { internal_url: change.internalUrl }),
        ...(change.primary !== undefined && { primary: writeBool(change.primary) }),
        ...(change.enabled !== undefined && { enabled: writeBool(change.enabled) }),
        ...(change.filesMaxCapacity !== undefined && { files_max_capacity: change.filesMaxCapacity }),
        ...(change.reposMaxCapacity !== undefined && { repos_max_capacity: change.reposMaxCapacity }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('geo_sites').where('id', '=', id).execute();
  }

  /** The site's pending resyncs, oldest first, and how many there are. */
  async pendingResyncs(siteId: number): Promise<{ items: PendingResync[]; total: number }> {
    const rows = await this.db
      .selectFrom('geo_resyncs')
      .selectAll()
      .where('site_id', '=', siteId)
      .orderBy('created_at')
      .execute();
    const n = await this.db
      .selectFrom('geo_resyncs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('site_id', '=', siteId)
      .executeTakeFirst();
    return {
      total: readCount(n?.n as string | number | undefined),
      items: rows.map((r) => ({
        containerType: r.container_type,
        containerId: r.container_id,
        reason: r.reason,
        createdAt: readTimestamp(r.created_at),
      })),
    };
  }

  /** Records (or renews) a resync of the container for every secondary site. */
  async markResync(containerType: string, containerId: number, reason: string, now: string): Promise<void> {
    const sites = await this.db.selectFrom('geo_sites').select(['id', 'primary']).execute();
    for (const s of sites) {
      if (readBool(s.primary)) continue;
      await this.db
        .insertInto('geo_resyncs')
        .values({
          site_id: s.id,
          container_type: containerType,
          container_id: containerId,
          reason,
          created_at: now,
        })
        .onConflict((oc) =>
          oc.columns(['site_id', 'container_type', 'container_id']).doUpdateSet({ reason, created_at: now }),
        )
        .execute();
    }
  }
}
