import type { Static } from 'typebox';
import type { Issue } from '../../issues/issues.js';
import type { View } from '../common/common.presenters.js';
import type { IssueEntity } from './issues.entities.js';

export function issue(i: Issue, v: View): Static<typeof IssueEntity> {
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description,
    state: i.state,
    issue_type: i.issueType,
    type: i.issueType.toUpperCase(),
    labels: [],
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    closed_at: i.closedAt,
    web_url: `${v.externalUrl}/-/ui/projects/${i.projectId}/issues/${i.iid}`,
  };
}
