import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import { conflict, invalidFields, notFound } from '../errors.js';
import type { User } from '../users/users.js';
import type { GeoSite, GeoSiteInput, GeoSiteStatus } from './geo.js';
import type { GeoRepository } from './geo.repository.js';

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
    private readonly repo: GeoRepository,
    private readonly access: InstancePolicy<User>,
    private readonly clock: Clock,
  ) {}

  private admin(actor: User | null): void {
    this.access.admin(actor);
  }

  async list(actor: User | null): Promise<GeoSite[]> {
    this.admin(actor);
    return this.repo.list();
  }

  async get(actor: User | null, id: number): Promise<GeoSite> {
    this.admin(actor);
    const site = await this.repo.find(id);
    if (!site) throw notFound('GeoNode');
    return site;
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
    if (await this.repo.nameTaken(input.name!.trim())) throw conflict('A site with that name already exists');
    return this.repo.insert(
      {
        name: input.name!.trim(),
        url: input.url!,
        internalUrl: input.internal_url ?? null,
        primary: input.primary ?? false,
        enabled: input.enabled ?? true,
        filesMaxCapacity: input.files_max_capacity ?? 10,
        reposMaxCapacity: input.repos_max_capacity ?? 25,
      },
      this.clock.now().toISOString(),
    );
  }

  async update(actor: User | null, id: number, input: GeoSiteInput): Promise<GeoSite> {
    await this.get(actor, id);
    this.validate(input, false);
    await this.repo.update(
      id,
      {
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(input.url !== undefined && { url: input.url }),
        ...(input.internal_url !== undefined && { internalUrl: input.internal_url }),
        ...(input.primary !== undefined && { primary: input.primary }),
        ...(input.enabled !== undefined && { enabled: input.enabled }),
        ...(input.files_max_capacity !== undefined && { filesMaxCapacity: input.files_max_capacity }),
        ...(input.repos_max_capacity !== undefined && { reposMaxCapacity: input.repos_max_capacity }),
      },
      this.clock.now().toISOString(),
    );
    return this.get(actor, id);
  }

  async delete(actor: User | null, id: number): Promise<void> {
    await this.get(actor, id);
    await this.repo.delete(id);
  }

  async status(actor: User | null, id: number): Promise<GeoSiteStatus> {
    const site = await this.get(actor, id);
    return this.statusOf(site);
  }

  async statuses(actor: User | null): Promise<GeoSiteStatus[]> {
    return Promise.all((await this.list(actor)).map((s) => this.statusOf(s)));
  }

  private async statusOf(site: GeoSite): Promise<GeoSiteStatus> {
    const pending = await this.repo.pendingResyncs(site.id);
    return {
      siteId: site.id,
      healthy: site.enabled,
      repositoriesPendingResync: pending.total,
      pendingResyncs: pending.items,
    };
  }

  /** Spec rule 9: after a storage move, every secondary site must resync the moved repository. */
  async markResync(containerType: string, containerId: number, reason: string): Promise<void> {
    await this.repo.markResync(containerType, containerId, reason, this.clock.now().toISOString());
  }
}
