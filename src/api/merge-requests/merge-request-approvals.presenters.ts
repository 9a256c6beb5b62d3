import type { Static } from 'typebox';
import type { ApprovalState, RuleState } from '../../merge-requests/merge-request-approvals.service.js';
import type { View } from '../common/common.presenters.js';
import { group } from '../groups/groups.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  MergeRequestApprovalRuleEntity,
  MergeRequestApprovalStateEntity,
  MergeRequestApprovalsEntity,
} from './merge-request-approvals.entities.js';

export function mergeRequestApprovals(s: ApprovalState, v: View): Static<typeof MergeRequestApprovalsEntity> {
  const mr = s.mergeRequest;
  const left = s.rules.filter((r) => !r.approved);
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.projectId,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.createdAt,
    updated_at: mr.updatedAt,
    approved: s.approved,
    approvals_required: s.approvalsRequired,
    approvals_left: s.approvalsLeft,
    require_password_to_approve: s.requirePasswordToApprove,
    approved_by: s.approvedBy.map((a) => ({ user: userBasic(a.user, v), approved_at: a.approvedAt })),
    suggested_approvers: [
      ...new Map(s.rules.flatMap((r) => r.eligible).map((u) => [u.id, userBasic(u, v)])).values(),
    ],
    approvers: [],
    approver_groups: [],
    user_has_approved: s.userHasApproved,
    user_can_approve: s.userCanApprove,
    approval_rules_left: left.map((r) => ({ id: r.rule.id, name: r.rule.name, rule_type: 'regular' })),
    has_approval_rules: s.rules.length > 0,
    merge_request_approvers_available: true,
    multiple_approval_rules_available: true,
    invalid_approvers_rules: [],
  };
}

export function mergeRequestApprovalRule(
  r: RuleState,
  v: View,
): Static<typeof MergeRequestApprovalRuleEntity> {
  return {
    id: r.rule.id,
    name: r.rule.name,
    rule_type: 'regular',
    eligible_approvers: r.eligible.map((u) => userBasic(u, v)),
    approvals_required: r.rule.approvalsRequired,
    users: r.rule.users.map((u) => userBasic(u, v)),
    groups: r.rule.groups.map((g) => group(g, v)),
    contains_hidden_groups: false,
    approved_by: r.approvedBy.map((u) => userBasic(u, v)),
    // A project rule applies as it is; a merge request's own rule names the project rule it was copied from.
    source_rule:
      r.rule.source === undefined
        ? { approvals_required: r.rule.approvalsRequired }
        : r.rule.source && { approvals_required: r.rule.source.approvalsRequired },
    approved: r.approved,
    overridden: r.rule.source?.overridden ?? false,
  };
}

export function mergeRequestApprovalState(
  s: ApprovalState,
  v: View,
): Static<typeof MergeRequestApprovalStateEntity> {
  return {
    approval_rules_overwritten: s.rulesOverwritten,
    rules: s.rules.map((r) => mergeRequestApprovalRule(r, v)),
  };
}
