import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ADMIN_URL, type DatabaseKind } from '../helpers/databases.js';

const KINDS: readonly DatabaseKind[] = ['sqlite', 'postgres'];

/** Why PostgreSQL cannot be used at ADMIN_URL, or null when it answers. */
async function postgresProblem(): Promise<string | null> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The credentials-free form of a database URL, for messages. */
const shown = (url: string) => {
  const u = new URL(url);
  u.password = '';
  return u.toString();
};

/**
 * Decides the database matrix once per run and says which databases ran, so that no database drops out silently.
 * `SVC_TEST_DATABASES=sqlite,postgres` (a comma-separated list) names them; a named database that cannot be reached
 * fails the run. Unset: both where PostgreSQL answers (at SVC_TEST_DATABASE_URL or 127.0.0.1:5432), SQLite only
 * otherwise (said at the start and at the end); in CI (CI set) PostgreSQL is required.
 */
export async function setup(project: TestProject): Promise<() => void> {
  const requested = process.env.SVC_TEST_DATABASES?.trim();
  let list: DatabaseKind[];
  let note = '';
  if (requested) {
    const names = [...new Set(requested.split(',').map((s) => s.trim()))].filter((s) => s !== '');
    const unknown = names.filter((n) => !KINDS.includes(n as DatabaseKind));
    if (unknown.length > 0 || names.length === 0)
      throw new Error(
        `SVC_TEST_DATABASES=${requested}: expected a comma-separated list of ${KINDS.join(', ')}`,
      );
    list = names as DatabaseKind[];
    if (list.includes('postgres')) {
      const problem = await postgresProblem();
      if (problem)
        throw new Error(
          `SVC_TEST_DATABASES asks for postgres, but PostgreSQL is not reachable at ${shown(ADMIN_URL)} (set SVC_TEST_DATABASE_URL): ${problem}`,
        );
    }
  } else {
    const problem = await postgresProblem();
    if (problem && process.env.CI)
      throw new Error(`PostgreSQL is required in CI but not reachable at ${shown(ADMIN_URL)}: ${problem}`);
    list = problem ? ['sqlite'] : ['sqlite', 'postgres'];
    if (problem)
      note = ` (PostgreSQL NOT tested: not reachable at ${shown(ADMIN_URL)}: ${problem}; set SVC_TEST_DATABASES=sqlite,postgres to require it)`;
  }
  project.provide('databases', list);
  const line = `svc tests: databases ${list.join(', ')}${note}`;
  console.info(line);
  return () => console.info(line);
}
