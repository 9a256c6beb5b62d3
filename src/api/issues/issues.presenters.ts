import type { Static } from 'typebox';
import type { IssueView, TimelineEventTag, TimelineEventView } from '../../issues/issues.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type { IssueEntity, TimelineEventEntity, TimelineEventTagEntity } from './issues.entities.js';

export function issue(i: IssueView, v: View): Static<typeof IssueEntity> {
  const api = `${v.externalUrl}/api/v4/projects/${i.projectId}`;
  const assignees = i.assignees.map((u) => userBasic(u, v));
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description,
    state: i.state,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    closed_at: i.closedAt,
    closed_by: i.closedBy ? userBasic(i.closedBy, v) : null,
    labels: [...i.labels],
    milestone: null,
    assignees,
    author: i.author ? userBasic(i.author, v) : null,
    type: i.issueType === 'incident' ? 'INCIDENT' : 'ISSUE',
    assignee: assignees[0] ?? null,
    user_notes_count: i.userNotesCount,
    web_url: `${v.externalUrl}/-/ui/projects/${i.projectId}/issues/${i.iid}`,
    references: { short: `#${i.iid}`, relative: `#${i.iid}`, full: `${i.projectPath}#${i.iid}` },
    _links: { self: `${api}/issues/${i.iid}`, notes: `${api}/issues/${i.iid}/notes`, project: api },
    severity: i.severity.toUpperCase() as Static<typeof IssueEntity>['severity'],
    issue_type: i.issueType,
    escalation_status: i.escalationStatus,
    escalation_policy: i.escalationPolicy && { id: i.escalationPolicy.id, name: i.escalationPolicy.name },
  };
}

export function timelineEventTag(t: TimelineEventTag): Static<typeof TimelineEventTagEntity> {
  return { id: t.id, name: t.name };
}

export function timelineEvent(e: TimelineEventView, v: View): Static<typeof TimelineEventEntity> {
  return {
    id: e.id,
    project_id: e.projectId,
    incident_id: e.issueId,
    incident_iid: e.incidentIid,
    author: e.author ? userBasic(e.author, v) : null,
    updated_by_user: e.updatedBy ? userBasic(e.updatedBy, v) : null,
    note: e.note,
    action: e.action,
    editable: e.action === 'comment',
    promoted_from_note: e.promotedFromNoteId === null ? null : { id: e.promotedFromNoteId },
    occurred_at: e.occurredAt,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    timeline_event_tags: e.tags.map(timelineEventTag),
  };
}
