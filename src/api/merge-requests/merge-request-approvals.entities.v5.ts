import { Type } from 'typebox';
import * as v4 from './merge-request-approvals.entities.js';

export {
  MergeRequestApprovalRuleEntity,
  MergeRequestApprovalStateEntity,
} from './merge-request-approvals.entities.js';

/** Spec (v4 to v5): `approvers` and `approver_groups` are removed; v5 leaves them out of merge requests' too. */
export const MergeRequestApprovalsEntity = Type.Omit(v4.MergeRequestApprovalsEntity, [
  'approvers',
  'approver_groups',
]);
