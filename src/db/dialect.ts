/** Which database engine a connection speaks; repositories use it to hide dialect differences. */
export type DialectName = 'sqlite' | 'postgres';

/** Reads a timestamp column (ISO text on SQLite, Date on PostgreSQL) as an ISO-8601 string with milliseconds. */
export function readTimestamp(value: string | Date): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Reads a nullable timestamp column. */
export function readNullableTimestamp(value: string | Date | null): string | null {
  return value === null ? null : readTimestamp(value);
}

/** Reads a boolean column (0/1 on SQLite, boolean on PostgreSQL). */
export function readBool(value: number | boolean): boolean {
  return value === true || value === 1;
}

/** Writes a boolean: 0/1 is accepted by both SQLite INTEGER and PostgreSQL boolean columns. */
export function writeBool(value: boolean): number {
  return value ? 1 : 0;
}

/** Reads a count (PostgreSQL returns bigint counts as strings). */
export function readCount(value: string | number | bigint | undefined): number {
  return value === undefined ? 0 : Number(value);
}

/** SQLite's extended result code for a unique-constraint violation (node:sqlite puts it in `errcode`). */
export const SQLITE_CONSTRAINT_UNIQUE = 2067;

/**
 * Whether an error is a unique-constraint violation (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE), optionally
 * of one index: PostgreSQL names it in `constraint`; SQLite names the columns (`UNIQUE constraint failed: t.a, t.b`).
 */
export function isUniqueViolation(
  err: unknown,
  index?: { name: string; table: string; columns: string[] },
): boolean {
  const e = err as { code?: string; errcode?: number; constraint?: string; message?: string } | null;
  if (!e) return false;
  if (e.code === '23505') return index === undefined || e.constraint === index.name;
  if (e.errcode !== SQLITE_CONSTRAINT_UNIQUE && !/UNIQUE constraint failed/.test(e.message ?? ''))
    return false;
  if (index === undefined) return true;
  const failed = (e.message ?? '').replace(/^.*UNIQUE constraint failed:\s*/, '');
  return failed === index.columns.map((c) => `${index.table}.${c}`).join(', ');
}
