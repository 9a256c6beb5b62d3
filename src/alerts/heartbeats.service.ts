import type { Clock } from '../clock.js';
import { invalidFields } from '../errors.js';
import type { Ingest, IngestUnit } from '../ingest/ingest.js';
import type { JobQueue } from '../jobs/queue.js';
import type { IntegrationType } from './alerts.js';
import type { AlertsRepository } from './alerts.repository.js';
import {
  DEFAULT_WATCHDOG_ALERTNAME,
  HEARTBEAT_MAX_SECONDS,
  HEARTBEAT_MIN_INTERVAL,
  type Heartbeat,
  type HeartbeatConfig,
  heartbeatDeadline,
  heartbeatFingerprint,
  raisedAlert,
} from './heartbeats.js';
import type { HeartbeatsRepository } from './heartbeats.repository.js';
import type { AlertWrite } from './intake.service.js';

const DEADLINE_JOB = 'alert_heartbeat_deadline';
/** One job per deadline: a job run again after a crash, or enqueued by two processes, is one row. */
const deadlineKey = (integrationId: number, at: Date) => `${DEADLINE_JOB}:${integrationId}:${at.getTime()}`;

/** The heartbeat settings as the API takes them (undefined: unchanged; null: none). */
export interface HeartbeatInput {
  readonly intervalSeconds?: unknown;
  readonly graceSeconds?: unknown;
  readonly alertname?: unknown;
}

const seconds = (field: string, v: unknown, min: number): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > HEARTBEAT_MAX_SECONDS)
    throw invalidFields({ [field]: [`must be an integer between ${min} and ${HEARTBEAT_MAX_SECONDS}`] });
  return v;
};

/**
 * Heartbeats: a call to a heartbeat integration's URL (or the Watchdog alert of a Prometheus integration) moves
 * its deadline; a durable job at each deadline opens "Heartbeat missed: <name>" when no call came, through the
 * intake's alert path, and the next call resolves it.
 *
 * Deadlines survive restarts because each is a row of the job queue, due at the deadline, enqueued in the
 * transaction that set it. A job is claimed by one worker of one process at a time (a lease), and what it does
 * is a state transition (up to down) made in the same transaction as the alert: a job run twice (a crash after
 * its commit, a lease lost) finds the state already down and writes nothing.
 */
export class HeartbeatsService {
  constructor(
    private readonly repo: HeartbeatsRepository,
    private readonly alerts: AlertsRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly writes: Ingest,
    /** The intake's alert write (filled once the intake exists: the intake also calls `beat`). */
    private readonly write: () => AlertWrite,
  ) {
    jobs.register(
      DEADLINE_JOB,
      async (job) => {
        const { integrationId } = job.payload as { integrationId: number };
        await this.check(integrationId);
      },
      'urgent',
    );
  }

  forProject(projectId: number): Promise<Heartbeat[]> {
    return this.repo.forProject(projectId);
  }

  /**
   * Checks the settings for an integration of `type`: required for a heartbeat integration, optional for a
   * Prometheus one (its Watchdog), refused for the others; returns null when there are none.
   */
  validate(
    type: IntegrationType,
    input: HeartbeatInput | null | undefined,
    current: Heartbeat | null,
  ): HeartbeatConfig | null | undefined {
    if (input === undefined) {
      if (type === 'heartbeat' && !current)
        throw invalidFields({ heartbeat: ['is required for a heartbeat integration'] });
      return undefined;
    }
    if (input === null) {
      if (type === 'heartbeat') throw invalidFields({ heartbeat: ["can't be blank"] });
      return null;
    }
    if (type !== 'heartbeat' && type !== 'prometheus')
      throw invalidFields({ heartbeat: ['is only for heartbeat and Prometheus integrations'] });
    const interval =
      input.intervalSeconds === undefined && current
        ? current.intervalSeconds
        : seconds('heartbeat.interval_seconds', input.intervalSeconds, HEARTBEAT_MIN_INTERVAL);
    const grace =
      input.graceSeconds === undefined
        ? (current?.graceSeconds ?? 0)
        : seconds('heartbeat.grace_seconds', input.graceSeconds, 0);
    let alertname: string | null = null;
    if (type === 'prometheus') {
      const v = input.alertname ?? current?.alertname ?? DEFAULT_WATCHDOG_ALERTNAME;
      if (typeof v !== 'string' || v.trim() === '' || v.length > 255)
        throw invalidFields({ 'heartbeat.alertname': ['must be a name of 1 to 255 characters'] });
      alertname = v.trim();
    } else if (input.alertname !== undefined && input.alertname !== null) {
      throw invalidFields({ 'heartbeat.alertname': ['is only for Prometheus integrations'] });
    }
    return { intervalSeconds: interval, graceSeconds: grace, alertname };
  }

  /**
   * Stores the settings (null: removes them). A heartbeat that was called keeps its last call; its deadline
   * follows the new interval at once, with a job at the new deadline.
   */
  async configure(projectId: number, integrationId: number, c: HeartbeatConfig | null): Promise<void> {
    if (c === null) {
      await this.repo.delete(integrationId);
      return;
    }
    const now = this.clock.now();
    const current = await this.repo.get(integrationId);
    const deadline =
      current?.lastSeenAt && current.state === 'up'
        ? heartbeatDeadline(new Date(current.lastSeenAt), c)
        : null;
    await this.repo.upsert(projectId, integrationId, c, now.toISOString(), deadline?.toISOString() ?? null);
    if (deadline) await this.schedule(this.jobs, integrationId, deadline);
  }

  /**
   * Makes sure every deadline kept in a row has its job (called when the server starts): jobs are not backed
   * up, so a restored instance has the rows without them. A job already pending keeps its place (same key); one
   * for a deadline already handled finds the row moved on and does nothing.
   */
  async scheduleDeadlines(): Promise<void> {
    for (const h of await this.repo.withDeadline())
      await this.schedule(this.jobs, h.integrationId, new Date(h.deadlineAt!));
  }

  private async schedule(
    q: Pick<JobQueue, 'enqueue'>,
    integrationId: number,
    at: Date,
    trx?: IngestUnit['trx'],
  ): Promise<void> {
    await q.enqueue(
      DEADLINE_JOB,
      { integrationId },
      { runAt: at, uniqueKey: deadlineKey(integrationId, at), trx },
    );
  }

  /**
   * A call arrived (inside the intake's transaction): the deadline moves; a heartbeat that was down comes up and
   * its alert resolves; one that was waiting or down gets its deadline job (an up heartbeat's job finds the
   * moved deadline and schedules the next).
   */
  async beat(unit: IngestUnit, projectId: number, integrationId: number, name: string) {
    const hb = await this.repo.get(integrationId, unit.trx);
    if (!hb) return null;
    const now = this.clock.now();
    const at = now.toISOString();
    const deadline = heartbeatDeadline(now, hb);
    const wasDown = await this.repo.transition(unit.trx, integrationId, 'down', 'up', at);
    const wasWaiting = !wasDown && (await this.repo.transition(unit.trx, integrationId, 'waiting', 'up', at));
    await this.repo.seen(unit.trx, integrationId, at, deadline.toISOString());
    if (wasDown || wasWaiting) await this.schedule(this.jobs, integrationId, deadline, unit.trx);
    if (!wasDown) return null;
    return this.write()(unit, projectId, integrationId, this.missedAlert(hb, name, now, true), 'Heartbeat');
  }

  private missedAlert(hb: Heartbeat, name: string, at: Date, resolves: boolean) {
    return raisedAlert({
      title: `Heartbeat missed: ${name}`,
      description: `No call arrived within ${hb.intervalSeconds} seconds plus a grace period of ${hb.graceSeconds} seconds${
        hb.lastSeenAt ? ` (last call at ${hb.lastSeenAt})` : ''
      }.`,
      fingerprint: heartbeatFingerprint(hb.integrationId),
      monitoringTool: 'Heartbeat',
      resolves,
      at,
      payload: {
        heartbeat: name,
        interval_seconds: hb.intervalSeconds,
        grace_seconds: hb.graceSeconds,
        last_seen_at: hb.lastSeenAt,
        ...(hb.alertname && { alertname: hb.alertname }),
      },
    });
  }

  /** The deadline job: opens the missed alert when the deadline passed without a call, else waits for the next. */
  async check(integrationId: number): Promise<void> {
    // Read before the transaction: on SQLite a read beside an open transaction would wait for it.
    const found = await this.repo.get(integrationId);
    const integration = found && (await this.alerts.integration(found.projectId, integrationId));
    await this.writes.submit(async (unit) => {
      const hb = await this.repo.get(integrationId, unit.trx);
      if (!hb || hb.state !== 'up' || !hb.deadlineAt) return;
      const now = this.clock.now();
      const deadline = new Date(hb.deadlineAt);
      if (deadline > now) {
        // A call moved the deadline: the next check is at the new one.
        await this.schedule(this.jobs, integrationId, deadline, unit.trx);
        return;
      }
      if (!(await this.repo.transition(unit.trx, integrationId, 'up', 'down', now.toISOString()))) return;
      // An inactive integration takes no calls, so its silence means nothing: it waits for a call again.
      if (!integration?.active) {
        await this.repo.transition(unit.trx, integrationId, 'up', 'waiting', now.toISOString());
        return;
      }
      await this.write()(
        unit,
        hb.projectId,
        integrationId,
        this.missedAlert(hb, integration.name, now, false),
        'Heartbeat',
      );
    });
  }
}
