import type { Static } from '@sinclair/typebox';
import type { Namespace } from '../../groups/namespaces.js';
import type { ApprovalSettings } from '../../merge-requests/approvals.js';
import type { MergeRequestView } from '../../merge-requests/merge-requests.service.js';
import type { Project } from '../../projects/projects.js';
import { contactStatus, type Runner } from '../../runners/runners.js';
import type * as E from '../v4/entities.js';
import * as v4 from '../v4/presenters.js';

/**
 * v5 presenters. Entities that v5 does not change are v4's; v5's removals (spec: REST API v4 to v5
 * changes) are derived here from v4 with the removed fields dropped, each with the spec line.
 */
export * from '../v4/presenters.js';

/**
 * v5 Runner. Spec: "Runner property active — replaced by paused"; "Runner status values — only online, offline,
 * not_connected; paused and active no longer appear in status"; "Runner ip_address — in v5 the field is removed".
 */
export function runner(r: Runner, v: v4.RunnerView): Static<typeof E.RunnerEntity> {
  const { active: _active, ip_address: _ip, ...rest } = v4.runner(r, v);
  return { ...rest, status: contactStatus(r, v.now) };
}

export function runnerDetails(
  r: Runner,
  v: v4.RunnerView,
  projects: readonly Project[],
  groups: readonly Namespace[],
  view: v4.View,
): Static<typeof E.RunnerDetailsEntity> {
  const { active: _active, ip_address: _ip, ...rest } = v4.runnerDetails(r, v, projects, groups, view);
  return { ...rest, status: contactStatus(r, v.now) };
}

/** v5 MergeRequest. Spec: "merged_by field … Removed (merge_user)"; "merge_status field … Removed (detailed_merge_status)". */
export function mergeRequest(m: MergeRequestView, v: v4.View): Static<typeof E.MergeRequestEntity> {
  const { merged_by: _mergedBy, merge_status: _mergeStatus, ...rest } = v4.mergeRequest(m, v);
  return rest;
}

/** v5 approval configuration. Spec: approvers and approval groups "removed from the get-configuration endpoint". */
export function approvalSettings(s: ApprovalSettings): Static<typeof E.ApprovalSettingsEntity> {
  const { approvers: _approvers, approver_groups: _groups, ...rest } = v4.approvalSettings(s);
  return rest;
}
