import type { Static } from 'typebox';
import type { Member } from '../../members/members.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type { MemberEntity } from './members.entities.js';

export function member(m: Member, v: View): Static<typeof MemberEntity> {
  return {
    ...userBasic(m.user, v),
    access_level: m.accessLevel,
    created_at: m.createdAt,
    expires_at: m.expiresAt,
  };
}
