import type { Kysely, Selectable } from 'kysely';
import { readNullableTimestamp, readTimestamp } from '../db/dialect.js';
import type { CronCheckinsTable, CronMonitorsTable, Database, Queryable } from '../db/schema.js';
import type {
  CheckIn,
  IntervalUnit,
  Monitor,
  MonitorConfig,
  MonitorStatus,
  StoredCheckInStatus,
} from './monitors.js';

function toConfig(r: Selectable<CronMonitorsTable>): MonitorConfig | null {
  if (r.schedule_type === null || r.schedule === null) return null;
  return {
    schedule:
      r.schedule_type === 'crontab'
        ? { type: 'crontab', value: r.schedule }
        : { type: 'interval', value: Number(r.schedule), unit: r.schedule_unit as IntervalUnit },
    checkinMargin: r.checkin_margin,
    maxRuntime: r.max_runtime,
    timezone: r.timezone,
  };
}

function toMonitor(r: Selectable<CronMonitorsTable>): Monitor {
  return {
    id: r.id,
    projectId: r.project_id,
    slug: r.slug,
    config: toConfig(r),
    status: r.status as MonitorStatus,
    lastCheckInAt: readNullableTimestamp(r.last_checkin_at),
    deadlineAt: readNullableTimestamp(r.deadline_at),
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

function toCheckIn(r: Selectable<CronCheckinsTable>): CheckIn {
  return {
    id: r.id,
    monitorId: r.monitor_id,
    checkInId: r.check_in_id,
    status: r.status as StoredCheckInStatus,
    environment: r.environment,
    duration: r.duration === null ? null : Number(r.duration),
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

const configColumns = (c: MonitorConfig) => ({
  schedule_type: c.schedule.type,
  schedule: String(c.schedule.value),
  schedule_unit: c.schedule.type === 'interval' ? c.schedule.unit : null,
  checkin_margin: c.checkinMargin,
  max_runtime: c.maxRuntime,
  timezone: c.timezone,
});

/** Cron monitors and their check-ins. */
export class MonitorsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list(projectId: number): Promise<Monitor[]> {
    const rows = await this.db
      .selectFrom('cron_monitors')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('slug')
      .execute();
    return rows.map(toMonitor);
  }

  async bySlug(projectId: number, slug: string, trx: Queryable = this.db): Promise<Monitor | null> {
    const r = await trx
      .selectFrom('cron_monitors')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return r ? toMonitor(r) : null;
  }

  async byId(id: number, trx: Queryable = this.db): Promise<Monitor | null> {
    const r = await trx.selectFrom('cron_monitors').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toMonitor(r) : null;
  }

  /** Creates the monitor of a slug, or updates its configuration; returns it. */
  async upsert(
    trx: Queryable,
    projectId: number,
    slug: string,
    c: MonitorConfig,
    now: string,
  ): Promise<Monitor> {
    await trx
      .insertInto('cron_monitors')
      .values({
        project_id: projectId,
        slug,
        ...configColumns(c),
        status: 'new',
        last_checkin_at: null,
        deadline_at: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(['project_id', 'slug']).doUpdateSet({ ...configColumns(c), updated_at: now }),
      )
      .execute();
    return (await this.bySlug(projectId, slug, trx))!;
  }

  async setState(
    trx: Queryable,
    id: number,
    s: { status?: MonitorStatus; lastCheckInAt?: string; deadlineAt?: string | null },
    now: string,
  ): Promise<void> {
    await trx
      .updateTable('cron_monitors')
      .set({
        ...(s.status !== undefined && { status: s.status }),
        ...(s.lastCheckInAt !== undefined && { last_checkin_at: s.lastCheckInAt }),
        ...(s.deadlineAt !== undefined && { deadline_at: s.deadlineAt }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Moves a monitor's deadline on only if it is still `deadline`: of two runs of one deadline's job (two
   * processes, or a run again after a crash), exactly one sees the deadline it was scheduled for.
   */
  async passDeadline(
    trx: Queryable,
    id: number,
    deadline: string,
    next: string,
    status: MonitorStatus,
    now: string,
  ): Promise<boolean> {
    const r = await trx
      .updateTable('cron_monitors')
      .set({ deadline_at: next, status, updated_at: now })
      .where('id', '=', id)
      .where('deadline_at', '=', deadline)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async checkIn(trx: Queryable, monitorId: number, checkInId: string): Promise<CheckIn | null> {
    const r = await trx
      .selectFrom('cron_checkins')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .where('check_in_id', '=', checkInId)
      .executeTakeFirst();
    return r ? toCheckIn(r) : null;
  }

  /** The monitor's newest check-in that is still in progress, if any. */
  async latestInProgress(trx: Queryable, monitorId: number): Promise<CheckIn | null> {
    const r = await trx
      .selectFrom('cron_checkins')
      .selectAll()
      .where('monitor_id', '=', monitorId)
      .where('status', '=', 'in_progress')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r ? toCheckIn(r) : null;
  }

  /** Every monitor waiting for a deadline, with it. */
  async withDeadline(): Promise<{ id: number; deadline: string }[]> {
    const rows = await this.db
      .selectFrom('cron_monitors')
      .select(['id', 'deadline_at'])
      .where('deadline_at', 'is not', null)
      .execute();
    return rows.map((r) => ({ id: r.id, deadline: readTimestamp(r.deadline_at!) }));
  }

  /** Every run in progress with a timeout, with it. */
  async runsWithTimeout(): Promise<{ id: number; timeoutAt: string }[]> {
    const rows = await this.db
      .selectFrom('cron_checkins')
      .select(['id', 'timeout_at'])
      .where('status', '=', 'in_progress')
      .where('timeout_at', 'is not', null)
      .execute();
    return rows.map((r) => ({ id: r.id, timeoutAt: readTimestamp(r.timeout_at!) }));
  }

  async checkInById(id: number, trx: Queryable = this.db): Promise<CheckIn | null> {
    const r = await trx.selectFrom('cron_checkins').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toCheckIn(r) : null;
  }

  async insertCheckIn(
    trx: Queryable,
    c: {
      monitorId: number;
      checkInId: string;
      status: StoredCheckInStatus;
      environment: string | null;
      duration: number | null;
      timeoutAt: string | null;
    },
    now: string,
  ): Promise<number> {
    const r = await trx
      .insertInto('cron_checkins')
      .values({
        monitor_id: c.monitorId,
        check_in_id: c.checkInId,
        status: c.status,
        environment: c.environment,
        duration: c.duration,
        timeout_at: c.timeoutAt,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return r.id;
  }

  /** Finishes a check-in; with `from`, only if its status is still that (a timeout loses to a finish, once). */
  async finishCheckIn(
    trx: Queryable,
    id: number,
    status: StoredCheckInStatus,
    duration: number | null,
    now: string,
    from?: StoredCheckInStatus,
  ): Promise<boolean> {
    let q = trx
      .updateTable('cron_checkins')
      .set({ status, ...(duration !== null && { duration }), timeout_at: null, updated_at: now })
      .where('id', '=', id);
    if (from !== undefined) q = q.where('status', '=', from);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** The newest check-ins of each monitor (`perMonitor` of each), newest first. */
  async recent(monitorIds: readonly number[], perMonitor: number): Promise<Map<number, CheckIn[]>> {
    const out = new Map<number, CheckIn[]>(monitorIds.map((id) => [id, []]));
    for (const id of monitorIds) {
      const rows = await this.db
        .selectFrom('cron_checkins')
        .selectAll()
        .where('monitor_id', '=', id)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(perMonitor)
        .execute();
      out.set(id, rows.map(toCheckIn));
    }
    return out;
  }
}
