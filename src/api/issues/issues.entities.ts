import { Type } from 'typebox';
import { Bool, Int, Literals, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/**
 * GitLab's Issue entity (the same in v4 and v5), the fields that apply to svc's issues: no time tracking, votes,
 * tasks or confidentiality. svc has no milestones, so `milestone` is always null (GitLab sends the key either way,
 * and clients such as GitLab's MCP server require it). `author` is null for an incident an alert opened (GitLab's alert bot).
 * `escalation_status` is svc's (GitLab keeps an incident's escalation status in GraphQL only); null on a plain issue.
 * `escalation_policy` is the policy an incident was paged with (GitLab's GraphQL `escalationPolicy`), or null.
 */
export const IssueEntity = Type.Object({
  id: Int,
  iid: Int,
  project_id: Int,
  title: Str,
  description: Str,
  state: Literals(['opened', 'closed'] as const),
  created_at: Str,
  updated_at: Str,
  closed_at: Nullable(Str),
  closed_by: Nullable(UserBasic),
  labels: Type.Array(Str),
  milestone: Type.Null(),
  assignees: Type.Array(UserBasic),
  author: Nullable(UserBasic),
  type: Literals(['ISSUE', 'INCIDENT'] as const),
  assignee: Nullable(UserBasic),
  user_notes_count: Int,
  web_url: Str,
  references: Type.Object({ short: Str, relative: Str, full: Str }),
  _links: Type.Object({ self: Str, notes: Str, project: Str }),
  severity: Literals(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const),
  issue_type: Literals(['issue', 'incident'] as const),
  escalation_status: Nullable(Literals(['triggered', 'acknowledged', 'resolved'] as const)),
  escalation_policy: Nullable(Type.Object({ id: Int, name: Str })),
});

/** A project's incident timeline event tag (GitLab's `TimelineEventTagType`). */
export const TimelineEventTagEntity = Type.Object({ id: Int, name: Str });

/**
 * An incident timeline event, as GitLab's `TimelineEventType` in REST's snake case. No `note_html`: svc renders
 * Markdown in the browser only. `editable` is false for the events svc writes itself (status, severity, ...).
 */
export const TimelineEventEntity = Type.Object({
  id: Int,
  project_id: Int,
  incident_id: Int,
  incident_iid: Int,
  author: Nullable(UserBasic),
  updated_by_user: Nullable(UserBasic),
  note: Str,
  action: Literals(['comment', 'issues', 'status', 'severity', 'label', 'escalation'] as const),
  editable: Bool,
  promoted_from_note: Nullable(Type.Object({ id: Int })),
  occurred_at: Str,
  created_at: Str,
  updated_at: Str,
  timeline_event_tags: Type.Array(TimelineEventTagEntity),
});
