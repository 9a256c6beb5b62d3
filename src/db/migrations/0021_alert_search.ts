import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import type { MigrationEnv } from './helpers.js';

/**
 * An index for the alert list's `search` (a substring of title, description, monitoring tool or service, as
 * GitLab's): without one, a rare term read every alert of the project (2-3.5 s for 200,000 alerts,
 * bench/read-paths.js).
 *
 * - SQLite: `alerts_search`, an FTS5 table with the trigram tokenizer over the four columns, its content read from
 *   `alerts` (external content: only the index is stored). A phrase of three or more characters matches exactly
 *   the rows whose text contains it, case-insensitively. New alerts are indexed in batches after they commit, not
 *   by a trigger in the intake's transaction: FTS5 writes its pending terms at every statement boundary, so a
 *   trigger cost 42 µs per new alert where a batch costs 10 (docs/benchmarks.md). `alerts_search_state` holds
 *   the highest alert id indexed (ids only grow: AUTOINCREMENT); a search first indexes the alerts above it
 *   (src/alerts/search-index.ts), so results are always exact. Deletes and changes of indexed alerts are applied
 *   by triggers (cascades included); alerts not indexed yet need nothing. The existing alerts are indexed by the
 *   first catch-up after the upgrade, in batches, not here.
 * - PostgreSQL: a GIN `pg_trgm` index on the four columns joined by chr(1) (a character no search term contains,
 *   so a match never spans two columns), which `ILIKE '%term%'` on the same expression uses; PostgreSQL maintains
 *   it. pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it. Where it cannot be
 *   created, the index is left out (searches still work, by reading the alerts) and the migration says so.
 *
 * Derived data, like `alert_status_counts`: not backed up; a restore (into an empty instance) inserts the alerts
 * and they are indexed like new ones.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName, env: MigrationEnv): Promise<void> {
  if (dialect === 'sqlite') {
    const columns = ['title', 'description', 'monitoring_tool', 'service'];
    const values = (row: 'NEW' | 'OLD') => columns.map((c) => `${row}.${c}`).join(', ');
    const add = `INSERT INTO alerts_search (rowid, ${columns.join(', ')}) VALUES (NEW.id, ${values('NEW')});`;
    const remove = `INSERT INTO alerts_search (alerts_search, rowid, ${columns.join(', ')})
      VALUES ('delete', OLD.id, ${values('OLD')});`;
    // Only an indexed alert may be taken out: a 'delete' of a row the index never held corrupts it.
    const indexed = 'OLD.id <= (SELECT indexed_up_to FROM alerts_search_state)';
    await sql
      .raw(
        `CREATE VIRTUAL TABLE alerts_search USING fts5(${columns.join(', ')},
           content = 'alerts', content_rowid = 'id', tokenize = 'trigram')`,
      )
      .execute(db);
    await sql`CREATE TABLE alerts_search_state (
      id integer PRIMARY KEY CHECK (id = 1), indexed_up_to integer NOT NULL)`.execute(db);
    await sql`INSERT INTO alerts_search_state (id, indexed_up_to) VALUES (1, 0)`.execute(db);
    await sql
      .raw(`CREATE TRIGGER alerts_search_delete AFTER DELETE ON alerts WHEN ${indexed} BEGIN ${remove} END`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER alerts_search_update AFTER UPDATE OF ${columns.join(', ')} ON alerts WHEN ${indexed}
         BEGIN ${remove} ${add} END`,
      )
      .execute(db);
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

/**
 * The text `alerts_search_trgm` indexes; a query must use the same expression for the index to apply (as
 * AlertsRepository's search does; test/integration/alert-search.test.ts sees the index used).
 */
const ALERT_SEARCH_TEXT_PG =
  "title || chr(1) || coalesce(description, '') || chr(1) || coalesce(monitoring_tool, '') || chr(1) || coalesce(service, '')";
