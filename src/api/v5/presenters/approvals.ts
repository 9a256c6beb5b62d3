import type { Static } from 'typebox';
import type { ApprovalSettings } from '../../../merge-requests/approvals.js';
import * as v4 from '../../v4/presenters/approvals.js';
import type { ApprovalSettingsEntity } from '../entities/approvals.js';

export { approvalRule, managedLicense } from '../../v4/presenters/approvals.js';

/** v5 approval configuration. Spec: approvers and approval groups "removed from the get-configuration endpoint". */
export function approvalSettings(s: ApprovalSettings): Static<typeof ApprovalSettingsEntity> {
  const { approvers: _approvers, approver_groups: _groups, ...rest } = v4.approvalSettings(s);
  return rest;
}
