import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server tests use: SVC_TEST_DATABASE_URL, or a local server on 127.0.0.1:5432 as `postgres`. */
const ADMIN_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let available: Promise<boolean> | null = null;

/** Whether PostgreSQL is reachable. In CI it must be: a missing server fails the run instead of skipping. */
export function postgresAvailable(): Promise<boolean> {
  available ??= (async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (err) {
      if (process.env.CI)
        throw new Error(`PostgreSQL is required in CI but not reachable at ${ADMIN_URL}: ${String(err)}`);
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return available;
}

export type DatabaseKind = 'sqlite' | 'postgres';

/** The databases to run integration tests against: SQLite always, PostgreSQL when reachable. */
export async function databases(): Promise<DatabaseKind[]> {
  return (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** Creates an empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
