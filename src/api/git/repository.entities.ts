import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { CommitEntity, DiffEntity } from '../merge-requests/merge-requests.entities.js';

/** GitLab's TreeObject: one entry of `GET /projects/:id/repository/tree`. */
export const TreeObjectEntity = Type.Object({
  id: Str,
  name: Str,
  type: Str,
  path: Str,
  mode: Str,
});

/** `GET /projects/:id/repository/files/:file_path`: the file's metadata and its bytes in base64. */
export const RepositoryFileEntity = Type.Object({
  file_name: Str,
  file_path: Str,
  size: Int,
  encoding: Str,
  content_sha256: Str,
  ref: Str,
  blob_id: Str,
  commit_id: Str,
  last_commit_id: Str,
  execute_filemode: Bool,
  content: Str,
});

/**
 * What creating or updating a file answers: where the commit went. GitLab answers `file_path` and `branch`;
 * `commit_id` (the new commit) is svc's addition, which GitLab's MCP server requires in this answer.
 */
export const RepositoryFileCommitEntity = Type.Object({ file_path: Str, branch: Str, commit_id: Str });

/** `GET /projects/:id/repository/blobs/:sha`. */
export const RepositoryBlobEntity = Type.Object({ size: Int, encoding: Str, content: Str, sha: Str });

/** GitLab's Branch entity. */
export const BranchEntity = Type.Object({
  name: Str,
  commit: CommitEntity,
  merged: Bool,
  protected: Bool,
  developers_can_push: Bool,
  developers_can_merge: Bool,
  can_push: Bool,
  default: Bool,
  web_url: Str,
});

/** GitLab's CommitStats. */
export const CommitStatsEntity = Type.Object({ additions: Int, deletions: Int, total: Int });

/** GitLab's CommitDetail: a Commit with its stats (unless `stats=false`), status, project and last pipeline. */
export const CommitDetailEntity = Type.Object({
  ...CommitEntity.properties,
  stats: Type.Optional(CommitStatsEntity),
  status: Nullable(Str),
  project_id: Int,
  last_pipeline: Nullable(Type.Object({})),
});

/** GitLab's Compare: the newest commit, the commits (oldest first), the diffs, and the compare page. */
export const CompareEntity = Type.Object({
  commit: Nullable(CommitEntity),
  commits: Type.Array(CommitEntity),
  diffs: Type.Array(DiffEntity),
  compare_timeout: Bool,
  compare_same_ref: Bool,
  web_url: Str,
});
