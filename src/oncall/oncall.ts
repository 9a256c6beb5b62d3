/**
 * On-call schedules (GitLab Premium and Ultimate): domain types and the pure computation of shifts and of
 * who is on call at an instant. Times are instants (epoch milliseconds or ISO strings); a schedule's IANA timezone
 * gives the calendar that day- and week-long shifts and the daily active hours follow. Only `Intl` is used.
 */

export const LENGTH_UNITS = ['hours', 'days', 'weeks'] as const;
export type LengthUnit = (typeof LENGTH_UNITS)[number];

/** GitLab's limits: a rotation's length is 1 to 1000 units; at most 100 participants; names up to 200 characters. */
export const MAX_LENGTH = 1000;
export const MAX_PARTICIPANTS = 100;
export const MAX_NAME = 200;
export const MAX_DESCRIPTION = 1000;
/** The longest window `GET .../shifts` lists. */
export const MAX_SHIFTS_WINDOW_DAYS = 31;
/**
 * The most rotations a schedule may have: who is on call and the shifts are computed over all of them, so the
 * number bounds what one request costs.
 */
export const MAX_ROTATIONS = 50;

/** The longest override, in days. */
export const MAX_OVERRIDE_DAYS = 31;
/**
 * The most overrides a schedule may have that have not ended: who is on call and the shifts resolve the overrides
 * near their window against each other, so the number bounds what one request costs.
 */
export const MAX_OPEN_OVERRIDES = 1000;

/** Daily active hours, "HH:MM" local times in the schedule's timezone; an end before the start runs overnight. */
export interface ActivePeriod {
  readonly startTime: string;
  readonly endTime: string;
}

/** Whom a schedule (or an escalation policy) belongs to: a project, or a group and so every project below it. */
export interface ScheduleOwner {
  readonly type: 'project' | 'group';
  readonly id: number;
}

export interface OncallSchedule {
  readonly id: number;
  /** The owner: a project or a group (exactly one of the two is set). */
  readonly projectId: number | null;
  readonly groupId: number | null;
  readonly iid: number;
  readonly name: string;
  readonly description: string | null;
  /** An IANA zone name (`Europe/Berlin`). */
  readonly timezone: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * An override: one user on call for [startsAt, endsAt) across the whole schedule, in place of whatever its rotations
 * say. Where overrides overlap, the one created last (the highest id) wins for the overlap.
 */
export interface OverrideRecord {
  readonly id: number;
  readonly scheduleId: number;
  readonly userId: number;
  /** ISO instants. */
  readonly startsAt: string;
  readonly endsAt: string;
  readonly createdById: number | null;
  readonly createdAt: string;
}

/** The part of the schedule an override holds once newer overrides have taken theirs: [startsAt, endsAt). */
export interface OverrideSpan {
  readonly overrideId: number;
  readonly userId: number;
  readonly startsAt: number;
  readonly endsAt: number;
}

/** A participant as stored: a user and the order of their shifts (from 0). */
export interface ParticipantRecord {
  readonly userId: number;
  readonly position: number;
}

export interface RotationRecord {
  readonly id: number;
  readonly scheduleId: number;
  readonly name: string;
  /** ISO instants. */
  readonly startsAt: string;
  readonly endsAt: string | null;
  readonly length: number;
  readonly lengthUnit: LengthUnit;
  readonly activePeriod: ActivePeriod | null;
  /** Ordered by position. */
  readonly participants: readonly ParticipantRecord[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What the computation needs of a rotation. */
export type RotationSpec = Pick<
  RotationRecord,
  'id' | 'startsAt' | 'endsAt' | 'length' | 'lengthUnit' | 'activePeriod' | 'participants'
>;

/** One shift: a participant on call from `startsAt` (inclusive) to `endsAt` (exclusive), epoch milliseconds. */
export interface Shift {
  readonly rotationId: number;
  readonly userId: number;
  readonly position: number;
  readonly startsAt: number;
  readonly endsAt: number;
}

// Time zones --------------------------------------------------------------------------------------------------

/** A local wall time (month 1-12). */
export interface LocalDateTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The canonical name of an IANA zone (`europe/berlin` becomes `Europe/Berlin`), or null when `Intl` does not know
 * it. Offsets (`+01:00`) and abbreviations (`CET` aside, which IANA itself lists) are not zones of a schedule.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name) || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The wall time in `timeZone` at the instant `ms`. */
export function toLocal(ms: number, timeZone: string): LocalDateTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  const year = Number(parts.year);
  return {
    year: parts.era === 'BC' ? 1 - year : year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    millisecond: ((ms % 1000) + 1000) % 1000,
  };
}

function wallMs(l: LocalDateTime): number {
  const d = new Date(0);
  d.setUTCFullYear(l.year, l.month - 1, l.day);
  d.setUTCHours(l.hour, l.minute, l.second, l.millisecond);
  return d.getTime();
}

/** The zone's offset from UTC at the instant `ms`, in milliseconds (Berlin in winter: +3600000). */
export function offsetAt(ms: number, timeZone: string): number {
  return wallMs(toLocal(ms, timeZone)) - ms;
}

/**
 * The instant of a local wall time in `timeZone`. A time that occurs twice (the hour repeated when clocks go back)
 * is the earlier instant; a time that does not occur (skipped when clocks go forward) is moved forward by the gap
 * (02:30 on a day Berlin jumps from 02:00 to 03:00 is 03:30), as Temporal's `compatible` disambiguation.
 */
export function fromLocal(local: LocalDateTime, timeZone: string): number {
  const wall = wallMs(local);
  const before = offsetAt(wall - 86_400_000, timeZone);
  const after = offsetAt(wall + 86_400_000, timeZone);
  const valid = [...new Set([before, after])]
    .map((o) => wall - o)
    .filter((t) => offsetAt(t, timeZone) === wall - t)
    .sort((a, b) => a - b);
  return valid[0] ?? wall - before;
}

/** The local wall time `days` calendar days later (the same clock time). */
export function addDays(local: LocalDateTime, days: number): LocalDateTime {
  const d = new Date(0);
  d.setUTCFullYear(local.year, local.month - 1, local.day + days);
  return {
    ...local,
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
  };
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** ISO 8601 with the zone's offset at that instant (`2026-03-29T09:00:00+02:00`): the local wall time, unambiguous. */
export function formatInZone(ms: number, timeZone: string): string {
  const l = toLocal(ms, timeZone);
  const offsetMinutes = Math.round(offsetAt(ms, timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const frac = l.millisecond ? `.${pad(l.millisecond, 3)}` : '';
  return (
    `${pad(l.year, 4)}-${pad(l.month)}-${pad(l.day)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}${frac}` +
    `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`
  );
}

const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parses a rotation's start or end: an ISO 8601 instant with an offset or `Z` (`2026-03-01T09:00:00+01:00`), or a
 * local date and time without one (`2026-03-01T09:00`, `2026-03-01`), read as wall time in the schedule's
 * timezone. Null when it is neither, or names a day that does not exist.
 */
export function parseTime(value: string, timeZone: string): number | null {
  // A `+` left unencoded in a query string arrives as a space (`?at=2026-03-29T09:00:00+02:00` from curl).
  const v = value
    .trim()
    .replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$/, '$1+$2');
  if (WITH_OFFSET.test(v)) {
    const ms = Date.parse(v.replace(' ', 'T'));
    return Number.isNaN(ms) ? null : ms;
  }
  const m = LOCAL_TIME.exec(v);
  if (!m) return null;
  const local: LocalDateTime = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
    millisecond: Number((m[7] ?? '0').padEnd(3, '0')),
  };
  const check = addDays(local, 0);
  if (check.month !== local.month || check.day !== local.day || local.hour > 23 || local.minute > 59)
    return null;
  if (local.second > 59) return null;
  return fromLocal(local, timeZone);
}

/** Minutes after midnight of an "HH:MM" time (00:00 to 23:59), or null. */
export function parseTimeOfDay(value: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/**
 * The active hours' times after a schedule moves from one timezone to another, such that they keep naming the same
 * instants as they do at `at` (GitLab converts them the same way when a schedule's timezone changes).
 */
export function convertActivePeriod(
  period: ActivePeriod,
  from: string,
  to: string,
  at: number,
): ActivePeriod {
  const shift = (hhmm: string) => {
    const minutes = parseTimeOfDay(hhmm) ?? 0;
    const day = toLocal(at, from);
    const instant = fromLocal(
      { ...day, hour: Math.floor(minutes / 60), minute: minutes % 60, second: 0, millisecond: 0 },
      from,
    );
    const l = toLocal(instant, to);
    return `${pad(l.hour)}:${pad(l.minute)}`;
  };
  return { startTime: shift(period.startTime), endTime: shift(period.endTime) };
}

// Shifts -------------------------------------------------------------------------------------------------------

const HOUR = 3_600_000;
const DAY = 86_400_000;

function unitDays(rotation: Pick<RotationSpec, 'length' | 'lengthUnit'>): number {
  return rotation.lengthUnit === 'weeks' ? rotation.length * 7 : rotation.length;
}

/**
 * The start of the rotation's `k`-th shift cycle (k from 0). Hours are exact elapsed time; days and weeks are
 * calendar days in the timezone, so a cycle starts at the same local clock time every day (a daily shift across a
 * DST change lasts 23 or 25 hours).
 */
export function cycleStart(rotation: RotationSpec, timeZone: string, k: number): number {
  const start = Date.parse(rotation.startsAt);
  if (k === 0) return start;
  if (rotation.lengthUnit === 'hours') return start + k * rotation.length * HOUR;
  return fromLocal(addDays(toLocal(start, timeZone), k * unitDays(rotation)), timeZone);
}

/** The index of the cycle containing the instant `t` (negative before the start). */
export function cycleIndex(rotation: RotationSpec, timeZone: string, t: number): number {
  const start = Date.parse(rotation.startsAt);
  const nominal = rotation.lengthUnit === 'hours' ? rotation.length * HOUR : unitDays(rotation) * DAY;
  let k = Math.floor((t - start) / nominal);
  while (cycleStart(rotation, timeZone, k) > t) k--;
  while (cycleStart(rotation, timeZone, k + 1) <= t) k++;
  return k;
}

/** The part of [start, end) within the daily active hours: one piece per day (overnight pieces cross midnight). */
function activePieces(
  start: number,
  end: number,
  period: ActivePeriod,
  timeZone: string,
): [number, number][] {
  const from = parseTimeOfDay(period.startTime) ?? 0;
  const to = parseTimeOfDay(period.endTime) ?? 0;
  const at = (day: LocalDateTime, minutes: number) =>
    fromLocal(
      { ...day, hour: Math.floor(minutes / 60), minute: minutes % 60, second: 0, millisecond: 0 },
      timeZone,
    );
  const pieces: [number, number][] = [];
  // From the day before the cycle's first day: that day's overnight window may reach into the cycle.
  let day = addDays(toLocal(start, timeZone), -1);
  const last = toLocal(end, timeZone);
  const lastKey = last.year * 10_000 + last.month * 100 + last.day;
  while (day.year * 10_000 + day.month * 100 + day.day <= lastKey) {
    const windowStart = at(day, from);
    const windowEnd = at(to > from ? day : addDays(day, 1), to);
    const s = Math.max(windowStart, start);
    const e = Math.min(windowEnd, end);
    if (s < e) pieces.push([s, e]);
    day = addDays(day, 1);
  }
  return pieces;
}

/**
 * The rotation's shifts that overlap [from, to), in order: participant `k mod n` takes cycle k; a cycle is cut at the
 * rotation's end, and with active hours it is split into the daily active pieces. Shifts are not cut at `from` or
 * `to`.
 */
export function rotationShifts(rotation: RotationSpec, timeZone: string, from: number, to: number): Shift[] {
  return [...eachRotationShift(rotation, timeZone, from, to)];
}

/** `rotationShifts` one at a time, computed as they are taken. */
export function* eachRotationShift(
  rotation: RotationSpec,
  timeZone: string,
  from: number,
  to: number,
): Generator<Shift> {
  const people = [...rotation.participants].sort((a, b) => a.position - b.position);
  const start = Date.parse(rotation.startsAt);
  const end = rotation.endsAt === null ? Number.POSITIVE_INFINITY : Date.parse(rotation.endsAt);
  const lo = Math.max(from, start);
  const hi = Math.min(to, end);
  if (people.length === 0 || lo >= hi) return;
  for (let k = cycleIndex(rotation, timeZone, lo); ; k++) {
    const cs = cycleStart(rotation, timeZone, k);
    if (cs >= hi) break;
    const ce = Math.min(cycleStart(rotation, timeZone, k + 1), end);
    const who = people[((k % people.length) + people.length) % people.length]!;
    // Active pieces last at most a day: only the part of a long cycle near the window can give one that overlaps it
    // (a piece cut here starts or ends more than a day outside the window, so it is dropped below anyway).
    const pieces: [number, number][] = rotation.activePeriod
      ? activePieces(
          Math.max(cs, from - 2 * DAY),
          Math.min(ce, to + 2 * DAY),
          rotation.activePeriod,
          timeZone,
        )
      : [[cs, ce]];
    for (const [s, e] of pieces)
      if (s < to && e > from)
        yield { rotationId: rotation.id, userId: who.userId, position: who.position, startsAt: s, endsAt: e };
  }
}

/**
 * The shifts of all the rotations that overlap [from, to), by start (then rotation id), computed as they are
 * taken: reading the first n costs about n shifts (and one ahead a rotation), not the whole window's.
 */
export function* eachShift(
  rotations: readonly RotationSpec[],
  timeZone: string,
  from: number,
  to: number,
): Generator<Shift> {
  const streams = rotations.map((r) => eachRotationShift(r, timeZone, from, to));
  const heads = streams.map((g) => g.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (h.done) continue;
      const b = best < 0 ? null : (heads[best]!.value as Shift);
      if (
        !b ||
        h.value.startsAt < b.startsAt ||
        (h.value.startsAt === b.startsAt && h.value.rotationId < b.rotationId)
      )
        best = i;
    }
    if (best < 0) return;
    yield heads[best]!.value as Shift;
    heads[best] = streams[best]!.next();
  }
}

/** The shifts of all rotations that contain the instant `at` (a shift is on call from its start, not at its end). */
export function shiftsAt(rotations: readonly RotationSpec[], timeZone: string, at: number): Shift[] {
  return rotations.flatMap((r) =>
    rotationShifts(r, timeZone, at, at + 1).filter((s) => s.startsAt <= at && at < s.endsAt),
  );
}

/** The users on call at `at`: the union over the rotations, each once, in rotation order. */
export function onCallUserIds(rotations: readonly RotationSpec[], timeZone: string, at: number): number[] {
  return [...new Set(shiftsAt(rotations, timeZone, at).map((s) => s.userId))];
}

// Overrides ----------------------------------------------------------------------------------------------------

/** The override in force at `at`: of those containing it, the one created last; null if none. */
export function overrideAt<O extends Pick<OverrideRecord, 'id' | 'startsAt' | 'endsAt'>>(
  overrides: readonly O[],
  at: number,
): O | null {
  let best: O | null = null;
  for (const o of overrides)
    if (Date.parse(o.startsAt) <= at && at < Date.parse(o.endsAt) && (!best || o.id > best.id)) best = o;
  return best;
}

/**
 * The spans the overrides hold, by start: between any two of their starts and ends the newest override covering it
 * holds the time, and adjacent pieces of the same override join. Overrides are not cut at `from` or `to` (as
 * shifts); only spans overlapping [from, to) are given.
 */
export function overrideSpans(
  overrides: readonly Pick<OverrideRecord, 'id' | 'userId' | 'startsAt' | 'endsAt'>[],
  from: number,
  to: number,
): OverrideSpan[] {
  const ranges = overrides.map((o) => ({ o, s: Date.parse(o.startsAt), e: Date.parse(o.endsAt) }));
  const points = [...new Set(ranges.flatMap((r) => [r.s, r.e]))].sort((a, b) => a - b);
  const spans: OverrideSpan[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const s = points[i]!;
    const e = points[i + 1]!;
    let best: (typeof ranges)[number] | null = null;
    for (const r of ranges) if (r.s <= s && e <= r.e && (!best || r.o.id > best.o.id)) best = r;
    if (!best) continue;
    const last = spans.at(-1);
    if (last && last.overrideId === best.o.id && last.endsAt === s)
      spans[spans.length - 1] = { ...last, endsAt: e };
    else spans.push({ overrideId: best.o.id, userId: best.o.userId, startsAt: s, endsAt: e });
  }
  return spans.filter((sp) => sp.startsAt < to && sp.endsAt > from);
}

/** A shift of the schedule once overrides apply: a rotation's (`overrideId` null) or an override's. */
export interface ScheduleShift {
  readonly rotationId: number | null;
  readonly overrideId: number | null;
  readonly userId: number;
  readonly startsAt: number;
  readonly endsAt: number;
}

/** The parts of [s, e) outside the (sorted, disjoint) spans. */
function uncovered(s: number, e: number, spans: readonly OverrideSpan[]): [number, number][] {
  const out: [number, number][] = [];
  let cursor = s;
  for (const sp of spans) {
    if (sp.endsAt <= cursor) continue;
    if (sp.startsAt >= e) break;
    if (sp.startsAt > cursor) out.push([cursor, sp.startsAt]);
    cursor = Math.max(cursor, sp.endsAt);
    if (cursor >= e) break;
  }
  if (cursor < e) out.push([cursor, e]);
  return out;
}

/**
 * The schedule's shifts overlapping [from, to) by start, overrides applied: the rotations' shifts (`eachShift`) with
 * the spans the overrides hold cut out of them, and those spans as shifts of the overrides' users. Computed as they
 * are taken, as `eachShift`: a rotation shift's pieces start at or after it, so a piece is given once the rotation
 * stream has passed its start.
 */
export function* eachScheduleShift(
  rotations: readonly RotationSpec[],
  spans: readonly OverrideSpan[],
  timeZone: string,
  from: number,
  to: number,
): Generator<ScheduleShift> {
  const pending: ScheduleShift[] = spans.map((sp) => ({
    rotationId: null,
    overrideId: sp.overrideId,
    userId: sp.userId,
    startsAt: sp.startsAt,
    endsAt: sp.endsAt,
  }));
  const before = (a: ScheduleShift, b: ScheduleShift) =>
    a.startsAt - b.startsAt || (a.rotationId ?? -1) - (b.rotationId ?? -1);
  const insert = (x: ScheduleShift) => {
    let i = pending.length;
    while (i > 0 && before(x, pending[i - 1]!) < 0) i--;
    pending.splice(i, 0, x);
  };
  for (const shift of eachShift(rotations, timeZone, from, to)) {
    while (pending.length > 0 && pending[0]!.startsAt <= shift.startsAt) yield pending.shift()!;
    for (const [s, e] of uncovered(shift.startsAt, shift.endsAt, spans))
      if (s < to && e > from)
        insert({
          rotationId: shift.rotationId,
          overrideId: null,
          userId: shift.userId,
          startsAt: s,
          endsAt: e,
        });
  }
  yield* pending;
}
