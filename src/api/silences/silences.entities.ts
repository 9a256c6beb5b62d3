import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/** A matcher in Alertmanager's shape: `=` (isEqual), `!=`, `=~` (isRegex), `!~`. */
export const MatcherEntity = Type.Object({ name: Str, value: Str, isRegex: Bool, isEqual: Bool });

export const SilenceEntity = Type.Object({
  id: Int,
  matchers: Type.Array(MatcherEntity),
  starts_at: Str,
  ends_at: Str,
  comment: Str,
  created_by: Nullable(UserBasic),
  /** `active`, `pending` (starts later) or `expired` (ended, or expired early). */
  state: Str,
  created_at: Str,
  updated_at: Str,
});

export const SilenceInput = Type.Object({
  matchers: Type.Optional(
    Type.Array(
      Type.Object({
        name: Str,
        value: Str,
        isRegex: Type.Optional(Bool),
        isEqual: Type.Optional(Bool),
      }),
    ),
  ),
  starts_at: Type.Optional(Str),
  ends_at: Type.Optional(Str),
  comment: Type.Optional(Str),
});
