import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  eachScheduleShift,
  formatInZone,
  overrideAt,
  overrideSpans,
  type RotationSpec,
  rotationShifts,
  shiftsAt,
  toLocal,
} from './oncall.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata'];
const DAY = 86_400_000;
// 2026 to 2027: both DST changes of each zone are inside.
const T0 = Date.parse('2026-01-01T00:00:00Z');
const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

const rotationArb = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    start: fc.integer({ min: 0, max: 365 * DAY }),
    length: fc.integer({ min: 1, max: 5 }),
    unit: fc.constantFrom('hours', 'days', 'weeks'),
    people: fc.integer({ min: 1, max: 4 }),
    end: fc.option(fc.integer({ min: 1, max: 60 * DAY }), { nil: null }),
    period: fc.option(fc.tuple(hhmm, hhmm), { nil: null }),
  })
  .filter((r) => !r.period || (r.unit !== 'hours' && r.period[0] !== r.period[1]))
  .map((r): { zone: string; rotation: RotationSpec } => ({
    zone: r.zone,
    rotation: {
      id: 1,
      startsAt: new Date(T0 + r.start).toISOString(),
      endsAt: r.end === null ? null : new Date(T0 + r.start + r.end).toISOString(),
      length: r.length,
      lengthUnit: r.unit as RotationSpec['lengthUnit'],
      activePeriod: r.period && { startTime: r.period[0], endTime: r.period[1] },
      participants: Array.from({ length: r.people }, (_, i) => ({ userId: 100 + i, position: i })),
    },
  }));

describe('shift computation (properties)', () => {
  it('the shifts listed for a window are exactly who is on call at each instant in it', () => {
    fc.assert(
      fc.property(rotationArb, fc.integer({ min: -3 * DAY, max: 20 * DAY }), ({ zone, rotation }, offset) => {
        const from = Date.parse(rotation.startsAt) + offset;
        const to = from + 3 * DAY;
        const shifts = rotationShifts(rotation, zone, from, to);
        // Ordered, not overlapping, inside the rotation's life.
        for (let i = 1; i < shifts.length; i++)
          expect(shifts[i]!.startsAt).toBeGreaterThanOrEqual(shifts[i - 1]!.endsAt);
        for (const s of shifts) {
          expect(s.endsAt).toBeGreaterThan(s.startsAt);
          expect(s.startsAt).toBeGreaterThanOrEqual(Date.parse(rotation.startsAt));
          if (rotation.endsAt) expect(s.endsAt).toBeLessThanOrEqual(Date.parse(rotation.endsAt));
        }
        // Sample instants (boundaries included) agree with the listing.
        const samples = [from, ...shifts.flatMap((s) => [s.startsAt, s.endsAt - 1, s.endsAt])];
        for (let t = from; t < to; t += 3_600_000 * 7 + 60_000) samples.push(t);
        for (const t of samples.filter((x) => x >= from && x < to)) {
          const listed = shifts.filter((s) => s.startsAt <= t && t < s.endsAt).map((s) => s.userId);
          expect(shiftsAt([rotation], zone, t).map((s) => s.userId)).toEqual(listed);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('without active hours the shifts tile the rotation, and participants take turns in order', () => {
    fc.assert(
      fc.property(rotationArb, ({ zone, rotation: r }) => {
        const rotation = { ...r, activePeriod: null };
        const start = Date.parse(rotation.startsAt);
        const shifts = rotationShifts(rotation, zone, start, start + 30 * DAY);
        expect(shifts[0]!.startsAt).toBe(start);
        const n = rotation.participants.length;
        shifts.forEach((s, i) => {
          if (i > 0) expect(s.startsAt).toBe(shifts[i - 1]!.endsAt);
          expect(s.userId).toBe(100 + (i % n));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('day and week shifts start at the local clock time of the rotation start (unless the clock skips it)', () => {
    fc.assert(
      fc.property(rotationArb, ({ zone, rotation: r }) => {
        fc.pre(r.lengthUnit !== 'hours');
        const rotation = { ...r, activePeriod: null, endsAt: null };
        const start = Date.parse(rotation.startsAt);
        const first = toLocal(start, zone);
        const shifts = rotationShifts(rotation, zone, start, start + 60 * DAY);
        const expected = `${String(first.hour).padStart(2, '0')}:${String(first.minute).padStart(2, '0')}`;
        const skipped = shifts.filter((s) => formatInZone(s.startsAt, zone).slice(11, 16) !== expected);
        // A start time inside a skipped hour happens at most twice a year (Lord Howe skips half an hour).
        expect(skipped.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });
});

const HOUR = 3_600_000;
/** Overrides (ids in creation order) within a few days of T0 + `base`, on whole quarter hours. */
const overridesArb = fc
  .array(
    fc.record({
      start: fc.integer({ min: 0, max: 4 * 24 * 4 }),
      length: fc.integer({ min: 1, max: 3 * 24 * 4 }),
      user: fc.integer({ min: 200, max: 203 }),
    }),
    { maxLength: 6 },
  )
  .map(
    (list) => (base: number) =>
      list.map((o, i) => ({
        id: i + 1,
        userId: o.user,
        startsAt: new Date(base + (o.start * HOUR) / 4).toISOString(),
        endsAt: new Date(base + ((o.start + o.length) * HOUR) / 4).toISOString(),
      })),
  );

describe('overrides (properties)', () => {
  it('at every instant of a window the listing shows the newest override in force, else the rotations', () => {
    fc.assert(
      fc.property(
        rotationArb,
        overridesArb,
        fc.integer({ min: 0, max: 10 * DAY }),
        ({ zone, rotation }, mk, off) => {
          const from = Date.parse(rotation.startsAt) + off;
          const to = from + 3 * DAY;
          const overrides = mk(from - DAY);
          const spans = overrideSpans(overrides, from, to);
          // The spans are ordered and disjoint.
          for (let i = 1; i < spans.length; i++)
            expect(spans[i]!.startsAt).toBeGreaterThanOrEqual(spans[i - 1]!.endsAt);
          const shifts = [...eachScheduleShift([rotation], spans, zone, from, to)];
          for (let i = 1; i < shifts.length; i++)
            expect(shifts[i]!.startsAt).toBeGreaterThanOrEqual(shifts[i - 1]!.startsAt);
          const samples = [from, ...shifts.flatMap((x) => [x.startsAt, x.endsAt - 1, x.endsAt])];
          for (const o of overrides) samples.push(Date.parse(o.startsAt), Date.parse(o.endsAt) - 1);
          for (let t = from; t < to; t += HOUR * 5 + 60_000) samples.push(t);
          for (const t of samples.filter((x) => x >= from && x < to)) {
            const listed = shifts.filter((x) => x.startsAt <= t && t < x.endsAt);
            const o = overrideAt(overrides, t);
            if (o) expect(listed.map((x) => [x.overrideId, x.userId])).toEqual([[o.id, o.userId]]);
            else
              expect(listed.map((x) => x.userId)).toEqual(shiftsAt([rotation], zone, t).map((x) => x.userId));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
