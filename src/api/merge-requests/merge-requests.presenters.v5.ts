import type { Static } from 'typebox';
import type { FileDiff } from '../../git/diff.js';
import type { MergeRequestView } from '../../merge-requests/merge-requests.service.js';
import type { View } from '../common/common.presenters.js';
import type { MergeRequestChangesEntity, MergeRequestEntity } from './merge-requests.entities.v5.js';
import * as v4 from './merge-requests.presenters.js';

export {
  commit,
  diff,
  mergeRequestVersion,
  mergeRequestVersionFull,
} from './merge-requests.presenters.js';

/** v5 MergeRequest. Spec: "merged_by field … Removed (merge_user)"; "merge_status field … Removed (detailed_merge_status)". */
export function mergeRequest(m: MergeRequestView, v: View): Static<typeof MergeRequestEntity> {
  const { merged_by: _mergedBy, merge_status: _mergeStatus, ...rest } = v4.mergeRequest(m, v);
  return rest;
}

/** Unused in v5, which has no `/changes` endpoint (spec); kept so both versions present the same names. */
export function mergeRequestChanges(
  m: MergeRequestView,
  diffs: readonly FileDiff[],
  v: View,
): Static<typeof MergeRequestChangesEntity> {
  const { merged_by: _mergedBy, merge_status: _mergeStatus, ...rest } = v4.mergeRequestChanges(m, diffs, v);
  return rest;
}
