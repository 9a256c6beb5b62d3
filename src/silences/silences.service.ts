import type { Clock } from '../clock.js';
import { notFound, paramError, plainError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { covers, type Silencer } from './maintenance-windows.js';
import type { MaintenanceWindowsRepository } from './maintenance-windows.repository.js';
import {
  MAX_COMMENT,
  type Matchable,
  matchersProblem,
  normalise,
  type Silence,
  type SilenceState,
  silenceState,
  silences,
} from './silences.js';
import type { SilenceFields, SilencesRepository } from './silences.repository.js';

/** A 400 with `{"message": "..."}`. */
const invalid = (message: string) => plainError('invalid', message);

export interface SilenceInput {
  readonly matchers?: unknown;
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly comment?: string;
}

/** A silence with its state now and its creator (null once deleted). */
export type SilenceView = Silence & { readonly state: SilenceState; readonly createdBy: User | null };

/**
 * Alert silences (Alertmanager's): Reporters read, Developers (who manage alerts) create, change and expire.
 * Expiring ends a silence now and keeps it, listed as expired. The senders (escalation pages, alert e-mails and
 * hooks) ask `silencing` at send time, so a silence applies to alerts that are already firing too.
 */
export class SilencesService {
  private readonly listeners: ((projectId: number) => void | Promise<void>)[] = [];

  constructor(
    private readonly repo: SilencesRepository,
    private readonly access: Access,
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly clock: Clock,
    private readonly windows: MaintenanceWindowsRepository,
  ) {}

  /**
   * Calls `fn` after a silence or maintenance window was changed or ended early (what it held back may go out
   * now).
   */
  onChange(fn: (projectId: number) => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  /** Tells the listeners that what holds the project's alerts back changed (maintenance windows call it too). */
  async announce(projectId: number): Promise<void> {
    for (const fn of this.listeners) await fn(projectId);
  }

  private async changed(projectId: number): Promise<void> {
    await this.announce(projectId);
  }

  private async project(actor: User | null, idOrPath: string, level: number): Promise<Project> {
    return (await this.access.project(actor, idOrPath, level)).project;
  }

  private async view(s: Silence): Promise<SilenceView> {
    const createdBy = s.createdById === null ? null : await this.users.findById(s.createdById);
    return { ...s, state: silenceState(s, this.clock.now()), createdBy };
  }

  async list(
    actor: User | null,
    idOrPath: string,
    state: SilenceState | undefined,
    page: PageRequest,
  ): Promise<Paged<SilenceView>> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    const result = await this.repo.list(project.id, state, this.clock.now().toISOString(), page);
    return { items: await Promise.all(result.items.map((s) => this.view(s))), total: result.total };
  }

  async get(actor: User | null, idOrPath: string, id: number): Promise<SilenceView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    return this.view(await this.existing(project, id));
  }

  private async existing(project: Project, id: number): Promise<Silence> {
    const s = await this.repo.find(project.id, id);
    if (!s) throw notFound('Silence');
    return s;
  }

  async create(actor: User | null, idOrPath: string, input: SilenceInput): Promise<SilenceView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const fields = this.fields(input, null);
    const id = await this.repo.insert(project.id, fields, actor!.id, this.clock.now().toISOString());
    return this.view((await this.repo.find(project.id, id))!);
  }

  /** `PUT`: changes what is given; an expired silence cannot change (Alertmanager's rule too). */
  async update(actor: User | null, idOrPath: string, id: number, input: SilenceInput): Promise<SilenceView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const current = await this.existing(project, id);
    if (silenceState(current, this.clock.now()) === 'expired') throw invalid('Silence is expired');
    const fields = this.fields(input, current);
    await this.repo.update(current.id, fields, this.clock.now().toISOString());
    await this.changed(project.id);
    return this.view((await this.repo.find(project.id, id))!);
  }

  /**
   * `DELETE` or `POST .../expire`: ends the silence now (a pending one starts and ends now), as Alertmanager's
   * expire; an expired one is left as it is.
   */
  async expire(actor: User | null, idOrPath: string, id: number): Promise<SilenceView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const current = await this.existing(project, id);
    const now = this.clock.now().toISOString();
    const state = silenceState(current, this.clock.now());
    if (state !== 'expired')
      await this.repo.update(
        current.id,
        { ...current, startsAt: state === 'pending' ? now : current.startsAt, endsAt: now },
        now,
      );
    await this.changed(project.id);
    return this.view((await this.repo.find(project.id, id))!);
  }

  private fields(input: SilenceInput, current: Silence | null): SilenceFields {
    const matchersInput = input.matchers ?? current?.matchers;
    if (matchersInput === undefined) throw paramError('matchers is missing');
    const problem = matchersProblem(matchersInput);
    if (problem) throw invalid(problem);
    const comment = (input.comment ?? current?.comment ?? '').trim();
    if (comment === '') throw paramError('comment is missing');
    if (comment.length > MAX_COMMENT) throw invalid(`comment is longer than ${MAX_COMMENT} characters`);
    const time = (v: string | undefined, name: string): Date | undefined => {
      if (v === undefined) return undefined;
      const d = new Date(v);
      if (Number.isNaN(d.getTime())) throw paramError(`${name} is invalid`);
      return d;
    };
    const starts =
      time(input.startsAt, 'starts_at') ?? (current ? new Date(current.startsAt) : this.clock.now());
    const ends = time(input.endsAt, 'ends_at') ?? (current ? new Date(current.endsAt) : undefined);
    if (!ends) throw paramError('ends_at is missing');
    if (ends.getTime() <= starts.getTime()) throw invalid('ends_at must be after starts_at');
    if (ends.getTime() <= this.clock.now().getTime()) throw invalid('ends_at must be in the future');
    return {
      matchers: normalise(matchersInput as Record<string, unknown>[]),
      startsAt: starts.toISOString(),
      endsAt: ends.toISOString(),
      comment,
    };
  }

  // For the senders and the alert views (no actor: the caller has checked access).

  /**
   * What silences an alert at `at`: the silences active then that match it, then the maintenance windows active
   * then over its project or its integration.
   */
  async silencing(
    projectId: number,
    alert: Matchable & { readonly integrationId: number | null },
    at: Date = this.clock.now(),
  ): Promise<Silencer[]> {
    return (await this.silencers(projectId, [alert], at))[0]!;
  }

  /** What silences each alert now (for the alert entity's `silenced_by`), by alert id. */
  async silencedBy(
    projectId: number,
    alerts: readonly (Matchable & { readonly id: number; readonly integrationId: number | null })[],
  ): Promise<Map<number, Silencer[]>> {
    const found = await this.silencers(projectId, alerts, this.clock.now());
    return new Map(alerts.map((a, i) => [a.id, found[i]!]));
  }

  private async silencers(
    projectId: number,
    alerts: readonly (Matchable & { readonly integrationId: number | null })[],
    at: Date,
  ): Promise<Silencer[][]> {
    if (alerts.length === 0) return [];
    const now = at.toISOString();
    const [unended, windows] = await Promise.all([
      this.repo.unended(projectId, now),
      this.windows.unended(projectId, now),
    ]);
    const active = unended.filter((s) => silenceState(s, at) === 'active');
    const activeWindows = windows.filter((w) => silenceState(w, at) === 'active');
    return alerts.map((a) => [
      ...active
        .filter((s) => silences(s.matchers, a))
        .map((s): Silencer => ({ kind: 'silence', id: s.id, endsAt: s.endsAt })),
      ...activeWindows
        .filter((w) => covers(w, a.integrationId))
        .map(
          (w): Silencer => ({
            kind: 'maintenance_window',
            id: w.id,
            endsAt: w.endsAt,
            integrationId: w.integrationId,
          }),
        ),
    ]);
  }
}
