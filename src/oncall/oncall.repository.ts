import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation, readCount, readNullableTimestamp, readTimestamp } from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { fetchPage } from '../db/pagination.js';
import type {
  Database,
  OncallOverridesTable,
  OncallRotationsTable,
  OncallSchedulesTable,
  Queryable,
} from '../db/schema.js';
import type { MemberSource } from '../members/members.js';
import type { PageRequest } from '../pagination.js';
import type {
  ActivePeriod,
  LengthUnit,
  OncallSchedule,
  OverrideRecord,
  ParticipantRecord,
  RotationRecord,
  ScheduleOwner,
} from './oncall.js';

/** The column naming a schedule's owner. */
const ownerColumn = (o: ScheduleOwner) => (o.type === 'project' ? 'project_id' : 'group_id');

/** The fields of a schedule a caller sets. */
export interface ScheduleFields {
  readonly name: string;
  readonly description: string | null;
  readonly timezone: string;
}

/** The fields of a rotation a caller sets; participants are user ids in shift order. */
export type RotationFields = Pick<
  RotationRecord,
  'name' | 'startsAt' | 'endsAt' | 'length' | 'lengthUnit' | 'activePeriod'
> & { readonly userIds: readonly number[] };

function toSchedule(r: Selectable<OncallSchedulesTable>): OncallSchedule {
  return {
    id: r.id,
    projectId: r.project_id,
    groupId: r.group_id,
    iid: r.iid,
    name: r.name,
    description: r.description,
    timezone: r.timezone,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

function toRotation(r: Selectable<OncallRotationsTable>, participants: ParticipantRecord[]): RotationRecord {
  return {
    id: r.id,
    scheduleId: r.schedule_id,
    name: r.name,
    startsAt: readTimestamp(r.starts_at),
    endsAt: readNullableTimestamp(r.ends_at),
    length: r.length,
    lengthUnit: r.length_unit as LengthUnit,
    activePeriod:
      r.active_period_start !== null && r.active_period_end !== null
        ? { startTime: r.active_period_start, endTime: r.active_period_end }
        : null,
    participants,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

function toOverride(r: Selectable<OncallOverridesTable>): OverrideRecord {
  return {
    id: r.id,
    scheduleId: r.schedule_id,
    userId: r.user_id,
    startsAt: readTimestamp(r.starts_at),
    endsAt: readTimestamp(r.ends_at),
    createdById: r.created_by_id,
    createdAt: readTimestamp(r.created_at),
  };
}

function rotationColumns(f: Omit<RotationFields, 'userIds'>) {
  return {
    name: f.name,
    starts_at: f.startsAt,
    ends_at: f.endsAt,
    length: f.length,
    length_unit: f.lengthUnit,
    active_period_start: f.activePeriod?.startTime ?? null,
    active_period_end: f.activePeriod?.endTime ?? null,
  };
}

/** On-call schedules, their rotations and the rotations' participants. */
export class OncallRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async schedules(owner: ScheduleOwner): Promise<OncallSchedule[]> {
    const rows = await this.db
      .selectFrom('oncall_schedules')
      .selectAll()
      .where(ownerColumn(owner), '=', owner.id)
      .orderBy('iid')
      .execute();
    return rows.map(toSchedule);
  }

  async schedule(owner: ScheduleOwner, iid: number): Promise<OncallSchedule | null> {
    const row = await this.db
      .selectFrom('oncall_schedules')
      .selectAll()
      .where(ownerColumn(owner), '=', owner.id)
      .where('iid', '=', iid)
      .executeTakeFirst();
    return row ? toSchedule(row) : null;
  }

  async scheduleById(id: number): Promise<OncallSchedule | null> {
    const row = await this.db
      .selectFrom('oncall_schedules')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSchedule(row) : null;
  }

  /**
   * Adds a schedule with the owner's next iid (a project's from its internal ids; a group's, which has none, one
   * above its highest, the unique (group, iid) settling a race); null when the owner has one of that name.
   */
  async insertSchedule(owner: ScheduleOwner, f: ScheduleFields, now: string): Promise<OncallSchedule | null> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const iid =
          owner.type === 'project'
            ? await nextIid(trx, owner.id, 'oncall_schedules')
            : Number(
                (
                  await trx
                    .selectFrom('oncall_schedules')
                    .select((eb) => eb.fn.max('iid').as('top'))
                    .where('group_id', '=', owner.id)
                    .executeTakeFirst()
                )?.top ?? 0,
              ) + 1;
        const row = await trx
          .insertInto('oncall_schedules')
          .values({
            project_id: owner.type === 'project' ? owner.id : null,
            group_id: owner.type === 'group' ? owner.id : null,
            iid,
            ...f,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toSchedule(row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  /**
   * Changes a schedule, and the active hours of its rotations in the same transaction (a new timezone converts
   * them); false when the new name is taken.
   */
  async updateSchedule(
    id: number,
    f: ScheduleFields,
    periods: ReadonlyMap<number, ActivePeriod>,
    now: string,
  ): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('oncall_schedules')
          .set({ ...f, updated_at: now })
          .where('id', '=', id)
          .execute();
        for (const [rotationId, p] of periods)
          await trx
            .updateTable('oncall_rotations')
            .set({ active_period_start: p.startTime, active_period_end: p.endTime, updated_at: now })
            .where('id', '=', rotationId)
            .where('schedule_id', '=', id)
            .execute();
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async deleteSchedule(id: number): Promise<void> {
    await this.db.deleteFrom('oncall_schedules').where('id', '=', id).execute();
  }

  /** The rotations of schedules with their participants, by schedule then id. */
  async rotations(scheduleIds: readonly number[]): Promise<RotationRecord[]> {
    if (scheduleIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('oncall_rotations')
      .selectAll()
      .where('schedule_id', 'in', scheduleIds)
      .orderBy('schedule_id')
      .orderBy('id')
      .execute();
    return this.withParticipants(this.db, rows);
  }

  async rotation(scheduleId: number, id: number): Promise<RotationRecord | null> {
    const row = await this.db
      .selectFrom('oncall_rotations')
      .selectAll()
      .where('schedule_id', '=', scheduleId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? ((await this.withParticipants(this.db, [row]))[0] ?? null) : null;
  }

  private async withParticipants(
    db: Queryable,
    rows: Selectable<OncallRotationsTable>[],
  ): Promise<RotationRecord[]> {
    if (rows.length === 0) return [];
    const people = await db
      .selectFrom('oncall_participants')
      .select(['rotation_id', 'user_id', 'position'])
      .where(
        'rotation_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('rotation_id')
      .orderBy('position')
      .execute();
    const byRotation = new Map<number, ParticipantRecord[]>();
    for (const p of people) {
      const list = byRotation.get(p.rotation_id) ?? [];
      list.push({ userId: p.user_id, position: p.position });
      byRotation.set(p.rotation_id, list);
    }
    return rows.map((r) => toRotation(r, byRotation.get(r.id) ?? []));
  }

  /** Adds a rotation and its participants; null when the schedule has a rotation of that name. */
  async insertRotation(scheduleId: number, f: RotationFields, now: string): Promise<RotationRecord | null> {
    try {
      const id = await this.db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('oncall_rotations')
          .values({ schedule_id: scheduleId, ...rotationColumns(f), created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        await this.setParticipants(trx, row.id, f.userIds);
        return row.id;
      });
      return this.rotation(scheduleId, id);
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  /** Replaces a rotation's fields and participants; false when the new name is taken. */
  async updateRotation(scheduleId: number, id: number, f: RotationFields, now: string): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('oncall_rotations')
          .set({ ...rotationColumns(f), updated_at: now })
          .where('schedule_id', '=', scheduleId)
          .where('id', '=', id)
          .execute();
        await trx.deleteFrom('oncall_participants').where('rotation_id', '=', id).execute();
        await this.setParticipants(trx, id, f.userIds);
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  private async setParticipants(
    trx: Queryable,
    rotationId: number,
    userIds: readonly number[],
  ): Promise<void> {
    if (userIds.length === 0) return;
    await trx
      .insertInto('oncall_participants')
      .values(userIds.map((userId, position) => ({ rotation_id: rotationId, user_id: userId, position })))
      .execute();
  }

  async deleteRotation(scheduleId: number, id: number): Promise<void> {
    await this.db
      .deleteFrom('oncall_rotations')
      .where('schedule_id', '=', scheduleId)
      .where('id', '=', id)
      .execute();
  }

  /**
   * A page of a schedule's overrides by start (then id), those overlapping [from, to) when given, and how many there
   * are (capped as every count).
   */
  async overrides(
    scheduleId: number,
    window: { from: string | null; to: string | null },
    page: PageRequest,
  ): Promise<{ items: OverrideRecord[]; total: number }> {
    let base = this.db.selectFrom('oncall_overrides').where('schedule_id', '=', scheduleId);
    if (window.from !== null) base = base.where('ends_at', '>', window.from);
    if (window.to !== null) base = base.where('starts_at', '<', window.to);
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy('starts_at').orderBy('id'),
      page,
      this.db,
    );
    return { items: rows.map(toOverride), total };
  }

  /** All of a schedule's overrides overlapping [from, to), by id (the order in which they win). */
  async overridesBetween(scheduleId: number, from: string, to: string): Promise<OverrideRecord[]> {
    const rows = await this.db
      .selectFrom('oncall_overrides')
      .selectAll()
      .where('schedule_id', '=', scheduleId)
      .where('ends_at', '>', from)
      .where('starts_at', '<', to)
      .orderBy('id')
      .execute();
    return rows.map(toOverride);
  }

  /** How many of a schedule's overrides end after `now`. */
  async countOpenOverrides(scheduleId: number, now: string): Promise<number> {
    const row = await this.db
      .selectFrom('oncall_overrides')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('schedule_id', '=', scheduleId)
      .where('ends_at', '>', now)
      .executeTakeFirst();
    return readCount(row?.n as string | number | undefined);
  }

  async override(scheduleId: number, id: number): Promise<OverrideRecord | null> {
    const row = await this.db
      .selectFrom('oncall_overrides')
      .selectAll()
      .where('schedule_id', '=', scheduleId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toOverride(row) : null;
  }

  async insertOverride(
    scheduleId: number,
    f: { userId: number; startsAt: string; endsAt: string; createdById: number | null },
    now: string,
  ): Promise<OverrideRecord> {
    const row = await this.db
      .insertInto('oncall_overrides')
      .values({
        schedule_id: scheduleId,
        user_id: f.userId,
        starts_at: f.startsAt,
        ends_at: f.endsAt,
        created_by_id: f.createdById,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toOverride(row);
  }

  async deleteOverride(scheduleId: number, id: number): Promise<void> {
    await this.db
      .deleteFrom('oncall_overrides')
      .where('schedule_id', '=', scheduleId)
      .where('id', '=', id)
      .execute();
  }

  /** A user's overrides that have not ended by `now`, with the schedule of each. */
  async openOverridesOf(userId: number, now: string): Promise<(OverrideRecord & { scheduleId: number })[]> {
    const rows = await this.db
      .selectFrom('oncall_overrides')
      .selectAll('oncall_overrides')
      .where('oncall_overrides.user_id', '=', userId)
      .where('oncall_overrides.ends_at', '>', now)
      .execute();
    return rows.map(toOverride);
  }

  /**
   * Takes overrides away from someone who left: those not yet started are deleted, one in progress ends at `now`
   * (what has passed stays, as history).
   */
  async dropOverrides(ids: readonly number[], now: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('oncall_overrides').where('id', 'in', ids).where('starts_at', '>=', now).execute();
      await trx
        .updateTable('oncall_overrides')
        .set({ ends_at: now })
        .where('id', 'in', ids)
        .where('starts_at', '<', now)
        .where('ends_at', '>', now)
        .execute();
    });
  }

  /** Which of `userIds` are members (any level, not expired) of any of `sources`. */
  async membersOf(
    sources: readonly MemberSource[],
    userIds: readonly number[],
    today: string,
  ): Promise<Set<number>> {
    if (sources.length === 0 || userIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('members')
      .select('user_id')
      .where((eb) =>
        eb.or(sources.map((s) => eb.and([eb('source_type', '=', s.type), eb('source_id', '=', s.id)]))),
      )
      .where('user_id', 'in', userIds)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>=', today)]))
      .execute();
    return new Set(rows.map((r) => r.user_id));
  }
}
