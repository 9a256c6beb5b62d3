import { Type } from 'typebox';
import * as v4 from './project-approval-rules.entities.js';

export { ApprovalRuleEntity, ManagedLicenseEntity } from './project-approval-rules.entities.js';

/** Spec (v4 to v5): approvers and approval groups are "removed from the get-configuration endpoint". */
export const ApprovalSettingsEntity = Type.Omit(v4.ApprovalSettingsEntity, ['approvers', 'approver_groups']);
