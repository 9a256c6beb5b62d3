import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { GroupEntity } from '../groups/groups.entities.js';
import { UserBasic } from '../users/users.entities.js';
import { MergeRequestShape } from './merge-requests.entities.js';

/** `GET /projects/:id/merge_requests/:iid/approvals` and the answer of `approve` and `unapprove` (GitLab's). */
export const MergeRequestApprovalsEntity = Type.Object({
  ...Type.Pick(MergeRequestShape, [
    'id',
    'iid',
    'project_id',
    'title',
    'description',
    'state',
    'created_at',
    'updated_at',
  ]).properties,
  approved: Bool,
  approvals_required: Int,
  approvals_left: Int,
  require_password_to_approve: Bool,
  approved_by: Type.Array(Type.Object({ user: UserBasic, approved_at: Str })),
  suggested_approvers: Type.Array(UserBasic),
  approvers: Type.Array(Type.Object({ user: UserBasic })),
  approver_groups: Type.Array(Type.Object({ group: GroupEntity })),
  user_has_approved: Bool,
  user_can_approve: Bool,
  approval_rules_left: Type.Array(Type.Object({ id: Int, name: Str, rule_type: Str })),
  has_approval_rules: Bool,
  merge_request_approvers_available: Bool,
  multiple_approval_rules_available: Bool,
  invalid_approvers_rules: Type.Array(Type.Object({ id: Int, name: Str, rule_type: Str })),
});

/** One rule in `GET .../approval_state` and `GET .../approval_rules` of a merge request. */
export const MergeRequestApprovalRuleEntity = Type.Object({
  id: Int,
  name: Str,
  rule_type: Str,
  eligible_approvers: Type.Array(UserBasic),
  approvals_required: Int,
  users: Type.Array(UserBasic),
  groups: Type.Array(GroupEntity),
  contains_hidden_groups: Bool,
  approved_by: Type.Array(UserBasic),
  source_rule: Nullable(Type.Object({ approvals_required: Int })),
  approved: Bool,
  overridden: Bool,
});

export const MergeRequestApprovalStateEntity = Type.Object({
  approval_rules_overwritten: Bool,
  rules: Type.Array(MergeRequestApprovalRuleEntity),
});
