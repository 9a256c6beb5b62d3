import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

export const NamespaceEntity = Type.Object({
  id: Int,
  name: Str,
  path: Str,
  kind: Str,
  full_path: Str,
  parent_id: Nullable(Int),
  avatar_url: Nullable(Str),
  web_url: Str,
});

export const GroupEntity = Type.Object({
  id: Int,
  web_url: Str,
  name: Str,
  path: Str,
  description: Str,
  visibility: Str,
  full_name: Str,
  full_path: Str,
  parent_id: Nullable(Int),
  created_at: Str,
  avatar_url: Nullable(Str),
  request_access_enabled: Bool,
});

/** GitLab's `PublicGroupDetails`: a group as `GET /projects/:id/groups` lists it. */
export const PublicGroupEntity = Type.Object({
  id: Int,
  web_url: Str,
  name: Str,
  avatar_url: Nullable(Str),
  full_name: Str,
  full_path: Str,
});

/** `GET /namespaces/:id/exists`: whether the path is taken at that level, and a free one if so. */
export const NamespaceExistsEntity = Type.Object({ exists: Bool, suggests: Type.Array(Str) });
