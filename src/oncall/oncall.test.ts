import { describe, expect, it } from 'vitest';
import {
  addDays,
  canonicalTimeZone,
  convertActivePeriod,
  eachShift,
  formatInZone,
  fromLocal,
  onCallUserIds,
  parseTime,
  parseTimeOfDay,
  type RotationSpec,
  rotationShifts,
  shiftsAt,
  toLocal,
} from './oncall.js';

const BERLIN = 'Europe/Berlin';
const NY = 'America/New_York';
const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

let nextId = 1;
function rotation(r: Partial<RotationSpec> & { users?: number[] }): RotationSpec {
  const { users = [1, 2, 3], ...rest } = r;
  return {
    id: nextId++,
    startsAt: '2026-01-05T08:00:00.000Z',
    endsAt: null,
    length: 1,
    lengthUnit: 'days',
    activePeriod: null,
    participants: users.map((userId, position) => ({ userId, position })),
    ...rest,
  };
}
const who = (rs: RotationSpec[], tz: string, at: string) => onCallUserIds(rs, tz, t(at));
const shiftsIso = (r: RotationSpec, tz: string, from: string, to: string) =>
  rotationShifts(r, tz, t(from), t(to)).map((s) => [s.userId, iso(s.startsAt), iso(s.endsAt)]);

describe('time zones', () => {
  it('knows IANA zones by their canonical names and refuses the rest', () => {
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
    expect(canonicalTimeZone('+01:00')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
  });

  it('converts local wall times, the skipped hour forward and the repeated hour to its first instant', () => {
    expect(iso(fromLocal(toLocal(t('2026-03-01T08:00:00Z'), BERLIN), BERLIN))).toBe(
      '2026-03-01T08:00:00.000Z',
    );
    const local = { year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0, millisecond: 0 };
    // 02:30 does not exist in Berlin on 2026-03-29 (02:00 CET becomes 03:00 CEST): 03:30 CEST.
    expect(iso(fromLocal(local, BERLIN))).toBe('2026-03-29T01:30:00.000Z');
    // 02:30 occurs twice on 2026-10-25: the first, still CEST.
    expect(iso(fromLocal({ ...local, month: 10, day: 25 }, BERLIN))).toBe('2026-10-25T00:30:00.000Z');
    expect(addDays(local, 3)).toMatchObject({ year: 2026, month: 4, day: 1, hour: 2 });
  });

  it('formats an instant with the local offset', () => {
    expect(formatInZone(t('2026-03-29T07:00:00Z'), BERLIN)).toBe('2026-03-29T09:00:00+02:00');
    expect(formatInZone(t('2026-03-28T08:00:00Z'), BERLIN)).toBe('2026-03-28T09:00:00+01:00');
    expect(formatInZone(t('2026-03-28T08:00:00Z'), NY)).toBe('2026-03-28T04:00:00-04:00');
    expect(formatInZone(t('2026-01-01T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-01-01T05:30:00+05:30');
  });

  it('parses starts as instants with an offset, or as local times of the schedule', () => {
    expect(parseTime('2026-03-01T09:00:00+01:00', NY)).toBe(t('2026-03-01T08:00:00Z'));
    expect(parseTime('2026-03-01T08:00:00Z', NY)).toBe(t('2026-03-01T08:00:00Z'));
    expect(parseTime('2026-03-01T09:00', BERLIN)).toBe(t('2026-03-01T08:00:00Z'));
    expect(parseTime('2026-07-01 09:00:00', BERLIN)).toBe(t('2026-07-01T07:00:00Z'));
    expect(parseTime('2026-07-01', NY)).toBe(t('2026-07-01T04:00:00Z'));
    // An unencoded `+` in a query string is a space.
    expect(parseTime('2026-03-01T09:00:00 01:00', NY)).toBe(t('2026-03-01T08:00:00Z'));
    for (const bad of ['2026-02-30T09:00', '2026-13-01', '2026-01-01T24:00', 'tomorrow', '', '1700000000'])
      expect(parseTime(bad, BERLIN)).toBeNull();
  });

  it('reads HH:MM times of day', () => {
    expect(parseTimeOfDay('00:00')).toBe(0);
    expect(parseTimeOfDay('23:59')).toBe(1439);
    for (const bad of ['24:00', '9:00', '12:60', '12:00:00', '']) expect(parseTimeOfDay(bad)).toBeNull();
  });

  it('converts active hours to a new timezone keeping their instants', () => {
    const at = t('2026-06-01T12:00:00Z');
    expect(convertActivePeriod({ startTime: '09:00', endTime: '17:00' }, BERLIN, 'UTC', at)).toEqual({
      startTime: '07:00',
      endTime: '15:00',
    });
    expect(convertActivePeriod({ startTime: '20:00', endTime: '04:00' }, 'UTC', NY, at)).toEqual({
      startTime: '16:00',
      endTime: '00:00',
    });
  });
});

describe('shifts', () => {
  it('hourly rotations are exact elapsed hours, participants in turn', () => {
    const r = rotation({ startsAt: '2026-01-05T00:00:00.000Z', length: 4, lengthUnit: 'hours' });
    expect(shiftsIso(r, 'UTC', '2026-01-05T00:00:00Z', '2026-01-05T16:00:00Z')).toEqual([
      [1, '2026-01-05T00:00:00.000Z', '2026-01-05T04:00:00.000Z'],
      [2, '2026-01-05T04:00:00.000Z', '2026-01-05T08:00:00.000Z'],
      [3, '2026-01-05T08:00:00.000Z', '2026-01-05T12:00:00.000Z'],
      [1, '2026-01-05T12:00:00.000Z', '2026-01-05T16:00:00.000Z'],
    ]);
    // Far from the start (a year of 4-hour shifts: 2190 cycles, 730 rounds of three).
    expect(who([r], 'UTC', '2027-01-05T01:00:00Z')).toEqual([1]);
    expect(who([r], 'UTC', '2027-01-05T05:00:00Z')).toEqual([2]);
  });

  it('hourly rotations across a DST change stay exact hours (local start times move)', () => {
    const r = rotation({
      startsAt: '2026-03-28T23:00:00.000Z',
      length: 12,
      lengthUnit: 'hours',
      users: [1, 2],
    });
    // Midnight Berlin on the 29th; 12 h later it is 13:00 CEST, not noon.
    expect(
      rotationShifts(r, BERLIN, t('2026-03-29T00:00:00Z'), t('2026-03-30T00:00:00Z')).map((s) =>
        formatInZone(s.startsAt, BERLIN),
      ),
    ).toEqual(['2026-03-29T00:00:00+01:00', '2026-03-29T13:00:00+02:00', '2026-03-30T01:00:00+02:00']);
  });

  it('weekly rotations hand over on the same weekday and local time', () => {
    const r = rotation({
      startsAt: '2026-01-05T08:00:00.000Z', // Monday 09:00 in Berlin
      length: 1,
      lengthUnit: 'weeks',
      users: [1, 2],
    });
    expect(who([r], BERLIN, '2026-01-11T23:00:00Z')).toEqual([1]);
    expect(who([r], BERLIN, '2026-01-12T08:00:00Z')).toEqual([2]);
    // The week of the spring change: Monday 2026-03-30 09:00 CEST is 07:00Z; week 12 from the start.
    expect(who([r], BERLIN, '2026-03-30T06:59:59.999Z')).toEqual([2]);
    expect(who([r], BERLIN, '2026-03-30T07:00:00Z')).toEqual([1]);
  });

  it('starts at starts_at, stops at ends_at, and an instant on a boundary belongs to the next shift', () => {
    const r = rotation({
      startsAt: '2026-01-05T08:00:00.000Z',
      endsAt: '2026-01-07T20:00:00.000Z',
      users: [1, 2],
    });
    expect(who([r], 'UTC', '2026-01-05T07:59:59.999Z')).toEqual([]);
    expect(who([r], 'UTC', '2026-01-05T08:00:00Z')).toEqual([1]);
    expect(who([r], 'UTC', '2026-01-06T07:59:59.999Z')).toEqual([1]);
    expect(who([r], 'UTC', '2026-01-06T08:00:00Z')).toEqual([2]);
    expect(who([r], 'UTC', '2026-01-07T19:59:59.999Z')).toEqual([1]);
    expect(who([r], 'UTC', '2026-01-07T20:00:00Z')).toEqual([]);
    // The last shift is cut at the end.
    expect(shiftsIso(r, 'UTC', '2026-01-07T00:00:00Z', '2026-01-09T00:00:00Z')).toEqual([
      [2, '2026-01-06T08:00:00.000Z', '2026-01-07T08:00:00.000Z'],
      [1, '2026-01-07T08:00:00.000Z', '2026-01-07T20:00:00.000Z'],
    ]);
  });

  it('multi-day shifts with several participants', () => {
    const r = rotation({
      startsAt: '2026-01-01T00:00:00.000Z',
      length: 3,
      lengthUnit: 'days',
      users: [7, 8, 9],
    });
    expect(who([r], 'UTC', '2026-01-03T23:00:00Z')).toEqual([7]);
    expect(who([r], 'UTC', '2026-01-04T00:00:00Z')).toEqual([8]);
    expect(who([r], 'UTC', '2026-01-09T12:00:00Z')).toEqual([9]);
    expect(who([r], 'UTC', '2026-01-10T00:00:00Z')).toEqual([7]);
  });

  it('is the union of the rotations, each user once, in rotation order', () => {
    const day = rotation({ users: [1, 2] });
    const week = rotation({ lengthUnit: 'weeks', users: [3, 1] });
    const later = rotation({ startsAt: '2026-02-01T00:00:00.000Z', users: [4] });
    const rs = [day, week, later];
    expect(who(rs, 'UTC', '2026-01-05T09:00:00Z')).toEqual([1, 3]);
    expect(who(rs, 'UTC', '2026-01-06T09:00:00Z')).toEqual([2, 3]);
    expect(who(rs, 'UTC', '2026-01-12T09:00:00Z')).toEqual([2, 1]);
    // Both rotations have user 1 on call: once in the union, twice in the shifts.
    expect(who(rs, 'UTC', '2026-01-13T09:00:00Z')).toEqual([1]);
    expect(shiftsAt(rs, 'UTC', t('2026-01-13T09:00:00Z')).map((s) => s.rotationId)).toEqual([
      day.id,
      week.id,
    ]);
    expect(who(rs, 'UTC', '2026-02-01T00:00:00Z')).toEqual([1, 4]);
  });

  it('a rotation without participants has no shifts', () => {
    expect(who([rotation({ users: [] })], 'UTC', '2026-01-06T00:00:00Z')).toEqual([]);
  });

  it('orders participants by position, not by list order', () => {
    const r = rotation({
      participants: [
        { userId: 5, position: 1 },
        { userId: 6, position: 0 },
      ],
    });
    expect(who([r], 'UTC', '2026-01-05T09:00:00Z')).toEqual([6]);
    expect(who([r], 'UTC', '2026-01-06T09:00:00Z')).toEqual([5]);
  });
});

describe('active hours', () => {
  it('a daily shift is on call only within the active hours', () => {
    const r = rotation({
      startsAt: '2026-01-05T00:00:00.000Z',
      activePeriod: { startTime: '09:00', endTime: '17:00' },
      users: [1, 2],
    });
    expect(who([r], 'UTC', '2026-01-05T08:59:59.999Z')).toEqual([]);
    expect(who([r], 'UTC', '2026-01-05T09:00:00Z')).toEqual([1]);
    expect(who([r], 'UTC', '2026-01-05T16:59:59.999Z')).toEqual([1]);
    expect(who([r], 'UTC', '2026-01-05T17:00:00Z')).toEqual([]);
    expect(who([r], 'UTC', '2026-01-06T12:00:00Z')).toEqual([2]);
    expect(shiftsIso(r, 'UTC', '2026-01-05T00:00:00Z', '2026-01-07T00:00:00Z')).toEqual([
      [1, '2026-01-05T09:00:00.000Z', '2026-01-05T17:00:00.000Z'],
      [2, '2026-01-06T09:00:00.000Z', '2026-01-06T17:00:00.000Z'],
    ]);
  });

  it('a weekly shift is split into one piece per day', () => {
    const r = rotation({
      startsAt: '2026-01-05T08:00:00.000Z', // 09:00 Berlin
      lengthUnit: 'weeks',
      activePeriod: { startTime: '09:00', endTime: '17:00' },
      users: [1, 2],
    });
    const shifts = rotationShifts(r, BERLIN, t('2026-01-05T00:00:00Z'), t('2026-01-19T00:00:00Z'));
    expect(shifts).toHaveLength(14);
    expect(shifts.slice(0, 7).every((s) => s.userId === 1)).toBe(true);
    expect(shifts.slice(7).every((s) => s.userId === 2)).toBe(true);
    expect(shifts.every((s) => formatInZone(s.startsAt, BERLIN).slice(11) === '09:00:00+01:00')).toBe(true);
    expect(shifts.every((s) => s.endsAt - s.startsAt === 8 * 3_600_000)).toBe(true);
  });

  it('overnight active hours (end before start) run across midnight', () => {
    const r = rotation({
      startsAt: '2026-01-05T00:00:00.000Z',
      activePeriod: { startTime: '22:00', endTime: '06:00' },
      users: [1, 2],
    });
    expect(who([r], 'UTC', '2026-01-05T03:00:00Z')).toEqual([1]); // the previous evening's window, in cycle 0
    expect(who([r], 'UTC', '2026-01-05T12:00:00Z')).toEqual([]);
    expect(who([r], 'UTC', '2026-01-05T22:00:00Z')).toEqual([1]);
    expect(who([r], 'UTC', '2026-01-05T23:59:59.999Z')).toEqual([1]);
    // The cycle hands over at midnight: the rest of the night is the next participant's.
    expect(who([r], 'UTC', '2026-01-06T00:00:00Z')).toEqual([2]);
    expect(who([r], 'UTC', '2026-01-06T05:59:59.999Z')).toEqual([2]);
    expect(who([r], 'UTC', '2026-01-06T06:00:00Z')).toEqual([]);
    expect(shiftsIso(r, 'UTC', '2026-01-05T00:00:00Z', '2026-01-06T12:00:00Z')).toEqual([
      [1, '2026-01-05T00:00:00.000Z', '2026-01-05T06:00:00.000Z'],
      [1, '2026-01-05T22:00:00.000Z', '2026-01-06T00:00:00.000Z'],
      [2, '2026-01-06T00:00:00.000Z', '2026-01-06T06:00:00.000Z'],
    ]);
  });

  it('overnight hours with an evening handover keep whole nights together', () => {
    const r = rotation({
      startsAt: '2026-01-05T18:00:00.000Z',
      activePeriod: { startTime: '22:00', endTime: '06:00' },
      users: [1, 2],
    });
    expect(shiftsIso(r, 'UTC', '2026-01-05T00:00:00Z', '2026-01-07T12:00:00Z')).toEqual([
      [1, '2026-01-05T22:00:00.000Z', '2026-01-06T06:00:00.000Z'],
      [2, '2026-01-06T22:00:00.000Z', '2026-01-07T06:00:00.000Z'],
    ]);
  });

  it('active hours stay at local clock times across a DST change', () => {
    const r = rotation({
      startsAt: '2026-03-27T08:00:00.000Z', // Friday 09:00 CET
      activePeriod: { startTime: '09:00', endTime: '17:00' },
      users: [1],
    });
    const shifts = rotationShifts(r, BERLIN, t('2026-03-27T00:00:00Z'), t('2026-03-31T00:00:00Z'));
    expect(shifts.map((s) => [formatInZone(s.startsAt, BERLIN), formatInZone(s.endsAt, BERLIN)])).toEqual([
      ['2026-03-27T09:00:00+01:00', '2026-03-27T17:00:00+01:00'],
      ['2026-03-28T09:00:00+01:00', '2026-03-28T17:00:00+01:00'],
      ['2026-03-29T09:00:00+02:00', '2026-03-29T17:00:00+02:00'],
      ['2026-03-30T09:00:00+02:00', '2026-03-30T17:00:00+02:00'],
    ]);
  });
});

describe('DST changes: a daily shift keeps its local start time', () => {
  const daily = (startsAt: string, tz: string, users = [1, 2]) => ({
    r: rotation({ startsAt, users }),
    tz,
  });

  it('Europe/Berlin, spring (2026-03-29): the shift across the change lasts 23 hours', () => {
    const { r, tz } = daily('2026-03-27T08:00:00.000Z', BERLIN); // 09:00 CET
    const shifts = rotationShifts(r, tz, t('2026-03-28T00:00:00Z'), t('2026-03-31T00:00:00Z'));
    expect(shifts.map((s) => formatInZone(s.startsAt, tz))).toEqual([
      '2026-03-27T09:00:00+01:00',
      '2026-03-28T09:00:00+01:00',
      '2026-03-29T09:00:00+02:00',
      '2026-03-30T09:00:00+02:00',
    ]);
    expect((shifts[1]!.endsAt - shifts[1]!.startsAt) / 3_600_000).toBe(23);
    expect((shifts[2]!.endsAt - shifts[2]!.startsAt) / 3_600_000).toBe(24);
    // 07:30Z on the 29th is 09:30 CEST: the third shift (user 1); the hour before is still the second (user 2).
    expect(who([r], tz, '2026-03-29T07:30:00Z')).toEqual([1]);
    expect(who([r], tz, '2026-03-29T06:59:59.999Z')).toEqual([2]);
    expect(who([r], tz, '2026-03-29T07:00:00Z')).toEqual([1]);
  });

  it('Europe/Berlin, autumn (2026-10-25): the shift across the change lasts 25 hours', () => {
    const { r, tz } = daily('2026-10-23T07:00:00.000Z', BERLIN); // 09:00 CEST
    const shifts = rotationShifts(r, tz, t('2026-10-24T00:00:00Z'), t('2026-10-27T00:00:00Z'));
    expect(shifts.map((s) => formatInZone(s.startsAt, tz))).toEqual([
      '2026-10-23T09:00:00+02:00',
      '2026-10-24T09:00:00+02:00',
      '2026-10-25T09:00:00+01:00',
      '2026-10-26T09:00:00+01:00',
    ]);
    expect((shifts[1]!.endsAt - shifts[1]!.startsAt) / 3_600_000).toBe(25);
    // 08:00Z on the 25th is 09:00 CET: the handover; at 07:30Z (08:30 CET) the 24th's shift still runs.
    expect(who([r], tz, '2026-10-25T07:30:00Z')).toEqual([2]);
    expect(who([r], tz, '2026-10-25T08:00:00Z')).toEqual([1]);
  });

  it('America/New_York, spring (2026-03-08) and autumn (2026-11-01)', () => {
    const { r, tz } = daily('2026-03-06T14:00:00.000Z', NY); // 09:00 EST
    expect(
      rotationShifts(r, tz, t('2026-03-07T00:00:00Z'), t('2026-03-10T00:00:00Z')).map((s) =>
        formatInZone(s.startsAt, tz),
      ),
    ).toEqual([
      '2026-03-06T09:00:00-05:00',
      '2026-03-07T09:00:00-05:00',
      '2026-03-08T09:00:00-04:00',
      '2026-03-09T09:00:00-04:00',
    ]);
    // 09:00 EDT on the 8th is 13:00Z; 13:30Z is the third shift, 12:30Z still the second.
    expect(who([r], tz, '2026-03-08T12:30:00Z')).toEqual([2]);
    expect(who([r], tz, '2026-03-08T13:30:00Z')).toEqual([1]);
    // Autumn: 09:00 EST on 2026-11-01 is 14:00Z.
    expect(who([r], tz, '2026-11-01T13:59:59.999Z')).toEqual(who([r], tz, '2026-10-31T14:00:00Z'));
    expect(formatInZone(shiftsAt([r], tz, t('2026-11-01T14:00:00Z'))[0]!.startsAt, tz)).toBe(
      '2026-11-01T09:00:00-05:00',
    );
  });

  it('a daily start inside the skipped hour moves forward on that day only', () => {
    const { r, tz } = daily('2026-03-27T01:30:00.000Z', BERLIN); // 02:30 CET
    expect(
      rotationShifts(r, tz, t('2026-03-28T12:00:00Z'), t('2026-03-30T12:00:00Z')).map((s) =>
        formatInZone(s.startsAt, tz),
      ),
    ).toEqual(['2026-03-28T02:30:00+01:00', '2026-03-29T03:30:00+02:00', '2026-03-30T02:30:00+02:00']);
  });
});

describe('shifts of several rotations, as they are taken', () => {
  it('merges the rotations by start (then rotation id), as sorting them all would', () => {
    const rs = [
      rotation({ length: 8, lengthUnit: 'hours' }),
      rotation({ length: 1, lengthUnit: 'days', activePeriod: { startTime: '09:00', endTime: '17:00' } }),
      rotation({ length: 1, lengthUnit: 'weeks', startsAt: '2026-01-03T00:00:00.000Z' }),
    ];
    const [from, to] = [t('2026-01-06T00:00:00Z'), t('2026-01-20T00:00:00Z')];
    const sorted = rs
      .flatMap((r) => rotationShifts(r, BERLIN, from, to))
      .sort((a, b) => a.startsAt - b.startsAt || a.rotationId - b.rotationId);
    expect([...eachShift(rs, BERLIN, from, to)]).toEqual(sorted);
  });

  it('computes only what is taken: the first shifts of a century of hourly rotations come at once', () => {
    // All of them would be 50 * 876,000 shifts: taking 100 must not compute them (the test would not end).
    const rs = Array.from({ length: 50 }, () => rotation({ length: 1, lengthUnit: 'hours' }));
    const first: number[] = [];
    for (const s of eachShift(rs, 'UTC', t('2026-01-05T08:00:00Z'), t('2126-01-01T00:00:00Z'))) {
      first.push(s.startsAt);
      if (first.length === 100) break;
    }
    expect(first[0]).toBe(t('2026-01-05T08:00:00Z'));
    expect(first[99]).toBe(t('2026-01-05T09:00:00Z'));
  });
});
