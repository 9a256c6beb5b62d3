import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, type Db, migrate } from '../../src/db/db.js';
import { createPostgresDatabase, type DatabaseKind } from './databases.js';

/** A migrated, empty database of `kind` for tests below the API, and a function that closes and removes it. */
export async function openTestDb(
  kind: DatabaseKind,
): Promise<{ db: Db; dir: string; drop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-db-'));
  const pg = kind === 'postgres' ? await createPostgresDatabase() : null;
  const db = createDb({ databaseUrl: pg?.url ?? null, dataDir: dir });
  await migrate(db);
  return {
    db,
    dir,
    drop: async () => {
      await db.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
