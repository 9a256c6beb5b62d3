import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { NamespaceEntity } from '../groups/groups.entities.js';

/** A membership as `permissions` shows it. */
const AccessEntity = Type.Object({ access_level: Int, notification_level: Int });

export const ProjectEntity = Type.Object({
  id: Int,
  description: Str,
  name: Str,
  name_with_namespace: Str,
  path: Str,
  path_with_namespace: Str,
  created_at: Str,
  updated_at: Str,
  default_branch: Str,
  tag_list: Type.Array(Str),
  topics: Type.Array(Str),
  ssh_url_to_repo: Str,
  http_url_to_repo: Str,
  web_url: Str,
  readme_url: Nullable(Str),
  avatar_url: Nullable(Str),
  empty_repo: Bool,
  forks_count: Int,
  star_count: Int,
  last_activity_at: Str,
  namespace: NamespaceEntity,
  visibility: Str,
  creator_id: Int,
  monitor_access_level: Str,
  issues_access_level: Str,
  repository_access_level: Str,
  merge_requests_access_level: Str,
  forking_access_level: Str,
  wiki_access_level: Str,
  builds_access_level: Str,
  snippets_access_level: Str,
  pages_access_level: Str,
  analytics_access_level: Str,
  container_registry_access_level: Str,
  security_and_compliance_access_level: Str,
  releases_access_level: Str,
  environments_access_level: Str,
  feature_flags_access_level: Str,
  infrastructure_access_level: Str,
  requirements_access_level: Str,
  merge_method: Str,
  request_access_enabled: Bool,
  remove_source_branch_after_merge: Bool,
  only_allow_merge_if_all_discussions_are_resolved: Bool,
  only_allow_merge_if_pipeline_succeeds: Bool,
  approvals_before_merge: Int,
  repository_storage: Type.Optional(Str),
  /** The caller's access (GitLab sends it with a single project only). */
  permissions: Type.Optional(
    Type.Object({ project_access: Nullable(AccessEntity), group_access: Nullable(AccessEntity) }),
  ),
});

/** `GET /projects/:id/storage` (admin): where the project's repository is (GitLab's `ProjectRepositoryStorage`). */
export const ProjectStorageEntity = Type.Object({
  project_id: Int,
  disk_path: Str,
  created_at: Str,
  repository_storage: Str,
});
