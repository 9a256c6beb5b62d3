import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

export const MaintenanceWindowEntity = Type.Object({
  id: Int,
  /** The alert integration it silences; null: the whole project. */
  integration_id: Nullable(Int),
  starts_at: Str,
  ends_at: Str,
  comment: Str,
  created_by: Nullable(UserBasic),
  /** `active`, `pending` (starts later) or `expired` (ended, or ended early). */
  state: Str,
  created_at: Str,
  updated_at: Str,
});

export const MaintenanceWindowInput = Type.Object({
  integration_id: Type.Optional(Nullable(Type.Integer())),
  starts_at: Type.Optional(Str),
  ends_at: Type.Optional(Str),
  comment: Type.Optional(Str),
});
