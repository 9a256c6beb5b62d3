/** Occurrences over time: the periods the charts offer and the UTC-aligned buckets that cover each one. */

/** `24h`: 24 hourly buckets ending with the current hour; `30d`: 30 daily buckets ending with today (UTC). */
export const STATS_PERIODS = ['24h', '30d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];
export type BucketInterval = 'hour' | 'day';

/** One bucket: its start (ISO 8601, UTC) and how many occurrences fell in it. */
export interface Bucket {
  readonly start: string;
  readonly count: number;
}

/** The buckets of a period, oldest first, and the first instant they cover. */
export interface BucketWindow {
  readonly interval: BucketInterval;
  readonly from: string;
  readonly starts: readonly string[];
}

/** Length of a bucket key: `YYYY-MM-DDTHH` for hours, `YYYY-MM-DD` for days (a prefix of the ISO text). */
export const KEY_LENGTH: Record<BucketInterval, number> = { hour: 13, day: 10 };

/** The buckets of `period` that end with the one containing `now`. */
export function bucketWindow(period: StatsPeriod, now: Date): BucketWindow {
  const interval: BucketInterval = period === '24h' ? 'hour' : 'day';
  const count = period === '24h' ? 24 : 30;
  const step = interval === 'hour' ? 3_600_000 : 86_400_000;
  const last = Math.floor(now.getTime() / step) * step;
  const starts = Array.from({ length: count }, (_, i) =>
    new Date(last - (count - 1 - i) * step).toISOString(),
  );
  return { interval, from: starts[0]!, starts };
}

/** Every bucket of the window with its count from `counts` (keyed by bucket key), zero when absent. */
export function fillBuckets(window: BucketWindow, counts: ReadonlyMap<string, number>): Bucket[] {
  const len = KEY_LENGTH[window.interval];
  return window.starts.map((start) => ({ start, count: counts.get(start.slice(0, len)) ?? 0 }));
}
