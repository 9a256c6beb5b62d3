import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { invalidFields, notFound, paramError } from '../errors.js';
import { AccessLevel, type MemberSource } from '../members/members.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Namespace } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import {
  type ActivePeriod,
  canonicalTimeZone,
  convertActivePeriod,
  eachScheduleShift,
  LENGTH_UNITS,
  type LengthUnit,
  MAX_DESCRIPTION,
  MAX_LENGTH,
  MAX_NAME,
  MAX_OPEN_OVERRIDES,
  MAX_OVERRIDE_DAYS,
  MAX_PARTICIPANTS,
  MAX_ROTATIONS,
  MAX_SHIFTS_WINDOW_DAYS,
  type OncallSchedule,
  type OverrideRecord,
  onCallUserIds,
  overrideAt,
  overrideSpans,
  parseTime,
  parseTimeOfDay,
  type RotationRecord,
  type ScheduleOwner,
  shiftsAt,
} from './oncall.js';
import type { OncallRepository, RotationFields, ScheduleFields } from './oncall.repository.js';

/** A rotation with its participants' users, and the timezone its times are shown in. */
export interface RotationView extends Omit<RotationRecord, 'participants'> {
  readonly timezone: string;
  readonly participants: readonly { readonly user: User; readonly position: number }[];
}

export interface ScheduleView {
  readonly schedule: OncallSchedule;
  readonly rotations: readonly RotationView[];
}

/**
 * A shift as the API shows it: whose, of which rotation or override (exactly one), from and until when (epoch ms;
 * shown in `timezone`).
 */
export interface ShiftView {
  readonly rotation: RotationView | null;
  readonly override: { readonly id: number } | null;
  readonly user: User;
  readonly startsAt: number;
  readonly endsAt: number;
  readonly timezone: string;
}

/** An override with its user, and the timezone its times are shown in. */
export interface OverrideView {
  readonly override: OverrideRecord;
  readonly user: User;
  readonly timezone: string;
}

/** An override to add: the user by username or id (exactly one), and its span (ISO times, local without offset). */
export interface OverrideInput {
  readonly username?: string;
  readonly userId?: number;
  readonly startsAt?: string;
  readonly endsAt?: string;
}

export interface ScheduleInput {
  readonly name?: string;
  readonly description?: string | null;
  readonly timezone?: string;
}

/** A participant by username or by user id (exactly one of the two). */
export interface ParticipantInput {
  readonly username?: string;
  readonly userId?: number;
}

/** A rotation's start or end: an ISO time string, or GitLab's `{date, time}` local to the schedule. */
export type TimeInput = string | { readonly date: string; readonly time: string };

export interface RotationInput {
  readonly name?: string;
  readonly startsAt?: TimeInput;
  readonly endsAt?: TimeInput | null;
  readonly length?: number;
  readonly lengthUnit?: string;
  readonly activePeriod?: { readonly startTime?: string; readonly endTime?: string } | null;
  readonly participants?: readonly ParticipantInput[];
}

const DAY = 86_400_000;

/**
 * Whose schedules a call is about: a project (its id or full path, as the project routes take it) or a group (`{
 * group: id or full path }`, the group routes). Both have the same schedules, rotations, overrides and rules.
 */
export type OncallRef = string | { readonly group: string };

/**
 * The owner of schedules, loaded: a project, or a group whose schedules any project below it may use. Its members
 * (direct or inherited; a personal project's owner too) are who may take part and be on call.
 */
export interface OncallScope {
  readonly owner: ScheduleOwner;
  readonly project: Project | null;
  readonly group: Namespace | null;
}

export const projectScope = (project: Project): OncallScope => ({
  owner: { type: 'project', id: project.id },
  project,
  group: null,
});
export const groupScope = (group: Namespace): OncallScope => ({
  owner: { type: 'group', id: group.id },
  project: null,
  group,
});

/**
 * On-call schedules (GitLab Premium and Ultimate): schedules, rotations and who is on call. Reporters and above
 * read; Maintainers and above change (GitLab's `read_incident_management_oncall_schedule` and `admin_...`).
 */
export class OncallService {
  constructor(
    private readonly repo: OncallRepository,
    private readonly projects: ProjectsService,
    private readonly namespaces: Pick<NamespacesService, 'findById'>,
    private readonly users: Pick<UsersService, 'findById' | 'findByUsername'>,
    private readonly permissions: Pick<PermissionsService, 'inheritedSources'>,
    private readonly access: Access,
    private readonly clock: Clock,
  ) {}

  /**
   * The project or group for a caller with at least `level` in it: 404 when invisible, 403 on the Free tier or when
   * too low (a group's level is the caller's in it or an ancestor, as its members inherit).
   */
  private async scope(actor: User | null, ref: OncallRef, level: number): Promise<OncallScope> {
    const { scope, have } =
      typeof ref === 'string'
        ? await this.access
            .project(actor, ref)
            .then((r) => ({ scope: projectScope(r.project), have: r.level }))
        : await this.access
            .group(actor, ref.group)
            .then((r) => ({ scope: groupScope(r.group), have: r.level }));
    // On-call checks the tier before the level (see AccessPolicy): a Free instance answers 403 to anyone.
    this.access.tier('oncall_schedules');
    this.access.level(actor, have, level);
    return scope;
  }

  /** The owner of a schedule, loaded; null when it is gone. */
  private async scopeOf(schedule: OncallSchedule): Promise<OncallScope | null> {
    if (schedule.projectId !== null) {
      const project = await this.projects.findById(schedule.projectId);
      return project && projectScope(project);
    }
    const group = schedule.groupId === null ? null : await this.namespaces.findById(schedule.groupId);
    return group && group.kind === 'group' ? groupScope(group) : null;
  }

  private async scheduleOf(project: OncallScope, iid: number): Promise<OncallSchedule> {
    const schedule = await this.repo.schedule(project.owner, iid);
    if (!schedule) throw notFound('On-call schedule');
    return schedule;
  }

  private async view(project: OncallScope, schedules: readonly OncallSchedule[]): Promise<ScheduleView[]> {
    const rotations = await this.current(project, await this.repo.rotations(schedules.map((s) => s.id)));
    const users = await this.usersById(rotations.flatMap((r) => r.participants.map((p) => p.userId)));
    return schedules.map((schedule) => ({
      schedule,
      rotations: rotations
        .filter((r) => r.scheduleId === schedule.id)
        .map((r) => rotationView(r, schedule.timezone, users)),
    }));
  }

  /**
   * The rotations with the participants who are still members of the project: as GitLab, someone who left the
   * project leaves its rotations (their turns go to the others) and is never paged for it.
   */
  private async current(project: OncallScope, rotations: RotationRecord[]): Promise<RotationRecord[]> {
    const members = await this.memberIds(
      project,
      rotations.flatMap((r) => r.participants.map((p) => p.userId)),
    );
    return rotations.map((r) => ({
      ...r,
      participants: r.participants.filter((p) => members.has(p.userId)),
    }));
  }

  /**
   * Which of `userIds` are members of the project (directly, through its groups, or owning its namespace) or of the
   * group (directly or through its ancestors).
   */
  private async memberIds(scope: OncallScope, userIds: readonly number[]): Promise<Set<number>> {
    const { project, group } = scope;
    const sources: MemberSource[] = project
      ? [
          { type: 'project', id: project.id },
          ...(await this.permissions.inheritedSources(project.namespace, false)),
        ]
      : await this.permissions.inheritedSources(group!, false);
    const ids = [...new Set(userIds)];
    const members = await this.repo.membersOf(sources, ids, this.clock.now().toISOString().slice(0, 10));
    const owner = project?.namespace.kind === 'user' ? project.namespace.ownerId : null;
    if (owner !== null && ids.includes(owner)) members.add(owner);
    return members;
  }

  private async usersById(ids: readonly number[]): Promise<Map<number, User>> {
    const unique = [...new Set(ids)];
    const found = await Promise.all(unique.map((id) => this.users.findById(id)));
    return new Map(found.flatMap((u) => (u ? [[u.id, u] as const] : [])));
  }

  async listSchedules(actor: User | null, idOrPath: OncallRef): Promise<ScheduleView[]> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    return this.view(project, await this.repo.schedules(project.owner));
  }

  async getSchedule(actor: User | null, idOrPath: OncallRef, iid: number): Promise<ScheduleView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    return (await this.view(project, [await this.scheduleOf(project, iid)]))[0]!;
  }

  async createSchedule(actor: User | null, idOrPath: OncallRef, input: ScheduleInput): Promise<ScheduleView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const fields = scheduleFields(input, null);
    const created = await this.repo.insertSchedule(project.owner, fields, this.clock.now().toISOString());
    if (!created) throw invalidFields({ name: ['has already been taken'] });
    return { schedule: created, rotations: [] };
  }

  /** Changes a schedule; a new timezone converts its rotations' active hours so that they keep their instants. */
  async updateSchedule(
    actor: User | null,
    idOrPath: OncallRef,
    iid: number,
    input: ScheduleInput,
  ): Promise<ScheduleView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.scheduleOf(project, iid);
    const fields = scheduleFields(input, current);
    const now = this.clock.now();
    const periods = new Map<number, ActivePeriod>();
    if (fields.timezone !== current.timezone)
      for (const r of await this.repo.rotations([current.id]))
        if (r.activePeriod)
          periods.set(
            r.id,
            convertActivePeriod(r.activePeriod, current.timezone, fields.timezone, now.getTime()),
          );
    if (!(await this.repo.updateSchedule(current.id, fields, periods, now.toISOString())))
      throw invalidFields({ name: ['has already been taken'] });
    return (await this.view(project, [await this.scheduleOf(project, iid)]))[0]!;
  }

  async deleteSchedule(actor: User | null, idOrPath: OncallRef, iid: number): Promise<void> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    await this.repo.deleteSchedule((await this.scheduleOf(project, iid)).id);
  }

  async listRotations(actor: User | null, idOrPath: OncallRef, iid: number): Promise<RotationView[]> {
    return [...(await this.getSchedule(actor, idOrPath, iid)).rotations];
  }

  async getRotation(actor: User | null, idOrPath: OncallRef, iid: number, id: number): Promise<RotationView> {
    const rotation = (await this.getSchedule(actor, idOrPath, iid)).rotations.find((r) => r.id === id);
    if (!rotation) throw notFound('On-call rotation');
    return rotation;
  }

  async createRotation(
    actor: User | null,
    idOrPath: OncallRef,
    iid: number,
    input: RotationInput,
  ): Promise<RotationView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const schedule = await this.scheduleOf(project, iid);
    if ((await this.repo.rotations([schedule.id])).length >= MAX_ROTATIONS)
      throw invalidFields({ base: [`A schedule may have at most ${MAX_ROTATIONS} rotations`] });
    const fields = await this.rotationFields(project, schedule, input, null);
    const created = await this.repo.insertRotation(schedule.id, fields, this.clock.now().toISOString());
    if (!created) throw invalidFields({ name: ['has already been taken'] });
    return this.rotationOf(project, schedule, created.id);
  }

  async updateRotation(
    actor: User | null,
    idOrPath: OncallRef,
    iid: number,
    id: number,
    input: RotationInput,
  ): Promise<RotationView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const schedule = await this.scheduleOf(project, iid);
    const current = await this.repo.rotation(schedule.id, id);
    if (!current) throw notFound('On-call rotation');
    const fields = await this.rotationFields(project, schedule, input, current);
    if (!(await this.repo.updateRotation(schedule.id, id, fields, this.clock.now().toISOString())))
      throw invalidFields({ name: ['has already been taken'] });
    return this.rotationOf(project, schedule, id);
  }

  async deleteRotation(actor: User | null, idOrPath: OncallRef, iid: number, id: number): Promise<void> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const schedule = await this.scheduleOf(project, iid);
    if (!(await this.repo.rotation(schedule.id, id))) throw notFound('On-call rotation');
    await this.repo.deleteRotation(schedule.id, id);
  }

  private async rotationOf(
    project: OncallScope,
    schedule: OncallSchedule,
    id: number,
  ): Promise<RotationView> {
    const rotation = (await this.view(project, [schedule]))[0]!.rotations.find((r) => r.id === id);
    if (!rotation) throw notFound('On-call rotation');
    return rotation;
  }

  /**
   * Who is on call at `at` (an ISO time; local to the schedule without an offset; now when absent): the user of the
   * override in force then, else the rotations' participants.
   */
  async onCall(actor: User | null, idOrPath: OncallRef, iid: number, at?: string): Promise<ShiftView[]> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    const { schedule, rotations } = (await this.view(project, [await this.scheduleOf(project, iid)]))[0]!;
    const t = at === undefined ? this.clock.now().getTime() : parseTime(at, schedule.timezone);
    if (t === null) throw paramError('at is invalid: an ISO 8601 time is expected');
    const span = overrideSpans(await this.overridesIn(project, schedule.id, t, t + 1), t, t + 1).find(
      (sp) => sp.startsAt <= t,
    );
    if (span) {
      const user = (await this.usersById([span.userId])).get(span.userId);
      return user
        ? [
            {
              rotation: null,
              override: { id: span.overrideId },
              user,
              startsAt: span.startsAt,
              endsAt: span.endsAt,
              timezone: schedule.timezone,
            },
          ]
        : [];
    }
    return shiftsAt(rotations.map(spec), schedule.timezone, t).flatMap((s) =>
      shiftView(s, rotations, schedule.timezone),
    );
  }

  /**
   * The overrides of a schedule that overlap [from, to) and whose user is still a member of the project (someone who
   * left is on call through none, as through no rotation), with the ones they overlap, so that the spans each holds
   * come out whole.
   */
  private async overridesIn(
    project: OncallScope,
    scheduleId: number,
    from: number,
    to: number,
  ): Promise<OverrideRecord[]> {
    // An override lasts at most MAX_OVERRIDE_DAYS: any that overlaps one of the window's overlaps the window widened
    // by twice that, on each side.
    const reach = 2 * MAX_OVERRIDE_DAYS * DAY;
    const all = await this.repo.overridesBetween(
      scheduleId,
      new Date(from - reach).toISOString(),
      new Date(to + reach).toISOString(),
    );
    const members = await this.memberIds(
      project,
      all.map((o) => o.userId),
    );
    return all.filter((o) => members.has(o.userId));
  }

  /**
   * A page of the shifts of every rotation overlapping [from, to) (defaults: now, and 14 days later; at most 31
   * days), by start. Only the shifts up to the page's end (and one more, to tell whether there is a next page) are
   * computed, yielding to the event loop as they are: `total` is the number of shifts when the page reached their
   * end, else null (more follow).
   */
  async shifts(
    actor: User | null,
    idOrPath: OncallRef,
    iid: number,
    range: { from?: string; to?: string },
    page: PageRequest,
  ): Promise<{ items: ShiftView[]; total: number | null }> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    const { schedule, rotations } = (await this.view(project, [await this.scheduleOf(project, iid)]))[0]!;
    const tz = schedule.timezone;
    const from = range.from === undefined ? this.clock.now().getTime() : parseTime(range.from, tz);
    if (from === null) throw paramError('from is invalid: an ISO 8601 time is expected');
    const to = range.to === undefined ? from + 14 * DAY : parseTime(range.to, tz);
    if (to === null) throw paramError('to is invalid: an ISO 8601 time is expected');
    if (to <= from) throw paramError('to must be after from');
    if (to - from > MAX_SHIFTS_WINDOW_DAYS * DAY)
      throw paramError(`from and to may be at most ${MAX_SHIFTS_WINDOW_DAYS} days apart`);
    const overrides = await this.overridesIn(project, schedule.id, from, to);
    const spans = overrideSpans(overrides, from, to);
    const users = await this.usersById(spans.map((sp) => sp.userId));
    const skip = (page.page - 1) * page.perPage;
    const items: ShiftView[] = [];
    let seen = 0;
    for (const shift of eachScheduleShift(rotations.map(spec), spans, tz, from, to)) {
      const user = shift.overrideId === null ? undefined : users.get(shift.userId);
      const view =
        shift.rotationId !== null
          ? shiftView({ ...shift, rotationId: shift.rotationId }, rotations, tz)[0]
          : user && {
              rotation: null,
              override: { id: shift.overrideId! },
              user,
              startsAt: shift.startsAt,
              endsAt: shift.endsAt,
              timezone: tz,
            };
      if (!view) continue;
      if (seen >= skip + page.perPage) return { items, total: null };
      if (seen >= skip) items.push(view);
      seen++;
      if (seen % SHIFTS_PER_TURN === 0) await yieldToEventLoop();
    }
    return { items, total: seen };
  }

  /**
   * The ids of the users on call in a schedule at `at` (the escalation engine's port; no caller, no tier check):
   * the user of the override in force then, else the union over its rotations, each user once, among the project's
   * current members. Asked when the page is sent, so an override made after the alert fired counts. An unknown
   * schedule has nobody on call.
   */
  async onCallUserIds(scheduleId: number, at: Date): Promise<number[]> {
    const schedule = await this.repo.scheduleById(scheduleId);
    if (!schedule) return [];
    const project = await this.scopeOf(schedule);
    if (!project) return [];
    const t = at.getTime();
    const override = overrideAt(await this.overridesIn(project, schedule.id, t, t + 1), t);
    if (override) return [override.userId];
    const rotations = await this.current(project, await this.repo.rotations([schedule.id]));
    return onCallUserIds(rotations, schedule.timezone, at.getTime());
  }

  /**
   * Who is on call now for a project, for the system (no caller check): per user, the schedules that have them on
   * call, over the project's schedules and those of its groups (which its escalation policies may use). Nobody
   * on a tier without on-call schedules.
   */
  async onCallNowFor(project: Project): Promise<Map<number, OncallSchedule[]>> {
    const found = new Map<number, OncallSchedule[]>();
    if (!this.access.hasTier('oncall_schedules')) return found;
    const groups = await this.permissions.inheritedSources(project.namespace, false);
    const owners: ScheduleOwner[] = [
      { type: 'project', id: project.id },
      ...groups.map((g) => ({ type: 'group' as const, id: g.id })),
    ];
    const schedules = (await Promise.all(owners.map((o) => this.repo.schedules(o)))).flat();
    const now = this.clock.now();
    for (const schedule of schedules) {
      for (const id of await this.onCallUserIds(schedule.id, now))
        found.set(id, [...(found.get(id) ?? []), schedule]);
    }
    return found;
  }

  /** The users on call in a schedule at `at`, as `onCallUserIds`. */
  async usersOnCall(scheduleId: number, at: Date): Promise<User[]> {
    const ids = await this.onCallUserIds(scheduleId, at);
    const users = await this.usersById(ids);
    return ids.flatMap((id) => users.get(id) ?? []);
  }

  /** A schedule of a project by iid, for other features that reference one; null if none. */
  async scheduleByIid(projectId: number, iid: number): Promise<OncallSchedule | null> {
    return this.repo.schedule({ type: 'project', id: projectId }, iid);
  }

  /** A schedule by id, for other features that reference one; null if none. */
  async scheduleById(id: number): Promise<OncallSchedule | null> {
    return this.repo.scheduleById(id);
  }

  /**
   * A page of a schedule's overrides by start, those overlapping [startsAt, endsAt) when given (either bound alone
   * too) (Reporter).
   */
  async listOverrides(
    actor: User | null,
    idOrPath: OncallRef,
    iid: number,
    window: { startsAt?: string; endsAt?: string },
    page: PageRequest,
  ): Promise<Paged<OverrideView>> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    const schedule = await this.scheduleOf(project, iid);
    const bound = (v: string | undefined, name: string) => {
      if (v === undefined) return null;
      const t = parseTime(v, schedule.timezone);
      if (t === null) throw paramError(`${name} is invalid: an ISO 8601 time is expected`);
      return t;
    };
    const from = bound(window.startsAt, 'starts_at');
    const to = bound(window.endsAt, 'ends_at');
    if (from !== null && to !== null && to <= from) throw paramError('ends_at must be after starts_at');
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    const { items, total } = await this.repo.overrides(schedule.id, { from: iso(from), to: iso(to) }, page);
    const users = await this.usersById(items.map((o) => o.userId));
    return {
      items: items.flatMap((o) => {
        const user = users.get(o.userId);
        return user ? [{ override: o, user, timezone: schedule.timezone }] : [];
      }),
      total,
    };
  }

  /**
   * Puts one user on call for [startsAt, endsAt) across the schedule (Maintainer): a member of the project (as a
   * rotation's participant), for at most MAX_OVERRIDE_DAYS, not wholly in the past. Overlapping overrides are
   * allowed: the newest wins for the overlap.
   */
  async createOverride(
    actor: User | null,
    idOrPath: OncallRef,
    iid: number,
    input: OverrideInput,
  ): Promise<OverrideView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const schedule = await this.scheduleOf(project, iid);
    const errors: Record<string, string[]> = {};
    const fail = (field: string, reason: string) => {
      errors[field] = [...(errors[field] ?? []), reason];
    };
    const tz = schedule.timezone;
    let user: User | null = null;
    if ((input.username === undefined) === (input.userId === undefined))
      fail('user', 'needs exactly one of username and user_id');
    else {
      user =
        input.username !== undefined
          ? await this.users.findByUsername(input.username)
          : await this.users.findById(input.userId!);
      if (!user)
        fail('user', `${input.username !== undefined ? `'${input.username}'` : input.userId} not found`);
      else if (!(await this.memberIds(project, [user.id])).has(user.id))
        fail('user', `is not a member of the ${noun(project)}: ${user.username}`);
    }
    const time = (v: string | undefined, field: string) => {
      if (v === undefined || v.trim() === '') {
        fail(field, "can't be blank");
        return null;
      }
      const t = parseTime(v, tz);
      if (t === null) fail(field, 'is not a valid time');
      return t;
    };
    const startsAt = time(input.startsAt, 'starts_at');
    const endsAt = time(input.endsAt, 'ends_at');
    if (startsAt !== null && endsAt !== null) {
      if (endsAt <= startsAt) fail('ends_at', 'must be after the start');
      else if (endsAt - startsAt > MAX_OVERRIDE_DAYS * DAY)
        fail('ends_at', `must be at most ${MAX_OVERRIDE_DAYS} days after the start`);
      else if (endsAt <= this.clock.now().getTime()) fail('ends_at', 'must be in the future');
    }
    if (Object.keys(errors).length > 0 || !user || startsAt === null || endsAt === null)
      throw invalidFields(errors);
    if (
      (await this.repo.countOpenOverrides(schedule.id, this.clock.now().toISOString())) >= MAX_OPEN_OVERRIDES
    )
      throw invalidFields({
        base: [`A schedule may have at most ${MAX_OPEN_OVERRIDES} overrides that have not ended`],
      });
    const created = await this.repo.insertOverride(
      schedule.id,
      {
        userId: user.id,
        startsAt: new Date(startsAt).toISOString(),
        endsAt: new Date(endsAt).toISOString(),
        createdById: actor?.id ?? null,
      },
      this.clock.now().toISOString(),
    );
    return { override: created, user, timezone: tz };
  }

  async deleteOverride(actor: User | null, idOrPath: OncallRef, iid: number, id: number): Promise<void> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const schedule = await this.scheduleOf(project, iid);
    if (!(await this.repo.override(schedule.id, id))) throw notFound('On-call override');
    await this.repo.deleteOverride(schedule.id, id);
  }

  /**
   * After a user left a project or a group (the members feature calls this): in every project or group whose
   * schedules they are no longer a member of, their overrides not yet started are deleted and one in progress ends
   * now, as GitLab takes someone who left out of the project's rotations. Past overrides stay.
   */
  async memberLeft(userId: number): Promise<void> {
    const now = this.clock.now().toISOString();
    const open = await this.repo.openOverridesOf(userId, now);
    const drop: number[] = [];
    for (const scheduleId of new Set(open.map((o) => o.scheduleId))) {
      const schedule = await this.repo.scheduleById(scheduleId);
      const scope = schedule && (await this.scopeOf(schedule));
      if (scope && (await this.memberIds(scope, [userId])).has(userId)) continue;
      drop.push(...open.filter((o) => o.scheduleId === scheduleId).map((o) => o.id));
    }
    await this.repo.dropOverrides(drop, now);
  }

  /** Validates a rotation (new, or `current` changed by `input`) and resolves its participants. */
  private async rotationFields(
    project: OncallScope,
    schedule: OncallSchedule,
    input: RotationInput,
    current: RotationRecord | null,
  ): Promise<RotationFields> {
    const errors: Record<string, string[]> = {};
    const fail = (field: string, reason: string) => {
      errors[field] = [...(errors[field] ?? []), reason];
    };
    const tz = schedule.timezone;

    const name = input.name !== undefined ? input.name.trim() : current?.name;
    if (name === undefined) fail('name', "can't be blank");
    else if (name === '') fail('name', "can't be blank");
    else if (name.length > MAX_NAME) fail('name', `is too long (maximum is ${MAX_NAME} characters)`);

    const startsAt =
      input.startsAt !== undefined ? timeOf(input.startsAt, tz) : current && Date.parse(current.startsAt);
    if (startsAt === undefined || startsAt === null)
      fail('starts_at', startsAt === undefined ? "can't be blank" : 'is not a valid time');
    const endsAt =
      input.endsAt !== undefined
        ? input.endsAt === null
          ? null
          : timeOf(input.endsAt, tz)
        : current?.endsAt
          ? Date.parse(current.endsAt)
          : null;
    if (input.endsAt !== undefined && input.endsAt !== null && endsAt === null)
      fail('ends_at', 'is not a valid time');
    if (typeof startsAt === 'number' && typeof endsAt === 'number' && endsAt <= startsAt)
      fail('ends_at', 'must be after the start');

    const length = input.length ?? current?.length;
    if (length === undefined) fail('length', "can't be blank");
    else if (!Number.isInteger(length) || length < 1 || length > MAX_LENGTH)
      fail('length', `must be an integer from 1 to ${MAX_LENGTH}`);
    const unit = input.lengthUnit ?? current?.lengthUnit;
    if (unit === undefined) fail('length_unit', "can't be blank");
    else if (!(LENGTH_UNITS as readonly string[]).includes(unit))
      fail('length_unit', `must be one of ${LENGTH_UNITS.join(', ')}`);

    let activePeriod: ActivePeriod | null =
      input.activePeriod === undefined ? (current?.activePeriod ?? null) : null;
    if (input.activePeriod) {
      const { startTime, endTime } = input.activePeriod;
      if (startTime === undefined || endTime === undefined)
        fail('active_period', 'needs both start_time and end_time');
      else if (parseTimeOfDay(startTime) === null || parseTimeOfDay(endTime) === null)
        fail('active_period', 'times must be HH:MM from 00:00 to 23:59');
      else if (startTime === endTime) fail('active_period', 'end_time must differ from start_time');
      else activePeriod = { startTime, endTime };
    }
    // GitLab: "Restricted shift times are not available for hourly shifts".
    if (activePeriod && unit === 'hours')
      fail('active_period', 'is not available for hourly shifts (use days or weeks)');

    const userIds =
      input.participants !== undefined
        ? await this.participantIds(project, input.participants, fail)
        : (current?.participants.map((p) => p.userId) ?? []);
    if (input.participants === undefined && !current) fail('participants', "can't be blank");

    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    return {
      name: name!,
      startsAt: new Date(startsAt as number).toISOString(),
      endsAt: endsAt === null ? null : new Date(endsAt).toISOString(),
      length: length!,
      lengthUnit: unit as LengthUnit,
      activePeriod,
      userIds,
    };
  }

  /** The participants' user ids in order: each an existing user who is a member of the project (GitLab's rule). */
  private async participantIds(
    project: OncallScope,
    input: readonly ParticipantInput[],
    fail: (field: string, reason: string) => void,
  ): Promise<number[]> {
    if (input.length === 0) fail('participants', 'needs at least one participant');
    if (input.length > MAX_PARTICIPANTS)
      fail('participants', `may have at most ${MAX_PARTICIPANTS} participants`);
    if (input.length === 0 || input.length > MAX_PARTICIPANTS) return [];
    const found = await Promise.all(
      input.map(async (p) => {
        if ((p.username === undefined) === (p.userId === undefined)) return { p, user: undefined };
        const user =
          p.username !== undefined
            ? await this.users.findByUsername(p.username)
            : await this.users.findById(p.userId!);
        return { p, user };
      }),
    );
    const ids: number[] = [];
    for (const { p, user } of found) {
      if (user === undefined) fail('participants', 'each needs exactly one of username and user_id');
      else if (user === null)
        fail('participants', `user ${p.username !== undefined ? `'${p.username}'` : p.userId} not found`);
      else ids.push(user.id);
    }
    if (new Set(ids).size !== ids.length) fail('participants', 'name a user more than once');
    const members = await this.memberIds(project, ids);
    const strangers = found
      .filter(({ user }) => user && !members.has(user.id))
      .map(({ user }) => user!.username);
    if (strangers.length > 0)
      fail('participants', `are not members of the ${noun(project)}: ${[...new Set(strangers)].join(', ')}`);
    return ids;
  }
}

const noun = (scope: OncallScope) => (scope.project ? 'project' : 'group');

function scheduleFields(input: ScheduleInput, current: OncallSchedule | null): ScheduleFields {
  const errors: Record<string, string[]> = {};
  const name = input.name !== undefined ? input.name.trim() : current?.name;
  if (!name) errors.name = ["can't be blank"];
  else if (name.length > MAX_NAME) errors.name = [`is too long (maximum is ${MAX_NAME} characters)`];
  const description =
    input.description !== undefined ? input.description?.trim() || null : (current?.description ?? null);
  if (description && description.length > MAX_DESCRIPTION)
    errors.description = [`is too long (maximum is ${MAX_DESCRIPTION} characters)`];
  let timezone = current?.timezone;
  if (input.timezone !== undefined) {
    const zone = canonicalTimeZone(input.timezone.trim());
    if (zone) timezone = zone;
    else errors.timezone = ['is not a valid IANA time zone (such as Europe/Berlin)'];
  } else if (!current) errors.timezone = ["can't be blank"];
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  return { name: name!, description, timezone: timezone! };
}

/** A time given as an ISO string, or as GitLab's `{date: "YYYY-MM-DD", time: "HH:MM"}` local to the schedule. */
function timeOf(v: TimeInput, timeZone: string): number | null {
  if (typeof v === 'string') return parseTime(v, timeZone);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v.date) || parseTimeOfDay(v.time) === null) return null;
  return parseTime(`${v.date}T${v.time}`, timeZone);
}

function spec(r: RotationView): RotationRecord {
  return { ...r, participants: r.participants.map((p) => ({ userId: p.user.id, position: p.position })) };
}

function rotationView(r: RotationRecord, timezone: string, users: ReadonlyMap<number, User>): RotationView {
  return {
    ...r,
    timezone,
    // A participant whose user is gone (deleted users cascade) is not shown.
    participants: r.participants.flatMap((p) => {
      const user = users.get(p.userId);
      return user ? [{ user, position: p.position }] : [];
    }),
  };
}

/** Shifts computed between two turns of the event loop (a far page of a long range takes many turns). */
const SHIFTS_PER_TURN = 1000;

function shiftView(
  s: { rotationId: number; userId: number; startsAt: number; endsAt: number },
  rotations: readonly RotationView[],
  timezone: string,
): ShiftView[] {
  const rotation = rotations.find((r) => r.id === s.rotationId);
  const user = rotation?.participants.find((p) => p.user.id === s.userId)?.user;
  return rotation && user
    ? [{ rotation, override: null, user, startsAt: s.startsAt, endsAt: s.endsAt, timezone }]
    : [];
}
