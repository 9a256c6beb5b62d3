import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

export const MemberEntity = Type.Object({
  ...UserBasic.properties,
  access_level: Int,
  created_at: Str,
  expires_at: Nullable(Str),
});
