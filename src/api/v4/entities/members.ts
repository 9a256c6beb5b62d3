import { Type } from 'typebox';
import { Int, Nullable, Str } from './common.js';
import { UserBasic } from './users.js';

export const MemberEntity = Type.Object({
  ...UserBasic.properties,
  access_level: Int,
  created_at: Str,
  expires_at: Nullable(Str),
});
