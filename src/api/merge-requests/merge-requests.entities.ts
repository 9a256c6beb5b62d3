import { type Static, Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/** GitLab's MergeRequest entity; `merged_by` and `merge_status` are v4 only (spec: removed in v5). */
export const MergeRequestShape = Type.Object({
  id: Int,
  iid: Int,
  project_id: Int,
  title: Str,
  description: Str,
  state: Str,
  created_at: Str,
  updated_at: Str,
  merged_by: Nullable(UserBasic),
  merge_user: Nullable(UserBasic),
  merged_at: Nullable(Str),
  closed_by: Nullable(UserBasic),
  closed_at: Nullable(Str),
  target_branch: Str,
  source_branch: Str,
  source_project_id: Int,
  target_project_id: Int,
  author: Nullable(UserBasic),
  assignee: Type.Null(),
  assignees: Type.Array(UserBasic),
  reviewers: Type.Array(UserBasic),
  labels: Type.Array(Str),
  draft: Bool,
  work_in_progress: Bool,
  milestone: Type.Null(),
  merge_when_pipeline_succeeds: Bool,
  merge_status: Str,
  detailed_merge_status: Str,
  has_conflicts: Bool,
  sha: Nullable(Str),
  merge_commit_sha: Nullable(Str),
  squash_commit_sha: Type.Null(),
  squash: Bool,
  user_notes_count: Int,
  upvotes: Int,
  downvotes: Int,
  discussion_locked: Nullable(Bool),
  should_remove_source_branch: Nullable(Bool),
  force_remove_source_branch: Nullable(Bool),
  blocking_discussions_resolved: Bool,
  reference: Str,
  references: Type.Object({ short: Str, relative: Str, full: Str }),
  web_url: Str,
  diff_refs: Nullable(Type.Object({ base_sha: Str, head_sha: Str, start_sha: Str })),
  /** Why the last rebase failed; null when it succeeded or none ran. */
  merge_error: Nullable(Str),
  /** Only with `include_rebase_in_progress=true` (GET of one merge request). */
  rebase_in_progress: Type.Optional(Bool),
});

/** `PUT .../rebase` (202): whether the rebase still runs. */
export const RebaseEntity = Type.Object({ rebase_in_progress: Bool });

/** `GET .../merge_ref`: the merge ref's commit. */
export const MergeRefEntity = Type.Object({ commit_id: Str });

// Wrapped so that route typing does not instantiate the deep TypeBox type (TS2589); same JSON schema.
export const MergeRequestEntity = Type.Unsafe<Static<typeof MergeRequestShape>>(MergeRequestShape);

/** GitLab's Diff entity (`/diffs`, and `changes` of the v4 `/changes` endpoint). */
export const DiffEntity = Type.Object({
  diff: Str,
  collapsed: Bool,
  too_large: Bool,
  new_path: Str,
  old_path: Str,
  a_mode: Str,
  b_mode: Str,
  new_file: Bool,
  renamed_file: Bool,
  deleted_file: Bool,
  generated_file: Bool,
});

export const MergeRequestChangesShape = Type.Object({
  ...MergeRequestShape.properties,
  changes_count: Str,
  changes: Type.Array(DiffEntity),
  overflow: Bool,
});

export const MergeRequestChangesEntity =
  Type.Unsafe<Static<typeof MergeRequestChangesShape>>(MergeRequestChangesShape);

/** GitLab's Commit entity. */
export const CommitEntity = Type.Object({
  id: Str,
  short_id: Str,
  created_at: Str,
  parent_ids: Type.Array(Str),
  title: Str,
  message: Str,
  author_name: Str,
  author_email: Str,
  authored_date: Str,
  committer_name: Str,
  committer_email: Str,
  committed_date: Str,
  trailers: Type.Object({}),
  extended_trailers: Type.Object({}),
  web_url: Str,
});

/** GitLab's MergeRequestDiff entity: one diff version (`GET .../versions`). */
export const MergeRequestVersionEntity = Type.Object({
  id: Int,
  head_commit_sha: Str,
  base_commit_sha: Str,
  start_commit_sha: Str,
  created_at: Str,
  merge_request_id: Int,
  state: Str,
  real_size: Str,
  patch_id_sha: Nullable(Str),
});

/** GitLab's MergeRequestDiffFull: a version with its commits and diffs (`GET .../versions/:version_id`). */
export const MergeRequestVersionFullEntity = Type.Object({
  ...MergeRequestVersionEntity.properties,
  commits: Type.Array(CommitEntity),
  diffs: Type.Array(DiffEntity),
});
