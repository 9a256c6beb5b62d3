import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

export const SnippetEntity = Type.Object({
  id: Int,
  title: Str,
  description: Str,
  visibility: Str,
  author: UserBasic,
  created_at: Str,
  updated_at: Str,
  project_id: Nullable(Int),
  web_url: Str,
  raw_url: Str,
  file_name: Str,
  files: Type.Array(Type.Object({ path: Str, raw_url: Str })),
  repository_storage: Type.Optional(Str),
});
