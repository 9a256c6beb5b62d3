import type { Static } from 'typebox';
import type { Commit } from '../../git/commits.js';
import type { BranchView, Comparison, FileView } from '../../git/repository.service.js';
import type { BlobEntry, CommitStats, TreeEntry } from '../../git/repository-reader.js';
import type { Project } from '../../projects/projects.js';
import type { View } from '../common/common.presenters.js';
import { commit, diff } from '../merge-requests/merge-requests.presenters.js';
import type {
  BranchEntity,
  CommitDetailEntity,
  CompareEntity,
  RepositoryBlobEntity,
  RepositoryFileEntity,
  TreeObjectEntity,
} from './repository.entities.js';

/** GitLab's TreeObject; a mode shorter than six digits is padded with a zero (`40000` is `040000`). */
export function treeObject(e: TreeEntry): Static<typeof TreeObjectEntity> {
  return { id: e.id, name: e.name, type: e.type, path: e.path, mode: e.mode.padStart(6, '0') };
}

/** The files API's metadata (also its `X-Gitlab-*` headers) without the content. */
export function repositoryFileMeta(f: FileView): Omit<Static<typeof RepositoryFileEntity>, 'content'> {
  return {
    file_name: f.blob.name,
    file_path: f.blob.path,
    size: f.blob.size,
    encoding: 'base64',
    content_sha256: f.contentSha256,
    ref: f.ref,
    blob_id: f.blob.id,
    commit_id: f.commitId,
    last_commit_id: f.lastCommitId,
    execute_filemode: isExecutable(f.blob),
  };
}

const isExecutable = (b: BlobEntry): boolean => b.mode === '100755';

export function repositoryFile(f: FileView): Static<typeof RepositoryFileEntity> {
  return { ...repositoryFileMeta(f), content: f.content.toString('base64') };
}

export function repositoryBlob(b: {
  id: string;
  size: number;
  content: Buffer;
}): Static<typeof RepositoryBlobEntity> {
  return { size: b.size, encoding: 'base64', content: b.content.toString('base64'), sha: b.id };
}

export function branch(b: BranchView, p: Project, v: View): Static<typeof BranchEntity> {
  return {
    name: b.name,
    commit: commit(b.commit, p, v),
    merged: b.merged,
    protected: b.protected,
    developers_can_push: b.developersCanPush,
    developers_can_merge: b.developersCanMerge,
    can_push: b.canPush,
    default: b.default,
    web_url: `${v.externalUrl}/${p.fullPath}/-/tree/${encodeURI(b.name)}`,
  };
}

/** GitLab's CommitDetail; svc runs no pipelines, so `status` and `last_pipeline` are null. */
export function commitDetail(
  c: Commit,
  stats: CommitStats | null,
  p: Project,
  v: View,
): Static<typeof CommitDetailEntity> {
  return {
    ...commit(c, p, v),
    ...(stats && { stats: { additions: stats.additions, deletions: stats.deletions, total: stats.total } }),
    status: null,
    project_id: p.id,
    last_pipeline: null,
  };
}

/** GitLab's Compare; svc computes whole diffs, so `compare_timeout` is false. */
export function compare(c: Comparison, p: Project, v: View): Static<typeof CompareEntity> {
  const commits = c.commits.map((x) => commit(x, p, v));
  return {
    commit: commits.at(-1) ?? null,
    commits,
    diffs: c.diffs.map(diff),
    compare_timeout: false,
    compare_same_ref: c.same,
    web_url: `${v.externalUrl}/${p.fullPath}/-/compare/${c.fromSha}...${c.toSha}`,
  };
}
