import { Type } from 'typebox';
import { Bool, Int, Literals, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/**
 * GitLab's Note entity (the same in v4 and v5). svc has plain notes only: `type` null (no diff or discussion
 * notes), nothing resolvable, no attachments, nothing imported, no quick actions (`commands_changes` empty).
 * `author` is null only for a system note whose actor is unknown (a branch moved without a push svc saw).
 */
export const NoteEntity = Type.Object({
  id: Int,
  type: Type.Null(),
  body: Str,
  attachment: Type.Null(),
  author: Nullable(UserBasic),
  created_at: Str,
  updated_at: Str,
  system: Bool,
  noteable_id: Int,
  noteable_type: Literals(['MergeRequest', 'Issue'] as const),
  project_id: Int,
  noteable_iid: Int,
  resolvable: Bool,
  confidential: Bool,
  internal: Bool,
  imported: Bool,
  imported_from: Str,
  commands_changes: Type.Object({}),
});
