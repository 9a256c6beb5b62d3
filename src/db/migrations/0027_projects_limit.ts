import type { Kysely } from 'kysely';

/**
 * Each user's own limit of personal projects (GitLab's `users.projects_limit`): a new user takes the instance's
 * `default_projects_limit` of the moment; users from before take GitLab's default, 100000.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('projects_limit', 'integer', (c) => c.notNull().defaultTo(100_000))
    .execute();
}
