import type { Static } from 'typebox';
import type { ApprovalState } from '../../merge-requests/merge-request-approvals.service.js';
import type { View } from '../common/common.presenters.js';
import type { MergeRequestApprovalsEntity } from './merge-request-approvals.entities.v5.js';
import * as v4 from './merge-request-approvals.presenters.js';

export { mergeRequestApprovalRule, mergeRequestApprovalState } from './merge-request-approvals.presenters.js';

/** v5 merge request approvals: without the removed `approvers` and `approver_groups` (spec, v4 to v5). */
export function mergeRequestApprovals(s: ApprovalState, v: View): Static<typeof MergeRequestApprovalsEntity> {
  const { approvers: _approvers, approver_groups: _groups, ...rest } = v4.mergeRequestApprovals(s, v);
  return rest;
}
