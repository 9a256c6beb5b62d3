import { type Static, Type } from 'typebox';
import * as v4 from './merge-requests.entities.js';

export {
  CommitEntity,
  DiffEntity,
  MergeRefEntity,
  MergeRequestVersionEntity,
  MergeRequestVersionFullEntity,
  RebaseEntity,
} from './merge-requests.entities.js';

/** Spec (v4 to v5): "merged_by field … Removed (merge_user)"; "merge_status field … Removed (detailed_merge_status)". */
const REMOVED = ['merged_by', 'merge_status'] as const;

export const MergeRequestShape = Type.Omit(v4.MergeRequestShape, REMOVED);
// Wrapped as v4's is (TS2589); same JSON schema.
export const MergeRequestEntity = Type.Unsafe<Static<typeof MergeRequestShape>>(MergeRequestShape);

/**
 * v5 has no `/changes` endpoint (spec: removed; the diffs endpoint replaces it), so no route uses this; it is
 * here so that both versions' tables have the same names.
 */
export const MergeRequestChangesShape = Type.Omit(v4.MergeRequestChangesShape, REMOVED);
export const MergeRequestChangesEntity =
  Type.Unsafe<Static<typeof MergeRequestChangesShape>>(MergeRequestChangesShape);
