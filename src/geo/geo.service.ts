import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import { readBool, readCount, readTimestamp, writeBool } from '../db/dialect.js';
import type { Database, GeoSitesTable } from '../db/schema.js';
import { conflict, forbidden, invalidFields, notFound, unauthorized } from '../errors.js';
import type { User } from '../users/users.js';

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
  readonly pendingResyncs: readonly {
    containerType: string;
    containerId: number;
    reason: string;
    createdAt: string;
  }[];
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

const isUrl = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

/** Geo sites (admin) and the repositories they must resync (spec rule 9: after a storage move). */
export class GeoService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  private admin(actor: User | null): void {
    if (!actor) throw unauthorized();
    if (!actor.admin) throw forbidden();
  }

  async list(actor: User | null): Promise<GeoSite[]> {
    this.admin(actor);
    return (await this.db.selectFrom('geo_sites').selectAll().orderBy('id').execute()).map(toSite);
  }

  async get(actor: User | null, id: number): Promise<GeoSite> {
    this.admin(actor);
    const r = await this.db.selectFrom('geo_sites').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) throw notFound('GeoNode');
    return toSite(r);
  }

  private validate(input: GeoSiteInput, creating: boolean): void {
    const errors: Record<string, string[]> = {};
    if (creating && !input.name?.trim()) errors.name = ["can't be blank"];
    if (creating && !input.url) errors.url = ["can't be blank"];
    if (input.url !== undefined && !isUrl(input.url)) errors.url = ['is not a valid URL'];
    if (input.internal_url && !isUrl(input.internal_url)) errors.internal_url = ['is not a valid URL'];
    for (const k of ['files_max_capacity', 'repos_max_capacity'] as const) {
      const v = input[k];
      if (v !== undefined && (!Number.isInteger(v) || v < 0))
        errors[k] = ['must be greater than or equal to 0'];
    }
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
  }

  async create(actor: User | null, input: GeoSiteInput): Promise<GeoSite> {
    this.admin(actor);
    this.validate(input, true);
    if (
      await this.db
        .selectFrom('geo_sites')
        .select('id')
        .where('name', '=', input.name!.trim())
        .executeTakeFirst()
    ) {
      throw conflict('A site with that name already exists');
    }
    const now = this.clock.now().toISOString();
    const r = await this.db
      .insertInto('geo_sites')
      .values({
        name: input.name!.trim(),
        url: input.url!,
        internal_url: input.internal_url ?? null,
        primary: writeBool(input.primary ?? false),
        enabled: writeBool(input.enabled ?? true),
        files_max_capacity: input.files_max_capacity ?? 10,
        repos_max_capacity: input.repos_max_capacity ?? 25,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSite(r);
  }

  async update(actor: User | null, id: number, input: GeoSiteInput): Promise<GeoSite> {
    await this.get(actor, id);
    this.validate(input, false);
    await this.db
      .updateTable('geo_sites')
      .set({
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(input.url !== undefined && { url: input.url }),
        ...(input.internal_url !== undefined && { internal_url: input.internal_url }),
        ...(input.primary !== undefined && { primary: writeBool(input.primary) }),
        ...(input.enabled !== undefined && { enabled: writeBool(input.enabled) }),
        ...(input.files_max_capacity !== undefined && { files_max_capacity: input.files_max_capacity }),
        ...(input.repos_max_capacity !== undefined && { repos_max_capacity: input.repos_max_capacity }),
        updated_at: this.clock.now().toISOString(),
      })
      .where('id', '=', id)
      .execute();
    return this.get(actor, id);
  }

  async delete(actor: User | null, id: number): Promise<void> {
    await this.get(actor, id);
    await this.db.deleteFrom('geo_sites').where('id', '=', id).execute();
  }

  async status(actor: User | null, id: number): Promise<GeoSiteStatus> {
    const site = await this.get(actor, id);
    return this.statusOf(site);
  }

  async statuses(actor: User | null): Promise<GeoSiteStatus[]> {
    return Promise.all((await this.list(actor)).map((s) => this.statusOf(s)));
  }

  private async statusOf(site: GeoSite): Promise<GeoSiteStatus> {
    const rows = await this.db
      .selectFrom('geo_resyncs')
      .selectAll()
      .where('site_id', '=', site.id)
      .orderBy('created_at')
      .execute();
    const n = await this.db
      .selectFrom('geo_resyncs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('site_id', '=', site.id)
      .executeTakeFirst();
    return {
      siteId: site.id,
      healthy: site.enabled,
      repositoriesPendingResync: readCount(n?.n as string | number | undefined),
      pendingResyncs: rows.map((r) => ({
        containerType: r.container_type,
        containerId: r.container_id,
        reason: r.reason,
        createdAt: readTimestamp(r.created_at),
      })),
    };
  }

  /** Spec rule 9: after a storage move, every secondary site must resync the moved repository. */
  async markResync(containerType: string, containerId: number, reason: string): Promise<void> {
    const sites = await this.db.selectFrom('geo_sites').select(['id', 'primary']).execute();
    const now = this.clock.now().toISOString();
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
