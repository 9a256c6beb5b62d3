import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes } from './helpers.js';

/**
 * The project and group settings GitLab clients read and settings tools reconcile: merge settings,
 * `request_access_enabled`, and the per-feature `*_access_level` values (JSON, one key per feature; a missing key
 * is GitLab's default, `enabled`).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  const bool = (table: string, column: string, value: boolean) =>
    db.schema
      .alterTable(table)
      .addColumn(column, t.bool, (c) => c.notNull().defaultTo(t.boolDefault(value)))
      .execute();
  await db.schema
    .alterTable('projects')
    .addColumn('merge_method', 'text', (c) => c.notNull().defaultTo('merge'))
    .execute();
  await bool('projects', 'request_access_enabled', true);
  await bool('projects', 'remove_source_branch_after_merge', true);
  await bool('projects', 'only_allow_merge_if_all_discussions_are_resolved', false);
  await bool('projects', 'only_allow_merge_if_pipeline_succeeds', false);
  await db.schema
    .alterTable('projects')
    .addColumn('feature_access_levels', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await bool('namespaces', 'request_access_enabled', true);
}
