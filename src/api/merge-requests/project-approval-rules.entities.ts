import { Type } from 'typebox';
import { Bool, Int, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/** `GET /projects/:id/approvals`; `approvers` and `approver_groups` are v4 only (always empty). */
export const ApprovalSettingsEntity = Type.Object({
  approvers: Type.Array(UserBasic),
  approver_groups: Type.Array(Type.Object({ id: Int })),
  approvals_before_merge: Int,
  reset_approvals_on_push: Bool,
  selective_code_owner_removals: Bool,
  disable_overriding_approvers_per_merge_request: Bool,
  merge_requests_author_approval: Bool,
  merge_requests_disable_committers_approval: Bool,
  require_password_to_approve: Bool,
  require_reauthentication_to_approve: Bool,
});

const GroupBasic = Type.Object({ id: Int, name: Str, path: Str, full_path: Str, web_url: Str });

export const ApprovalRuleEntity = Type.Object({
  id: Int,
  name: Str,
  rule_type: Str,
  report_type: Type.Null(),
  eligible_approvers: Type.Array(UserBasic),
  approvals_required: Int,
  users: Type.Array(UserBasic),
  groups: Type.Array(GroupBasic),
  contains_hidden_groups: Bool,
  protected_branches: Type.Array(Type.Object({})),
  applies_to_all_protected_branches: Bool,
});

export const ManagedLicenseEntity = Type.Object({ id: Int, name: Str, approval_status: Str });
