import type { IntegrationsService } from '../alerts/integrations.service.js';
import type { Clock } from '../clock.js';
import { notFound, paramError, plainError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import type { MaintenanceWindow, WindowState } from './maintenance-windows.js';
import type { MaintenanceWindowsRepository, WindowFields } from './maintenance-windows.repository.js';
import { MAX_COMMENT, silenceState } from './silences.js';

/** A 400 with `{"message": "..."}`. */
const invalid = (message: string) => plainError('invalid', message);

export interface WindowInput {
  /** Null (or absent on create): the whole project. */
  readonly integrationId?: number | null;
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly comment?: string;
}

/** A window with its state now and its creator (null once deleted). */
export type WindowView = MaintenanceWindow & { readonly state: WindowState; readonly createdBy: User | null };

/**
 * Maintenance windows, with the silences' roles: Reporters read, Developers create, change and end. Ending early
 * follows PagerDuty's DELETE: a window that has not started is deleted, an active one ends now and stays listed.
 * The senders ask `SilencesService.silencing`, which reads the windows too.
 */
export class MaintenanceWindowsService {
  constructor(
    private readonly repo: MaintenanceWindowsRepository,
    private readonly access: Access,
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly integrations: Pick<IntegrationsService, 'views'>,
    private readonly clock: Clock,
    /** A window changed or ended early: what it held back is checked again (`SilencesService.announce`). */
    private readonly changed: (projectId: number) => Promise<void>,
  ) {}

  private async project(actor: User | null, idOrPath: string, level: number): Promise<Project> {
    return (await this.access.project(actor, idOrPath, level)).project;
  }

  private async view(w: MaintenanceWindow): Promise<WindowView> {
    const createdBy = w.createdById === null ? null : await this.users.findById(w.createdById);
    return { ...w, state: silenceState(w, this.clock.now()), createdBy };
  }

  async list(
    actor: User | null,
    idOrPath: string,
    state: WindowState | undefined,
    page: PageRequest,
  ): Promise<Paged<WindowView>> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    const result = await this.repo.list(project.id, state, this.clock.now().toISOString(), page);
    return { items: await Promise.all(result.items.map((w) => this.view(w))), total: result.total };
  }

  async get(actor: User | null, idOrPath: string, id: number): Promise<WindowView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    return this.view(await this.existing(project, id));
  }

  private async existing(project: Project, id: number): Promise<MaintenanceWindow> {
    const w = await this.repo.find(project.id, id);
    if (!w) throw notFound('Maintenance window');
    return w;
  }

  async create(actor: User | null, idOrPath: string, input: WindowInput): Promise<WindowView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const fields = await this.fields(project, input, null);
    const id = await this.repo.insert(project.id, fields, actor!.id, this.clock.now().toISOString());
    return this.view((await this.repo.find(project.id, id))!);
  }

  /** `PUT`: changes what is given (an earlier `ends_at` shortens it); an ended window cannot change. */
  async update(actor: User | null, idOrPath: string, id: number, input: WindowInput): Promise<WindowView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const current = await this.existing(project, id);
    if (silenceState(current, this.clock.now()) === 'expired') throw invalid('Maintenance window has ended');
    const fields = await this.fields(project, input, current);
    await this.repo.update(current.id, fields, this.clock.now().toISOString());
    await this.changed(project.id);
    return this.view((await this.repo.find(project.id, id))!);
  }

  /**
   * `DELETE`: a window that has not started is deleted (null); an active one ends now and is returned, listed as
   * expired from then on; an ended one is returned as it is (a repeated DELETE changes nothing).
   */
  async end(actor: User | null, idOrPath: string, id: number): Promise<WindowView | null> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const current = await this.existing(project, id);
    const now = this.clock.now();
    const state = silenceState(current, now);
    if (state === 'pending') {
      await this.repo.delete(current.id);
      return null;
    }
    if (state === 'active') {
      await this.repo.update(current.id, { ...current, endsAt: now.toISOString() }, now.toISOString());
      await this.changed(project.id);
    }
    return this.view((await this.repo.find(project.id, id))!);
  }

  private async fields(
    project: Project,
    input: WindowInput,
    current: MaintenanceWindow | null,
  ): Promise<WindowFields> {
    const integrationId =
      input.integrationId !== undefined ? input.integrationId : (current?.integrationId ?? null);
    if (integrationId !== null) {
      const known = (await this.integrations.views(project)).some((i) => i.id === integrationId);
      if (!known) throw invalid('integration_id is not an alert integration of this project');
    }
    const comment = (input.comment ?? current?.comment ?? '').trim();
    if (comment === '') throw paramError('comment is missing');
    if (comment.length > MAX_COMMENT) throw invalid(`comment is longer than ${MAX_COMMENT} characters`);
    const time = (v: string | undefined, name: string): Date | undefined => {
      if (v === undefined) return undefined;
      const d = new Date(v);
      if (v.trim() === '' || Number.isNaN(d.getTime())) throw paramError(`${name} is invalid`);
      return d;
    };
    const now = this.clock.now();
    const starts = time(input.startsAt, 'starts_at') ?? (current ? new Date(current.startsAt) : now);
    const ends = time(input.endsAt, 'ends_at') ?? (current ? new Date(current.endsAt) : undefined);
    if (!ends) throw paramError('ends_at is missing');
    if (ends.getTime() <= starts.getTime()) throw invalid('ends_at must be after starts_at');
    if (ends.getTime() <= now.getTime()) throw invalid('ends_at must be in the future');
    return { integrationId, startsAt: starts.toISOString(), endsAt: ends.toISOString(), comment };
  }
}
