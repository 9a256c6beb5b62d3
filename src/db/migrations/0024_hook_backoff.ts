import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes } from './helpers.js';

/**
 * A failing hook is disabled for a while before it is disabled for good (GitLab's temporary disabling): until
 * when it sends nothing. Null: not temporarily disabled.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('project_hooks')
    .addColumn('disabled_until', columnTypes(dialect).timestamp)
    .execute();
}
