import { randomUUID } from 'node:crypto';
import { raisedAlert } from '../alerts/heartbeats.js';
import type { AlertWrite } from '../alerts/intake.service.js';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import type { Ingest, IngestUnit } from '../ingest/ingest.js';
import type { JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { User } from '../users/users.js';
import type { ErrorTrackingService } from './error-tracking.service.js';
import {
  type CheckIn,
  CheckInError,
  type CheckInItem,
  type Monitor,
  missedDeadline,
  monitorFingerprint,
  NIL_CHECK_IN,
  parseCheckIn,
  timeoutAt,
} from './monitors.js';
import type { MonitorsRepository } from './monitors.repository.js';

const DEADLINE_JOB = 'cron_monitor_deadline';
const TIMEOUT_JOB = 'cron_checkin_timeout';

/** A monitor with its newest check-ins, newest first. */
export interface MonitorView extends Monitor {
  readonly checkIns: readonly CheckIn[];
}

type Failure = 'error' | 'missed' | 'timeout';
const FAILURE_TITLE: Record<Failure, string> = {
  error: 'failed',
  missed: 'missed a check-in',
  timeout: 'exceeded its maximum runtime',
};

/**
 * Sentry cron monitors: the SDKs' check-ins upsert monitors and record runs; an `error` check-in, a missed
 * check-in (none by the schedule's next time plus the margin) and a run past `max_runtime` open an alert in the
 * project (monitoring tool "Cron monitor", through the alert intake's one path: incident, notifications,
 * escalation, silences), which the monitor's next `ok` resolves.
 *
 * Each deadline (a monitor's next check-in, a run's timeout) is a durable job due then, enqueued in the
 * transaction that set it, so deadlines survive restarts. Its effect is a conditional update in the alert's
 * transaction (the deadline is still the one the job was for; the run is still in progress), so a job run twice
 * or by two processes opens one alert.
 */
export class MonitorsService {
  constructor(
    private readonly repo: MonitorsRepository,
    private readonly errorTracking: Pick<ErrorTrackingService, 'project'>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly writes: Ingest,
    private readonly alerts: AlertWrite,
  ) {
    jobs.register(
      DEADLINE_JOB,
      async (job) => {
        const p = job.payload as { monitorId: number; deadline: string };
        await this.deadlinePassed(p.monitorId, p.deadline);
      },
      'urgent',
    );
    jobs.register(
      TIMEOUT_JOB,
      async (job) => {
        await this.runTimedOut((job.payload as { checkInId: number }).checkInId);
      },
      'urgent',
    );
  }

  /**
   * Records the `check_in` items of an envelope (parsed JSON). Invalid items, and check-ins of a monitor that
   * does not exist and carry no `monitor_config` to create it, are dropped (as Sentry's relay does); their
   * reasons are returned.
   */
  async record(projectId: number, items: readonly unknown[], strict = false): Promise<string[]> {
    const dropped: string[] = [];
    for (const raw of items) {
      let item: CheckInItem;
      try {
        item = parseCheckIn(raw);
      } catch (err) {
        if (!(err instanceof CheckInError) || strict) throw err;
        dropped.push(err.message);
        continue;
      }
      const problem = await this.writes.submit((unit) => this.checkIn(unit, projectId, item));
      if (problem && strict) throw new CheckInError(problem);
      if (problem) dropped.push(problem);
    }
    return dropped;
  }

  private async checkIn(unit: IngestUnit, projectId: number, item: CheckInItem): Promise<string | null> {
    const { trx } = unit;
    const now = this.clock.now();
    const at = now.toISOString();
    const monitor = item.config
      ? await this.repo.upsert(trx, projectId, item.monitorSlug, item.config, at)
      : await this.repo.bySlug(projectId, item.monitorSlug, trx);
    if (!monitor) return `no monitor ${item.monitorSlug}, and no monitor_config to create it`;
    const nil = item.checkInId === NIL_CHECK_IN;
    const existing = nil
      ? item.status === 'in_progress'
        ? null
        : await this.repo.latestInProgress(trx, monitor.id)
      : await this.repo.checkIn(trx, monitor.id, item.checkInId);
    if (existing) {
      // The end of a run that checked in as in_progress (a repeated in_progress changes nothing).
      if (item.status === 'in_progress') return null;
      const duration = item.duration ?? (now.getTime() - Date.parse(existing.createdAt)) / 1000;
      await this.repo.finishCheckIn(trx, existing.id, item.status, duration, at);
    } else {
      const timeout = item.status === 'in_progress' ? timeoutAt(monitor.config, now) : null;
      const id = await this.repo.insertCheckIn(
        trx,
        {
          monitorId: monitor.id,
          checkInId: nil ? randomUUID().replace(/-/g, '') : item.checkInId,
          status: item.status,
          environment: item.environment,
          duration: item.duration,
          timeoutAt: timeout?.toISOString() ?? null,
        },
        at,
      );
      if (timeout) await this.scheduleTimeout(trx, id, timeout);
      // A run began: the next one is due by the schedule after it.
      if (monitor.config) {
        const deadline = missedDeadline(monitor.config, now);
        await this.repo.setState(
          trx,
          monitor.id,
          { lastCheckInAt: at, deadlineAt: deadline.toISOString() },
          at,
        );
        await this.scheduleDeadline(unit, monitor.id, deadline);
      } else {
        await this.repo.setState(trx, monitor.id, { lastCheckInAt: at }, at);
      }
    }
    await this.repo.setState(trx, monitor.id, { status: item.status }, at);
    if (item.status === 'error') await this.alert(unit, monitor, 'error', now, item.environment);
    if (item.status === 'ok') await this.alert(unit, monitor, null, now, item.environment);
    return null;
  }

  private async scheduleDeadline(
    unit: Pick<IngestUnit, 'trx'> | null,
    monitorId: number,
    deadline: Date,
  ): Promise<void> {
    const iso = deadline.toISOString();
    await this.jobs.enqueue(
      DEADLINE_JOB,
      { monitorId, deadline: iso },
      { runAt: deadline, uniqueKey: `${DEADLINE_JOB}:${monitorId}:${deadline.getTime()}`, trx: unit?.trx },
    );
  }

  private async scheduleTimeout(
    trx: IngestUnit['trx'] | undefined,
    checkInId: number,
    at: Date,
  ): Promise<void> {
    await this.jobs.enqueue(
      TIMEOUT_JOB,
      { checkInId },
      { runAt: at, uniqueKey: `${TIMEOUT_JOB}:${checkInId}`, trx },
    );
  }

  /**
   * Makes sure every deadline and run timeout kept in a row has its job (called when the server starts): jobs
   * are not backed up, so a restored instance has the rows without them. A pending job keeps its place (same
   * key); one for a deadline already handled finds the row moved on and does nothing.
   */
  async scheduleDeadlines(): Promise<void> {
    for (const m of await this.repo.withDeadline())
      await this.scheduleDeadline(null, m.id, new Date(m.deadline));
    for (const r of await this.repo.runsWithTimeout())
      await this.scheduleTimeout(undefined, r.id, new Date(r.timeoutAt));
  }

  /** Opens (or repeats) the monitor's alert for a failure; with null, resolves it. */
  private async alert(
    unit: IngestUnit,
    m: Monitor,
    failure: Failure | null,
    now: Date,
    environment: string | null,
  ): Promise<void> {
    const title = `Cron monitor ${m.slug} ${FAILURE_TITLE[failure ?? 'error']}`;
    const schedule = m.config
      ? m.config.schedule.type === 'crontab'
        ? `${m.config.schedule.value}${m.config.timezone ? ` (${m.config.timezone})` : ''}`
        : `every ${m.config.schedule.value} ${m.config.schedule.unit}(s)`
      : null;
    await this.alerts(
      unit,
      m.projectId,
      null,
      raisedAlert({
        title,
        description: `The cron monitor ${m.slug}${schedule ? `, scheduled ${schedule},` : ''} ${FAILURE_TITLE[failure ?? 'error']}.`,
        fingerprint: monitorFingerprint(m.id),
        monitoringTool: 'Cron monitor',
        service: m.slug,
        environment,
        resolves: failure === null,
        at: now,
        payload: { monitor_slug: m.slug, reason: failure, schedule },
      }),
      'Cron monitor',
    );
  }

  /** A monitor's deadline job: no check-in came in time (the deadline is still the job's): a missed check-in. */
  async deadlinePassed(monitorId: number, deadline: string): Promise<void> {
    // Read before the transaction: on SQLite a read beside an open transaction would wait for it.
    const monitor = await this.repo.byId(monitorId);
    if (!monitor?.config || monitor.deadlineAt !== deadline) return;
    const config = monitor.config;
    await this.writes.submit(async (unit) => {
      const now = this.clock.now();
      const at = now.toISOString();
      const next = missedDeadline(config, now);
      if (!(await this.repo.passDeadline(unit.trx, monitorId, deadline, next.toISOString(), 'missed', at)))
        return;
      await this.repo.insertCheckIn(
        unit.trx,
        {
          monitorId,
          checkInId: randomUUID().replace(/-/g, ''),
          status: 'missed',
          environment: null,
          duration: null,
          timeoutAt: null,
        },
        at,
      );
      // Still nothing by the next time: missed again (the open alert counts it).
      await this.scheduleDeadline(unit, monitorId, next);
      await this.alert(unit, monitor, 'missed', now, null);
    });
  }

  /** A run's timeout job: still in progress past max_runtime: it timed out. */
  async runTimedOut(checkInId: number): Promise<void> {
    const checkIn = await this.repo.checkInById(checkInId);
    const monitor = checkIn && (await this.repo.byId(checkIn.monitorId));
    if (!checkIn || !monitor || checkIn.status !== 'in_progress') return;
    await this.writes.submit(async (unit) => {
      const now = this.clock.now();
      const at = now.toISOString();
      if (!(await this.repo.finishCheckIn(unit.trx, checkInId, 'timeout', null, at, 'in_progress'))) return;
      await this.repo.setState(unit.trx, monitor.id, { status: 'timeout' }, at);
      await this.alert(unit, monitor, 'timeout', now, checkIn.environment);
    });
  }

  /** The project's monitors with their last few check-ins (Reporter). */
  async list(actor: User | null, idOrPath: string, recent = 5): Promise<MonitorView[]> {
    const project = await this.errorTracking.project(actor, idOrPath, AccessLevel.Reporter);
    const monitors = await this.repo.list(project.id);
    const checkIns = await this.repo.recent(
      monitors.map((m) => m.id),
      recent,
    );
    return monitors.map((m) => ({ ...m, checkIns: checkIns.get(m.id) ?? [] }));
  }

  /** One monitor by slug with its recent check-ins (Reporter). */
  async get(actor: User | null, idOrPath: string, slug: string, recent = 50): Promise<MonitorView> {
    const project = await this.errorTracking.project(actor, idOrPath, AccessLevel.Reporter);
    const monitor = await this.repo.bySlug(project.id, slug);
    if (!monitor) throw notFound('Monitor');
    const checkIns = await this.repo.recent([monitor.id], recent);
    return { ...monitor, checkIns: checkIns.get(monitor.id) ?? [] };
  }
}
