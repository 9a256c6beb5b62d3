import { type ColumnDefinitionBuilder, type CreateTableBuilder, type RawBuilder, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/** What a migration may need besides the database. */
export interface MigrationEnv {
  /** The instance secret key (read, or created on first use, in the data directory): to encrypt existing secrets. */
  secretKey(): Buffer;
  /** Tells the operator something the migration could not do, and what follows from it. */
  warn(message: string): void;
}

/** Column types per dialect. */
export function columnTypes(dialect: DialectName) {
  const pg = dialect === 'postgres';
  return {
    timestamp: pg ? ('timestamptz' as const) : ('text' as const),
    bool: pg ? ('boolean' as const) : ('integer' as const),
    /** A boolean default: `false`/`true` on PostgreSQL, 0/1 on SQLite. */
    boolDefault: (v: boolean): RawBuilder<unknown> => sql.raw(pg ? String(v) : v ? '1' : '0'),
  };
}

/** Adds an auto-incrementing integer primary key named `id`. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}
