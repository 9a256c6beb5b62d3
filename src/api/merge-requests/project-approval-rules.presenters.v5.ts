import type { Static } from 'typebox';
import type { ApprovalSettings } from '../../merge-requests/project-approval-rules.js';
import type { ApprovalSettingsEntity } from './project-approval-rules.entities.v5.js';
import * as v4 from './project-approval-rules.presenters.js';

export { approvalRule, managedLicense } from './project-approval-rules.presenters.js';

/** v5 approval configuration. Spec: approvers and approval groups "removed from the get-configuration endpoint". */
export function approvalSettings(s: ApprovalSettings): Static<typeof ApprovalSettingsEntity> {
  const { approvers: _approvers, approver_groups: _groups, ...rest } = v4.approvalSettings(s);
  return rest;
}
