import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export type DatabaseKind = 'sqlite' | 'postgres';

/** The PostgreSQL server tests use: SVC_TEST_DATABASE_URL, or a local server on 127.0.0.1:5432 as `postgres`. */
export const ADMIN_URL = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The databases this run tests against, decided once by the global setup (test/setup/databases.ts) from
 * SVC_TEST_DATABASES: integration tests run once per database listed here.
 */
export async function databases(): Promise<DatabaseKind[]> {
  return [...inject('databases')];
}

/** Whether this run tests against PostgreSQL. */
export async function postgresAvailable(): Promise<boolean> {
  return inject('databases').includes('postgres');
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

declare module 'vitest' {
  export interface ProvidedContext {
    /** The databases of this run (test/setup/databases.ts). */
    databases: DatabaseKind[];
  }
}
