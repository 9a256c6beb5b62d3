import { Type } from 'typebox';
import { Int, Nullable, Str } from './common.js';
import { NamespaceEntity } from './groups.js';

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
  forks_count: Int,
  star_count: Int,
  last_activity_at: Str,
  namespace: NamespaceEntity,
  visibility: Str,
  creator_id: Int,
  monitor_access_level: Str,
  repository_storage: Type.Optional(Str),
});
