import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes } from './helpers.js';

/** GitLab's event flags of a web hook that default to false (its `web_hooks` columns, `NOT NULL DEFAULT false`). */
const OFF_BY_DEFAULT = [
  'tag_push_events',
  'merge_requests_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'releases_events',
  'feature_flag_events',
  'milestone_events',
  'emoji_events',
  'resource_access_token_events',
  'resource_deploy_token_events',
  'vulnerability_events',
] as const;

/**
 * GitLab's event flags on project hooks, as its `web_hooks` table has them: `push_events` on by default, the others
 * off, `confidential_note_events` without a default (null until set, as GitLab shows it), the push branch filter
 * and its strategy (`wildcard`, `regex`, `all_branches`). Hooks saved before svc sent push events keep receiving
 * only what they were created for: their `push_events` starts false; new hooks get GitLab's default.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  // Rows written from now on name every flag: the column defaults only fill in the hooks that existed.
  await db.schema
    .alterTable('project_hooks')
    .addColumn('push_events', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .execute();
  for (const name of OFF_BY_DEFAULT) {
    await db.schema
      .alterTable('project_hooks')
      .addColumn(name, t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
      .execute();
  }
  await db.schema.alterTable('project_hooks').addColumn('confidential_note_events', t.bool).execute();
  await db.schema.alterTable('project_hooks').addColumn('push_events_branch_filter', 'text').execute();
  await db.schema
    .alterTable('project_hooks')
    .addColumn('branch_filter_strategy', 'text', (c) => c.notNull().defaultTo('wildcard'))
    .execute();
}
