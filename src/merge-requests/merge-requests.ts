/** Merge requests: the stored record, list filters and the refusals of the merge rules. */

export interface MergeRequest {
  readonly id: number;
  readonly projectId: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string;
  readonly sourceBranch: string;
  readonly targetBranch: string;
  readonly state: 'opened' | 'closed' | 'merged';
  readonly draft: boolean;
  readonly authorId: number | null;
  readonly mergeUserId: number | null;
  readonly mergedAt: string | null;
  readonly closedAt: string | null;
  readonly closedById: number | null;
  readonly mergeCommitSha: string | null;
  /** Set on the request by its author: delete the source branch when merging. */
  readonly forceRemoveSourceBranch: boolean | null;
  /** Set by the merge: whether the source branch was deleted. */
  readonly shouldRemoveSourceBranch: boolean | null;
  /** Kept at merge time: the merge base and the source head that were merged. */
  readonly mergedDiff: { readonly baseSha: string; readonly headSha: string } | null;
  /** Why the last rebase failed (GitLab's `merge_error`); null after one that succeeded, or none. */
  readonly mergeError: string | null;
  /** A rebase of the source branch is running (GitLab's `rebase_in_progress?`). */
  readonly rebaseInProgress: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface MergeRequestFilter {
  readonly state: 'opened' | 'closed' | 'merged' | 'all';
  readonly sourceBranch?: string;
  readonly targetBranch?: string;
  /** Only these merge requests (GitLab's `iids[]`). */
  readonly iids?: readonly number[];
}

/** A new merge request as stored. */
export interface NewMergeRequest {
  readonly projectId: number;
  readonly title: string;
  readonly description: string;
  readonly sourceBranch: string;
  readonly targetBranch: string;
  readonly authorId: number;
  readonly forceRemoveSourceBranch: boolean | null;
}

/** GitLab's draft prefixes: `Draft:`, `[Draft]`, `(Draft)`, `Draft - `, `Draft `. */
const DRAFT = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s)/i;

/** Whether a title marks the merge request as a draft. */
export const isDraftTitle = (title: string): boolean => DRAFT.test(title);

/**
 * Why a merge request cannot be changed or merged (GitLab's answers: 405 for a request that is not open, 406 for
 * one git cannot merge, 409 when the source or target moved). The HTTP layer shapes the bodies.
 */
export type MergeRefusal =
  | 'not_open'
  | 'draft'
  | 'branch_missing'
  | 'conflicts'
  | 'sha_mismatch'
  | 'target_changed'
  | 'not_approved';

/** A merge or state change the merge rules refuse; nothing was changed. */
export class MergeRefusedError extends Error {
  constructor(readonly reason: MergeRefusal) {
    super(`merge refused: ${reason}`);
    this.name = 'MergeRefusedError';
  }
}

/**
 * A diff version of a merge request: the commits its diff was between when it was opened, or after a push moved
 * its source head (GitLab's merge request diff).
 */
export interface MergeRequestVersion {
  readonly id: number;
  readonly mergeRequestId: number;
  /** 1 for the version the merge request was opened with, then one more per version. */
  readonly number: number;
  readonly baseSha: string;
  readonly startSha: string;
  readonly headSha: string;
  /** The number of files the diff changes. */
  readonly realSize: number;
  /** `git patch-id --stable` of the diff; null for an empty diff. */
  readonly patchIdSha: string | null;
  readonly createdAt: string;
}

export type NewMergeRequestVersion = Omit<MergeRequestVersion, 'id' | 'createdAt'>;
