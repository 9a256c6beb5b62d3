import { CronExpressionParser } from 'cron-parser';

/**
 * Cron monitors (Sentry Crons): the `check_in` items the SDKs send, the monitors they upsert, and when the next
 * check-in is due. Times in minutes are Sentry's (`checkin_margin`, `max_runtime`).
 */

export type CheckInStatus = 'in_progress' | 'ok' | 'error';
/** A stored check-in's status: the SDK's, or what svc decided (missed: none came; timeout: past max_runtime). */
export type StoredCheckInStatus = CheckInStatus | 'missed' | 'timeout';
/** A monitor's status: its last outcome (new: no check-in finished yet). */
export type MonitorStatus = 'new' | 'in_progress' | 'ok' | 'error' | 'missed' | 'timeout';

export const INTERVAL_UNITS = ['minute', 'hour', 'day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

export type MonitorSchedule =
  | { readonly type: 'crontab'; readonly value: string }
  | { readonly type: 'interval'; readonly value: number; readonly unit: IntervalUnit };

export interface MonitorConfig {
  readonly schedule: MonitorSchedule;
  /** Minutes after the expected time before a check-in counts as missed (Sentry's default: 1). */
  readonly checkinMargin: number | null;
  /** Minutes an in_progress check-in may run before it times out (Sentry's default: 30). */
  readonly maxRuntime: number | null;
  /** tz database name the crontab is read in (UTC by default). */
  readonly timezone: string | null;
}

/** One check-in as an SDK sent it, validated. */
export interface CheckInItem {
  readonly checkInId: string;
  readonly monitorSlug: string;
  readonly status: CheckInStatus;
  /** Seconds. */
  readonly duration: number | null;
  readonly environment: string | null;
  readonly config: MonitorConfig | null;
}

export interface Monitor {
  readonly id: number;
  readonly projectId: number;
  readonly slug: string;
  readonly config: MonitorConfig | null;
  readonly status: MonitorStatus;
  readonly lastCheckInAt: string | null;
  /** When the next check-in is due at the latest (the schedule's next time plus the margin). */
  readonly deadlineAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface CheckIn {
  readonly id: number;
  readonly monitorId: number;
  readonly checkInId: string;
  readonly status: StoredCheckInStatus;
  readonly environment: string | null;
  readonly duration: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const DEFAULT_CHECKIN_MARGIN = 1;
export const DEFAULT_MAX_RUNTIME = 30;
/** Sentry's bounds: slugs of at most 50 characters; margins and runtimes up to 28 days in minutes. */
export const MAX_SLUG = 50;
const MAX_MINUTES = 40_320;

/** A check-in item that cannot be stored (it is dropped, as Sentry's relay drops invalid items). */
export class CheckInError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function minutes(o: Record<string, unknown>, key: string): number | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_MINUTES)
    throw new CheckInError(`monitor_config.${key} must be a whole number of minutes up to ${MAX_MINUTES}`);
  return v;
}

/** Whether `tz` is a time zone this runtime knows. */
function knownZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Validates `monitor_config`: a crontab cron-parser reads, or an interval of whole units; a known time zone. */
export function parseMonitorConfig(raw: unknown): MonitorConfig {
  if (!isObject(raw)) throw new CheckInError('monitor_config must be an object');
  const s = raw.schedule;
  if (!isObject(s)) throw new CheckInError('monitor_config.schedule must be an object');
  let schedule: MonitorSchedule;
  if (s.type === 'crontab') {
    if (typeof s.value !== 'string' || s.value.length > 100)
      throw new CheckInError('monitor_config.schedule.value must be a crontab expression');
    try {
      CronExpressionParser.parse(s.value, { strict: false });
    } catch (err) {
      throw new CheckInError(`monitor_config.schedule.value is not a crontab: ${(err as Error).message}`);
    }
    schedule = { type: 'crontab', value: s.value.trim() };
  } else if (s.type === 'interval') {
    if (typeof s.value !== 'number' || !Number.isInteger(s.value) || s.value < 1 || s.value > 10_000)
      throw new CheckInError('monitor_config.schedule.value must be a whole number of units');
    if (!INTERVAL_UNITS.includes(s.unit as IntervalUnit))
      throw new CheckInError(`monitor_config.schedule.unit must be one of ${INTERVAL_UNITS.join(', ')}`);
    schedule = { type: 'interval', value: s.value, unit: s.unit as IntervalUnit };
  } else {
    throw new CheckInError('monitor_config.schedule.type must be crontab or interval');
  }
  const tz = raw.timezone;
  if (tz !== undefined && tz !== null && (typeof tz !== 'string' || !knownZone(tz)))
    throw new CheckInError('monitor_config.timezone is not a known time zone');
  return {
    schedule,
    checkinMargin: minutes(raw, 'checkin_margin'),
    maxRuntime: minutes(raw, 'max_runtime'),
    timezone: typeof tz === 'string' ? tz : null,
  };
}

/** The nil UUID as a check_in_id: "the latest in_progress check-in of the monitor, else a new one". */
export const NIL_CHECK_IN = '00000000000000000000000000000000';

const STATUSES = new Set<CheckInStatus>(['in_progress', 'ok', 'error']);

/** Validates one `check_in` item (Sentry's check-in protocol); a CheckInError names what is wrong. */
export function parseCheckIn(raw: unknown): CheckInItem {
  if (!isObject(raw)) throw new CheckInError('a check-in must be an object');
  const slug = raw.monitor_slug;
  if (typeof slug !== 'string' || slug.trim() === '' || slug.length > MAX_SLUG)
    throw new CheckInError(`monitor_slug must be 1 to ${MAX_SLUG} characters`);
  const status = raw.status;
  if (typeof status !== 'string' || !STATUSES.has(status as CheckInStatus))
    throw new CheckInError('status must be in_progress, ok or error');
  // Absent (the HTTP endpoint's curl) or the nil UUID: the monitor's latest in_progress run (Sentry's rule).
  const id = raw.check_in_id ?? NIL_CHECK_IN;
  if (typeof id !== 'string' || !/^[0-9a-fA-F-]{32,36}$/.test(id))
    throw new CheckInError('check_in_id must be a UUID');
  const duration = raw.duration;
  if (
    duration !== undefined &&
    duration !== null &&
    (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0)
  )
    throw new CheckInError('duration must be a non-negative number of seconds');
  const env = raw.environment;
  if (env !== undefined && env !== null && (typeof env !== 'string' || env.length > 64))
    throw new CheckInError('environment must be at most 64 characters');
  return {
    checkInId: id.replace(/-/g, '').toLowerCase(),
    monitorSlug: slug.trim(),
    status: status as CheckInStatus,
    duration: typeof duration === 'number' ? duration : null,
    environment: typeof env === 'string' && env !== '' ? env : null,
    config:
      raw.monitor_config === undefined || raw.monitor_config === null
        ? null
        : parseMonitorConfig(raw.monitor_config),
  };
}

/** The schedule's next time strictly after `after` (crontabs in the monitor's time zone, by cron-parser). */
export function nextScheduled(c: MonitorConfig, after: Date): Date {
  if (c.schedule.type === 'crontab') {
    return CronExpressionParser.parse(c.schedule.value, {
      currentDate: after,
      tz: c.timezone ?? 'UTC',
      strict: false,
    })
      .next()
      .toDate();
  }
  const d = new Date(after.getTime());
  const n = c.schedule.value;
  switch (c.schedule.unit) {
    case 'minute':
      return new Date(d.getTime() + n * 60_000);
    case 'hour':
      return new Date(d.getTime() + n * 3_600_000);
    case 'day':
      return new Date(d.getTime() + n * 86_400_000);
    case 'week':
      return new Date(d.getTime() + n * 7 * 86_400_000);
    case 'month':
      d.setUTCMonth(d.getUTCMonth() + n);
      return d;
    case 'year':
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return d;
  }
}

/** When a check-in is missed at the latest: the next scheduled time after `after`, plus the margin. */
export function missedDeadline(c: MonitorConfig, after: Date): Date {
  return new Date(nextScheduled(c, after).getTime() + (c.checkinMargin ?? DEFAULT_CHECKIN_MARGIN) * 60_000);
}

/** When an in_progress check-in started at `at` times out. */
export function timeoutAt(c: MonitorConfig | null, at: Date): Date {
  return new Date(at.getTime() + (c?.maxRuntime ?? DEFAULT_MAX_RUNTIME) * 60_000);
}

/** The fingerprint of a monitor's alert: one open alert per monitor, resolved by its next `ok`. */
export const monitorFingerprint = (monitorId: number) => `svc-cron-monitor:${monitorId}`;
