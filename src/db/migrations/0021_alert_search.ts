import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import type { MigrationEnv } from './helpers.js';

/**
 * An index for the alert list's `search` (a substring of title, description, monitoring tool or service, as
 * GitLab's): without one, a rare term read every alert of the project (2-3.5 s for 200,000 alerts,
 * bench/read-paths.js).
 *
 * - SQLite: `alerts_search`, an FTS5 table with the trigram tokenizer over the four columns, its content read from
 *   `alerts` (external content: only the index is stored), kept by triggers in the same transaction as every
 *   insert, change and delete of an alert (cascades included), and filled from the existing alerts here. A phrase
 *   of three or more characters matches exactly the rows whose text contains it, case-insensitively.
 * - PostgreSQL: a GIN `pg_trgm` index on the four columns joined by chr(1) (a character no search term contains,
 *   so a match never spans two columns), which `ILIKE '%term%'` on the same expression uses. pg_trgm is a trusted
 *   extension (PostgreSQL 13+): a database owner may create it. Where it cannot be created, the index is left out
 *   (searches still work, by reading the alerts) and the migration says so.
 *
 * Derived data, like `alert_status_counts`: not backed up; a restore inserts the alerts and the triggers (or the
 * index) take them in again.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName, env: MigrationEnv): Promise<void> {
  if (dialect === 'sqlite') {
    const columns = ['title', 'description', 'monitoring_tool', 'service'];
    const values = (row: 'NEW' | 'OLD') => columns.map((c) => `${row}.${c}`).join(', ');
    const add = `INSERT INTO alerts_search (rowid, ${columns.join(', ')}) VALUES (NEW.id, ${values('NEW')});`;
    const remove = `INSERT INTO alerts_search (alerts_search, rowid, ${columns.join(', ')})
      VALUES ('delete', OLD.id, ${values('OLD')});`;
    await sql
      .raw(
        `CREATE VIRTUAL TABLE alerts_search USING fts5(${columns.join(', ')},
           content = 'alerts', content_rowid = 'id', tokenize = 'trigram')`,
      )
      .execute(db);
    await sql.raw(`CREATE TRIGGER alerts_search_insert AFTER INSERT ON alerts BEGIN ${add} END`).execute(db);
    await sql
      .raw(`CREATE TRIGGER alerts_search_delete AFTER DELETE ON alerts BEGIN ${remove} END`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER alerts_search_update AFTER UPDATE OF ${columns.join(', ')} ON alerts BEGIN ${remove} ${add} END`,
      )
      .execute(db);
    await sql`INSERT INTO alerts_search (alerts_search) VALUES ('rebuild')`.execute(db);
    return;
  }
  // The migration runs in a transaction: a refused CREATE EXTENSION must not abort it.
  await sql`SAVEPOINT alert_search_trgm`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql
      .raw(`CREATE INDEX alerts_search_trgm ON alerts USING gin ((${ALERT_SEARCH_TEXT_PG}) gin_trgm_ops)`)
      .execute(db);
    await sql`RELEASE SAVEPOINT alert_search_trgm`.execute(db);
  } catch (err) {
    await sql`ROLLBACK TO SAVEPOINT alert_search_trgm`.execute(db);
    env.warn(
      `migration 0021_alert_search: no pg_trgm index for alert search (${(err as Error).message}); searches read the alerts instead`,
    );
  }
}

/** The text `alerts_search_trgm` indexes; a query must use the same expression for the index to apply. */
export const ALERT_SEARCH_TEXT_PG =
  "title || chr(1) || coalesce(description, '') || chr(1) || coalesce(monitoring_tool, '') || chr(1) || coalesce(service, '')";
