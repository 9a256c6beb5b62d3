import { type RawBuilder, sql } from 'kysely';
import type { BucketInterval } from '../time-buckets.js';
import type { DialectName } from './dialect.js';

/**
 * The UTC hour (`YYYY-MM-DDTHH`) or day (`YYYY-MM-DD`) of a timestamp column, as text, so that occurrences are
 * counted per bucket by the database (GROUP BY) instead of loaded. SQLite stores ISO 8601 text in UTC, whose
 * prefix is the key; PostgreSQL formats its timestamptz in UTC.
 */
export function bucketKey(
  dialect: DialectName,
  column: string,
  interval: BucketInterval,
): RawBuilder<string> {
  const ref = sql.ref(column);
  if (dialect === 'sqlite') return sql<string>`substr(${ref}, 1, ${sql.lit(interval === 'hour' ? 13 : 10)})`;
  const format = interval === 'hour' ? 'YYYY-MM-DD"T"HH24' : 'YYYY-MM-DD';
  return sql<string>`to_char(${ref} AT TIME ZONE 'UTC', ${sql.lit(format)})`;
}
