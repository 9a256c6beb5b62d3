import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Merge request diff versions (GitLab's `merge_request_diffs`): one row when a merge request is opened and one
 * each time a push moves its source head; and approval rules set on one merge request, which then replace the
 * project's rules for it (GitLab's "overridden" rules: the project's are copied first, then changed).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('merge_request_diffs'), dialect)
    .addColumn('merge_request_id', 'integer', (c) =>
      c.notNull().references('merge_requests.id').onDelete('cascade'),
    )
    // 1, 2, 3… per merge request: concurrent recorders of one push cannot both add it.
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('base_commit_sha', 'text', (c) => c.notNull())
    .addColumn('start_commit_sha', 'text', (c) => c.notNull())
    .addColumn('head_commit_sha', 'text', (c) => c.notNull())
    .addColumn('real_size', 'integer', (c) => c.notNull())
    .addColumn('patch_id_sha', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('merge_request_diffs_mr_number', ['merge_request_id', 'number'])
    .execute();

  await withId(db.schema.createTable('merge_request_approval_rules'), dialect)
    .addColumn('merge_request_id', 'integer', (c) =>
      c.notNull().references('merge_requests.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('approvals_required', 'integer', (c) => c.notNull())
    .addColumn('user_ids', 'text', (c) => c.notNull())
    .addColumn('group_ids', 'text', (c) => c.notNull())
    .addColumn('approval_project_rule_id', 'integer')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('merge_request_approval_rules_mr_name', ['merge_request_id', 'name'])
    .execute();
  // Set when the merge request's rules were first changed on it: from then on its own rules apply (none left
  // means none), no longer the project's.
  await db.schema
    .alterTable('merge_requests')
    .addColumn('approval_rules_overwritten', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .execute();
}
