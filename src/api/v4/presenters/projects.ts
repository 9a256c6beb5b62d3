import type { Static } from 'typebox';
import type { Project } from '../../../projects/projects.js';
import type { ProjectEntity } from '../entities/projects.js';
import { isAdmin, type View } from './common.js';
import { namespace } from './groups.js';

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
    readme_url: null,
    avatar_url: null,
    forks_count: 0,
    star_count: 0,
    last_activity_at: p.lastActivityAt,
    namespace: namespace(p.namespace, v),
    visibility: p.visibility,
    creator_id: p.creatorId,
    monitor_access_level: p.monitorEnabled ? 'enabled' : 'disabled',
    // Spec: repository_storage is visible to administrators only.
    ...(isAdmin(v) && { repository_storage: p.repositoryStorage }),
  };
}
