import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes } from './helpers.js';

/**
 * Avatars as GitLab keeps them: the uploaded file's name on its owner's row (`avatar`, null when none), the file
 * itself under the data directory (src/avatars/). A user's namespace carries its owner's avatar name too, so that a
 * namespace shows it without a join.
 *
 * A project's repository state as GitLab caches it: whether it has no branch yet (`empty_repo`) and the README at the
 * root of its default branch. Both are recorded when the repository changes (creation, a push, a merge); null is
 * not known yet (projects from before this migration), read from the repository when first shown.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  for (const table of ['users', 'namespaces', 'projects'])
    await db.schema.alterTable(table).addColumn('avatar', 'text').execute();
  await db.schema.alterTable('projects').addColumn('empty_repo', t.bool).execute();
  await db.schema.alterTable('projects').addColumn('readme_path', 'text').execute();
}
