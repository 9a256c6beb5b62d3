import type { Static } from 'typebox';
import type { ApprovalState } from '../../../merge-requests/mr-approvals.service.js';
import type { View } from '../../v4/presenters/common.js';
import * as v4 from '../../v4/presenters/mr-approvals.js';
import type { MergeRequestApprovalsEntity } from '../entities/mr-approvals.js';

export { mergeRequestApprovalRule, mergeRequestApprovalState } from '../../v4/presenters/mr-approvals.js';

/** v5 merge request approvals: without the removed `approvers` and `approver_groups` (spec, v4 to v5). */
export function mergeRequestApprovals(s: ApprovalState, v: View): Static<typeof MergeRequestApprovalsEntity> {
  const { approvers: _approvers, approver_groups: _groups, ...rest } = v4.mergeRequestApprovals(s, v);
  return rest;
}
