import type { Namespace } from '../namespaces/namespaces.js';
import type { User } from '../users/users.js';

/** Merge request approvals: project configuration, approval rules and (v4 only) managed licenses. */

/** A project's merge request approval configuration (`GET/POST /projects/:id/approvals`). */
export interface ApprovalSettings {
  readonly approvals_before_merge: number;
  readonly reset_approvals_on_push: boolean;
  readonly disable_overriding_approvers_per_merge_request: boolean;
  readonly merge_requests_author_approval: boolean;
  readonly merge_requests_disable_committers_approval: boolean;
  readonly require_password_to_approve: boolean;
}

/** GitLab's defaults for a project that never changed its configuration. */
export const DEFAULT_APPROVAL_SETTINGS: ApprovalSettings = {
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
};

export interface ApprovalRule {
  readonly id: number;
  readonly name: string;
  readonly approvalsRequired: number;
  readonly users: readonly User[];
  readonly groups: readonly Namespace[];
  /**
   * For a rule set on a merge request: the project rule it was copied from, and whether it now differs from it
   * (null: a rule of its own). Undefined for a project rule.
   */
  readonly source?: { readonly approvalsRequired: number; readonly overridden: boolean } | null;
}

export interface ApprovalRuleInput {
  readonly name?: string;
  readonly approvals_required?: number;
  readonly user_ids?: readonly number[];
  readonly group_ids?: readonly number[];
}

export interface ManagedLicense {
  readonly id: number;
  readonly name: string;
  readonly approval_status: 'allowed' | 'denied';
}

/** An approval rule as stored: the ids of its users and groups. */
export interface ApprovalRuleRecord {
  readonly id: number;
  readonly name: string;
  readonly approvalsRequired: number;
  readonly userIds: readonly number[];
  readonly groupIds: readonly number[];
}

/** A rule set on a merge request, and the project rule it was copied from (null: a rule of its own). */
export interface MergeRequestRuleRecord extends ApprovalRuleRecord {
  readonly sourceRuleId: number | null;
}
