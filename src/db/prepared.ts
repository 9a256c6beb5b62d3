import { type Compilable, CompiledQuery, type QueryResult } from 'kysely';
import type { Queryable } from './schema.js';

const MARK = '\u0000svc-param:';

/**
 * A query built and compiled to SQL once, then run with new parameters: for the hot paths (alert intake, error
 * ingestion), where building and compiling a Kysely query costs more than SQLite takes to run it. `build` gets
 * `param(name)` for each value that changes between runs; every other value is fixed at build time. Parameters
 * are found by name in the compiled query, so their order in the SQL does not matter.
 */
export class Prepared<P extends Record<string, unknown>, R> {
  private readonly sql: string;
  private readonly slots: readonly ((p: P) => unknown)[];

  constructor(build: (param: <K extends keyof P & string>(name: K) => P[K]) => Compilable<R>) {
    const compiled = build((name) => `${MARK}${name}` as never).compile();
    this.sql = compiled.sql;
    this.slots = compiled.parameters.map((v) => {
      if (typeof v === 'string' && v.startsWith(MARK)) {
        const name = v.slice(MARK.length);
        return (p: P) => p[name];
      }
      return () => v;
    });
  }

  /** Runs the query with these parameters. */
  run(db: Queryable, params: P): Promise<QueryResult<R>> {
    return db.executeQuery(
      CompiledQuery.raw(
        this.sql,
        this.slots.map((s) => s(params)),
      ) as CompiledQuery<R>,
    );
  }

  /** The first row, if any. */
  async first(db: Queryable, params: P): Promise<R | undefined> {
    return (await this.run(db, params)).rows[0];
  }
}
