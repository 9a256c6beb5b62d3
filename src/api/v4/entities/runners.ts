import { Type } from '@sinclair/typebox';
import { Bool, Int, Nullable, Str } from './common.js';

export const RunnerEntity = Type.Object({
  id: Int,
  description: Nullable(Str),
  ip_address: Type.Optional(Nullable(Str)),
  active: Type.Optional(Bool),
  paused: Bool,
  is_shared: Bool,
  runner_type: Str,
  name: Nullable(Str),
  online: Bool,
  status: Str,
  created_at: Str,
});

export const RunnerDetailsEntity = Type.Object({
  ...RunnerEntity.properties,
  tag_list: Type.Array(Str),
  run_untagged: Bool,
  locked: Bool,
  maximum_timeout: Nullable(Int),
  access_level: Str,
  version: Nullable(Str),
  revision: Nullable(Str),
  platform: Nullable(Str),
  architecture: Nullable(Str),
  contacted_at: Nullable(Str),
  maintenance_note: Nullable(Str),
  projects: Type.Array(
    Type.Object({ id: Int, name: Str, name_with_namespace: Str, path: Str, path_with_namespace: Str }),
  ),
  groups: Type.Array(Type.Object({ id: Int, name: Str, web_url: Str })),
});
