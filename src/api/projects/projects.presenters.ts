import type { Static } from 'typebox';
import { avatarPath } from '../../avatars/avatars.js';
import { relativePath } from '../../git/git.js';
import type { Project } from '../../projects/projects.js';
import { isAdmin, type View } from '../common/common.presenters.js';
import { namespace } from '../groups/groups.presenters.js';
import type { ProjectEntity, ProjectStorageEntity } from './projects.entities.js';

/** A path in a URL: each segment encoded, the slashes kept. */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export function project(p: Project, v: View): Static<typeof ProjectEntity> {
  const web = `${v.externalUrl}/${p.fullPath}`;
  const host = new URL(v.externalUrl).hostname;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${p.namespace.name} / ${p.name}`,
    path: p.path,
    path_with_namespace: p.fullPath,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    default_branch: p.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${host}:${p.fullPath}.git`,
    http_url_to_repo: `${web}.git`,
    web_url: web,
    // GitLab's `project_blob_url(project, "<default branch>/<readme>")`.
    readme_url:
      p.readmePath === null
        ? null
        : `${web}/-/blob/${encodePath(p.defaultBranch)}/${encodePath(p.readmePath)}`,
    avatar_url: p.avatar === null ? null : `${v.externalUrl}${avatarPath('project', p.id, p.avatar)}`,
    // Until the repository has a branch (ProjectsService records it on every push and merge).
    empty_repo: p.emptyRepo ?? true,
    forks_count: 0,
    star_count: 0,
    last_activity_at: p.lastActivityAt,
    namespace: namespace(p.namespace, v),
    visibility: p.visibility,
    creator_id: p.creatorId,
    monitor_access_level: p.monitorEnabled ? 'enabled' : 'disabled',
    issues_access_level: p.settings.accessLevels.issues,
    repository_access_level: p.settings.accessLevels.repository,
    merge_requests_access_level: p.settings.accessLevels.merge_requests,
    forking_access_level: p.settings.accessLevels.forking,
    wiki_access_level: p.settings.accessLevels.wiki,
    builds_access_level: p.settings.accessLevels.builds,
    snippets_access_level: p.settings.accessLevels.snippets,
    pages_access_level: p.settings.accessLevels.pages,
    analytics_access_level: p.settings.accessLevels.analytics,
    container_registry_access_level: p.settings.accessLevels.container_registry,
    security_and_compliance_access_level: p.settings.accessLevels.security_and_compliance,
    releases_access_level: p.settings.accessLevels.releases,
    environments_access_level: p.settings.accessLevels.environments,
    feature_flags_access_level: p.settings.accessLevels.feature_flags,
    infrastructure_access_level: p.settings.accessLevels.infrastructure,
    requirements_access_level: p.settings.accessLevels.requirements,
    merge_method: p.settings.mergeMethod,
    request_access_enabled: p.settings.requestAccessEnabled,
    remove_source_branch_after_merge: p.settings.removeSourceBranchAfterMerge,
    only_allow_merge_if_all_discussions_are_resolved: p.settings.onlyAllowMergeIfAllDiscussionsAreResolved,
    only_allow_merge_if_pipeline_succeeds: p.settings.onlyAllowMergeIfPipelineSucceeds,
    approvals_before_merge: p.approvalsBeforeMerge,
    // Spec: repository_storage is visible to administrators only.
    ...(isAdmin(v) && { repository_storage: p.repositoryStorage }),
  };
}

/** A single project with the caller's access (`GET /projects/:id`): direct and through groups, or null. */
export function projectWithAccess(
  p: Project,
  v: View,
  access: { project: number | null; group: number | null },
): Static<typeof ProjectEntity> {
  // GitLab's notification level "global" (3): svc sends no per-project notifications of its own yet.
  const level = (n: number | null) => (n === null ? null : { access_level: n, notification_level: 3 });
  return {
    ...project(p, v),
    permissions: { project_access: level(access.project), group_access: level(access.group) },
  };
}

/** GitLab's `ProjectRepositoryStorage`: the disk path is the hashed path without `.git`. */
export function projectStorage(p: Project): Static<typeof ProjectStorageEntity> {
  return {
    project_id: p.id,
    disk_path: relativePath('project', p.id).replace(/\.git$/, ''),
    created_at: p.createdAt,
    repository_storage: p.repositoryStorage,
  };
}
