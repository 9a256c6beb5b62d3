import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  MIGRATION_LOCK_ID,
  type Migration,
  type MigrationProvider,
  Migrator,
} from 'kysely/migration';
import type Pg from 'pg';
import { loadOrCreateSecretKey } from '../crypto.js';
import { ensurePrivateDir, ensurePrivateFile, restrictIfPresent } from '../file-modes.js';
import type { DialectName } from './dialect.js';
import { MIGRATIONS } from './migrations/index.js';
import { kyselySqliteDatabase } from './node-sqlite.js';
import type { Database } from './schema.js';

/** An open database: the Kysely instance, which dialect it speaks, and how to close it. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  /** The data directory (where the instance secret key lives). */
  readonly dataDir: string;
  /** Checks the connection (readiness probe). */
  ping(): Promise<void>;
  /**
   * Checks that the database accepts a committed write (readiness probe): a no-op update of the one row of
   * Kysely's migration lock table, which exists on both databases once migrated. A full disk, a read-only file
   * or a read-only PostgreSQL (standby, `default_transaction_read_only`) makes it throw.
   */
  pingWrite(): Promise<void>;
  close(): Promise<void>;
}

/** Opens SQLite in the data directory when `databaseUrl` is null, PostgreSQL otherwise. */
export function createDb(opts: { databaseUrl: string | null; dataDir: string }): Db {
  if (opts.databaseUrl === null) {
    // Owner-only whatever the umask: SQLite creates its WAL and shared-memory files with the database file's mode.
    ensurePrivateDir(opts.dataDir);
    const path = join(opts.dataDir, 'svc.sqlite3');
    ensurePrivateFile(path);
    // Foreign keys are on by default in node:sqlite; the busy timeout is a constructor option.
    const file = new DatabaseSync(path, { enableForeignKeyConstraints: true, timeout: 5000 });
    file.exec('PRAGMA journal_mode = WAL');
    restrictIfPresent(`${path}-wal`);
    restrictIfPresent(`${path}-shm`);
    file.exec('PRAGMA synchronous = NORMAL');
    const kysely = new Kysely<Database>({
      dialect: new SqliteDialect({ database: kyselySqliteDatabase(file) }),
    });
    return {
      kysely,
      dialect: 'sqlite',
      dataDir: opts.dataDir,
      ping: async () => {
        file.prepare('SELECT 1').get();
      },
      pingWrite: async () => {
        const r =
          await sql`UPDATE ${sql.table(DEFAULT_MIGRATION_LOCK_TABLE)} SET is_locked = is_locked WHERE id = ${MIGRATION_LOCK_ID}`.execute(
            kysely,
          );
        if (Number(r.numAffectedRows ?? 0) !== 1) throw new Error('the migration lock row is missing');
      },
      close: () => kysely.destroy(),
    };
  }
  const pool = new (loadPg().Pool)({ connectionString: opts.databaseUrl, max: 10 });
  // A connection the server terminates (restart, failover, admin command) emits 'error'; without a listener that
  // event ends the process. Idle, the pool reports it here and drops the connection. Lent out (a query or a
  // transaction in progress), the pool has no listener on it: the query fails with the error, and the pool drops
  // the connection when it comes back. The next query opens a new one either way.
  // A query can also learn it first: the server answers it with a FATAL error and closes the socket a moment
  // later. Released in between, the connection would go back to the pool still looking usable, and the next
  // query on it would fail: such a connection is ended as it is released (after a transaction's rollback was
  // tried on it, so that the error the caller sees is still the first one), and the pool drops it.
  const ended = new WeakSet<object>();
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // The class's method, looked up at each call (what the client would run without this wrapper).
    const own = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const result = own.query.apply(client, args);
      if (result instanceof Promise)
        result.catch((err: unknown) => {
          if (endsSession(err)) ended.add(client);
        });
      return result;
    };
  });
  // Emitted as the connection comes back, before the pool decides whether to keep it (it drops an ending one).
  pool.on('release', (_err, client) => {
    if (ended.has(client)) client.end().catch(() => undefined);
  });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely,
    dialect: 'postgres',
    dataDir: opts.dataDir,
    ping: async () => {
      await pool.query('SELECT 1');
    },
    pingWrite: async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // A migration holds this row locked: do not queue behind it for long.
        await client.query("SET LOCAL lock_timeout = '2s'");
        const r = await client.query(
          `UPDATE ${DEFAULT_MIGRATION_LOCK_TABLE} SET is_locked = is_locked WHERE id = $1`,
          [MIGRATION_LOCK_ID],
        );
        await client.query('COMMIT');
        if (r.rowCount !== 1) throw new Error('the migration lock row is missing');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => kysely.destroy(),
  };
}

/** Applies every pending migration; returns the names applied. A migration's warnings go to `warn`. */
export async function migrate(
  db: Db,
  warn: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
): Promise<string[]> {
  const provider: MigrationProvider = {
    getMigrations: async () => {
      const out: Record<string, Migration> = {};
      const env = { secretKey: () => loadOrCreateSecretKey(db.dataDir), warn };
      for (const [name, up] of MIGRATIONS) out[name] = { up: (k) => up(k as never, db.dialect, env) };
      return out;
    },
  };
  const migrator = new Migrator({ db: db.kysely, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

const require = createRequire(import.meta.url);

/**
 * The PostgreSQL driver, loaded when a PostgreSQL database is opened: an instance on SQLite never loads it (one of
 * the start-up costs in docs/benchmarks.md, Memory).
 */
export function loadPg(): typeof Pg {
  return require('pg') as typeof Pg;
}

/** Whether a PostgreSQL error ends its session (FATAL, PANIC, or a connection exception or shutdown). */
function endsSession(err: unknown): boolean {
  const e = err as { severity?: string; code?: string };
  return e.severity === 'FATAL' || e.severity === 'PANIC' || /^(08|57P0)/.test(e.code ?? '');
}
