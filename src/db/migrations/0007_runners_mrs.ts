import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Runners (with their projects and registration tokens), merge requests, approval settings and rules, managed licenses. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('runners'), dialect)
    .addColumn('runner_type', 'text', (c) => c.notNull())
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('description', 'text')
    .addColumn('name', 'text')
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('active', t.bool, (c) => c.notNull())
    .addColumn('locked', t.bool, (c) => c.notNull())
    .addColumn('run_untagged', t.bool, (c) => c.notNull())
    .addColumn('tag_list', 'text', (c) => c.notNull())
    .addColumn('access_level', 'text', (c) => c.notNull())
    .addColumn('maximum_timeout', 'integer')
    .addColumn('maintenance_note', 'text')
    .addColumn('contacted_at', t.timestamp)
    .addColumn('ip_address', 'text')
    .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('runner_projects')
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('runners.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('runner_projects_pk', ['runner_id', 'project_id'])
    .execute();
  await db.schema
    .createTable('runner_registration_tokens')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .execute();

  await withId(db.schema.createTable('merge_requests'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('source_branch', 'text', (c) => c.notNull())
    .addColumn('target_branch', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('merge_user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('merged_at', t.timestamp)
    .addColumn('closed_at', t.timestamp)
    .addColumn('closed_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('merge_commit_sha', 'text')
    .addColumn('force_remove_source_branch', t.bool)
    .addColumn('should_remove_source_branch', t.bool)
    // The diff a merged request keeps: its merge base and source head at merge time.
    .addColumn('diff_base_sha', 'text')
    .addColumn('diff_head_sha', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('merge_requests_project_iid', ['project_id', 'iid'])
    .execute();

  await withId(db.schema.createTable('approval_rules'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('approvals_required', 'integer', (c) => c.notNull())
    .addColumn('user_ids', 'text', (c) => c.notNull())
    .addColumn('group_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('project_approval_settings')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('approvals_before_merge', 'integer', (c) => c.notNull())
    .addColumn('reset_approvals_on_push', t.bool, (c) => c.notNull())
    .addColumn('disable_overriding_approvers_per_merge_request', t.bool, (c) => c.notNull())
    .addColumn('merge_requests_author_approval', t.bool, (c) => c.notNull())
    .addColumn('merge_requests_disable_committers_approval', t.bool, (c) => c.notNull())
    .addColumn('require_password_to_approve', t.bool, (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('managed_licenses'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('approval_status', 'text', (c) => c.notNull())
    .addUniqueConstraint('managed_licenses_project_name', ['project_id', 'name'])
    .execute();
}
