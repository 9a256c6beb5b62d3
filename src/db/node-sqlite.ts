import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Node's built-in SQLite (`node:sqlite`) in the shape Kysely's SqliteDialect expects (better-sqlite3's: a
 * `prepare` whose statements say whether they return rows and take their parameters as one array).
 *
 * Kysely prepares every query, and preparing compiles the SQL: statements are cached by SQL text (one
 * connection, so a statement is never shared between concurrent users). The cache is bounded; past the bound it
 * starts over.
 */
export function kyselySqliteDatabase(file: DatabaseSync, cacheSize = 1000): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => file.close(),
    prepare(sql: string): SqliteStatement {
      let cached = cache.get(sql);
      if (cached) return cached;
      const stmt = file.prepare(sql);
      const args = (parameters: ReadonlyArray<unknown>) => parameters as SQLInputValue[];
      cached = {
        // A statement returns rows when it has result columns (a SELECT, or any statement with RETURNING).
        reader: stmt.columns().length > 0,
        all: (parameters) => stmt.all(...args(parameters)),
        run: (parameters) => stmt.run(...args(parameters)),
        iterate: (parameters) => stmt.iterate(...args(parameters)),
      };
      if (cache.size >= cacheSize) cache.clear();
      cache.set(sql, cached);
      return cached;
    },
  };
}
