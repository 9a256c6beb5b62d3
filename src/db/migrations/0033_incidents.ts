import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Incidents people work in: an issue's severity (GitLab's `issuable_severities`, `unknown` until set), an incident's
 * escalation status (GitLab's `incident_management_issuable_escalation_statuses`: triggered, acknowledged,
 * resolved; null for a plain issue), who closed it, its assignees and labels (label names: svc has no label
 * objects of its own). The incident timeline (GitLab's `incident_management_timeline_events`), the project's
 * timeline event tags and their links. The alert setting `auto_resolve_alerts`: closing an incident resolves its
 * alerts (GitLab always does; on by default).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .alterTable('issues')
    .addColumn('severity', 'text', (c) => c.notNull().defaultTo('unknown'))
    .execute();
  await db.schema.alterTable('issues').addColumn('escalation_status', 'text').execute();
  await db.schema
    .alterTable('issues')
    .addColumn('closed_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  // Incidents opened before: triggered, or resolved when already closed (GitLab builds the status on first read).
  await db
    .updateTable('issues' as never)
    .set({ escalation_status: 'triggered' } as never)
    .where('issue_type' as never, '=', 'incident' as never)
    .execute();
  await db
    .updateTable('issues' as never)
    .set({ escalation_status: 'resolved' } as never)
    .where('issue_type' as never, '=', 'incident' as never)
    .where('state' as never, '=', 'closed' as never)
    .execute();
  await db.schema
    .createIndex('issues_project_updated')
    .on('issues')
    .columns(['project_id', 'updated_at'])
    .execute();

  await db.schema
    .createTable('issue_assignees')
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('issue_assignees_pk', ['issue_id', 'user_id'])
    .execute();
  await db.schema.createIndex('issue_assignees_user').on('issue_assignees').column('user_id').execute();

  await db.schema
    .createTable('issue_labels')
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('issue_labels_pk', ['issue_id', 'name'])
    .execute();
  await db.schema.createIndex('issue_labels_name').on('issue_labels').column('name').execute();

  await withId(db.schema.createTable('incident_timeline_events'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('promoted_from_note_id', 'integer', (c) => c.references('notes.id').onDelete('set null'))
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('incident_timeline_events_issue')
    .on('incident_timeline_events')
    .columns(['issue_id', 'occurred_at'])
    .execute();

  await withId(db.schema.createTable('incident_timeline_event_tags'), dialect)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // GitLab's names are unique per project regardless of case; the service compares lower-cased names.
    .addColumn('lower_name', 'text', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('incident_timeline_event_tags_name', ['project_id', 'lower_name'])
    .execute();

  await db.schema
    .createTable('incident_timeline_event_tag_links')
    .addColumn('timeline_event_id', 'integer', (c) =>
      c.notNull().references('incident_timeline_events.id').onDelete('cascade'),
    )
    .addColumn('tag_id', 'integer', (c) =>
      c.notNull().references('incident_timeline_event_tags.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('incident_timeline_event_tag_links_pk', ['timeline_event_id', 'tag_id'])
    .execute();

  await db.schema
    .alterTable('project_alert_settings')
    .addColumn('auto_resolve_alerts', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(true)))
    .execute();
}
