import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/**
 * Writes one admin user `u`, its namespace and one private project `u/p` (all id 1) with its repository on
 * `storage`, straight to the tables: for tests below the API (services, migrations).
 */
export async function seedProjectRows(k: Kysely<Database>, storage: string): Promise<void> {
  const now = new Date().toISOString();
  await k
    .insertInto('users')
    .values({
      username: 'u',
      name: 'u',
      email: 'u@x',
      password_digest: null,
      admin: 1,
      state: 'active',
      private_profile: 0,
      bio: '',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await k
    .insertInto('namespaces')
    .values({
      kind: 'user',
      name: 'u',
      path: 'u',
      full_path: 'u',
      parent_id: null,
      owner_id: 1,
      visibility: 'public',
      description: '',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await k
    .insertInto('projects')
    .values({
      namespace_id: 1,
      name: 'p',
      path: 'p',
      description: '',
      visibility: 'private',
      default_branch: 'main',
      monitor_enabled: 1,
      repository_storage: storage,
      creator_id: 1,
      created_at: now,
      updated_at: now,
      last_activity_at: now,
    })
    .execute();
}
