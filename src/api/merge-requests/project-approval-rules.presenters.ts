import type { Static } from 'typebox';
import type {
  ApprovalRule,
  ApprovalSettings,
  ManagedLicense,
} from '../../merge-requests/project-approval-rules.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  ApprovalRuleEntity,
  ApprovalSettingsEntity,
  ManagedLicenseEntity,
} from './project-approval-rules.entities.js';

/** v4 approval configuration: `approvers` and `approver_groups` always empty (GitLab, deprecated since 12.3). */
export function approvalSettings(s: ApprovalSettings): Static<typeof ApprovalSettingsEntity> {
  return {
    approvers: [],
    approver_groups: [],
    ...s,
    selective_code_owner_removals: false,
    require_reauthentication_to_approve: s.require_password_to_approve,
  };
}

export function approvalRule(r: ApprovalRule, v: View): Static<typeof ApprovalRuleEntity> {
  const users = r.users.map((u) => userBasic(u, v));
  return {
    id: r.id,
    name: r.name,
    rule_type: 'regular',
    report_type: null,
    eligible_approvers: users,
    approvals_required: r.approvalsRequired,
    users,
    groups: r.groups.map((g) => ({
      id: g.id,
      name: g.name,
      path: g.path,
      full_path: g.fullPath,
      web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    })),
    contains_hidden_groups: false,
    protected_branches: [],
    applies_to_all_protected_branches: true,
  };
}

export function managedLicense(l: ManagedLicense): Static<typeof ManagedLicenseEntity> {
  return { id: l.id, name: l.name, approval_status: l.approval_status };
}
