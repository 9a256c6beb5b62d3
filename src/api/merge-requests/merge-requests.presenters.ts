import type { Static } from 'typebox';
import type { FileDiff } from '../../git/diff.js';
import type { MergeRequestVersion } from '../../merge-requests/merge-requests.js';
import type { Commit, MergeRequestView } from '../../merge-requests/merge-requests.service.js';
import type { Project } from '../../projects/projects.js';
import type { User } from '../../users/users.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  CommitEntity,
  DiffEntity,
  MergeRequestChangesEntity,
  MergeRequestEntity,
  MergeRequestVersionEntity,
  MergeRequestVersionFullEntity,
} from './merge-requests.entities.js';

/** v4 MergeRequest: both `merged_by` and `merge_user`, both `merge_status` and `detailed_merge_status`. */
export function mergeRequest(m: MergeRequestView, v: View): Static<typeof MergeRequestEntity> {
  const user = (u: User | null) => (u ? userBasic(u, v) : null);
  const p = m.project;
  return {
    id: m.id,
    iid: m.iid,
    project_id: m.projectId,
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    merged_by: user(m.mergeUser),
    merge_user: user(m.mergeUser),
    merged_at: m.mergedAt,
    closed_by: user(m.closedBy),
    closed_at: m.closedAt,
    target_branch: m.targetBranch,
    source_branch: m.sourceBranch,
    source_project_id: m.projectId,
    target_project_id: m.projectId,
    author: user(m.author),
    assignee: null,
    assignees: [],
    reviewers: [],
    labels: [],
    draft: m.draft,
    work_in_progress: m.draft,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: m.mergeStatus,
    detailed_merge_status: m.detailedMergeStatus,
    has_conflicts: m.mergeStatus === 'cannot_be_merged',
    sha: m.diffRefs?.headSha ?? null,
    merge_commit_sha: m.mergeCommitSha,
    squash_commit_sha: null,
    squash: false,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    discussion_locked: null,
    should_remove_source_branch: m.shouldRemoveSourceBranch,
    force_remove_source_branch: m.forceRemoveSourceBranch,
    blocking_discussions_resolved: true,
    reference: `!${m.iid}`,
    references: { short: `!${m.iid}`, relative: `!${m.iid}`, full: `${p.fullPath}!${m.iid}` },
    web_url: `${v.externalUrl}/${p.fullPath}/-/merge_requests/${m.iid}`,
    diff_refs: m.diffRefs && {
      base_sha: m.diffRefs.baseSha,
      head_sha: m.diffRefs.headSha,
      start_sha: m.diffRefs.startSha,
    },
    merge_error: m.mergeError,
  };
}

/** GitLab's Diff entity; svc never collapses or truncates a diff. */
export function diff(d: FileDiff): Static<typeof DiffEntity> {
  return { ...d, collapsed: false, too_large: false };
}

/** The v4-only `/changes` response: the merge request with its diffs (deprecated, gone in v5). */
export function mergeRequestChanges(
  m: MergeRequestView,
  diffs: readonly FileDiff[],
  v: View,
): Static<typeof MergeRequestChangesEntity> {
  return {
    ...mergeRequest(m, v),
    changes_count: String(diffs.length),
    changes: diffs.map(diff),
    overflow: false,
  };
}

export function commit(c: Commit, p: Project, v: View): Static<typeof CommitEntity> {
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    created_at: c.committedDate,
    parent_ids: [...c.parentIds],
    title: c.title,
    message: c.message,
    author_name: c.authorName,
    author_email: c.authorEmail,
    authored_date: c.authoredDate,
    committer_name: c.committerName,
    committer_email: c.committerEmail,
    committed_date: c.committedDate,
    trailers: {},
    extended_trailers: {},
    web_url: `${v.externalUrl}/${p.fullPath}/-/commit/${c.id}`,
  };
}

/** GitLab's MergeRequestDiff: `state` is `empty` for a diff that changes no file, else `collected`. */
export function mergeRequestVersion(d: MergeRequestVersion): Static<typeof MergeRequestVersionEntity> {
  return {
    id: d.id,
    head_commit_sha: d.headSha,
    base_commit_sha: d.baseSha,
    start_commit_sha: d.startSha,
    created_at: d.createdAt,
    merge_request_id: d.mergeRequestId,
    state: d.realSize > 0 ? 'collected' : 'empty',
    real_size: String(d.realSize),
    patch_id_sha: d.patchIdSha,
  };
}

export function mergeRequestVersionFull(
  r: {
    project: Project;
    version: MergeRequestVersion;
    commits: readonly Commit[];
    diffs: readonly FileDiff[];
  },
  v: View,
): Static<typeof MergeRequestVersionFullEntity> {
  return {
    ...mergeRequestVersion(r.version),
    commits: r.commits.map((c) => commit(c, r.project, v)),
    diffs: r.diffs.map(diff),
  };
}
