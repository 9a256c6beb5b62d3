import type { Static } from 'typebox';
import type { ResourceToken } from '../../access-tokens/access-tokens.service.js';
import { userAvatarPath } from '../../avatars/avatars.js';
import type { PersonalAccessToken, User } from '../../users/users.js';
import { isAdmin, type View } from '../common/common.presenters.js';
import type {
  ImpersonationToken,
  ResourceAccessToken,
  Token,
  UserBasic,
  UserDetail,
  UserPublic,
} from './users.entities.js';

/** UserBasic: the short user object embedded in other entities. */
export function userBasic(u: User, v: View): Static<typeof UserBasic> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    locked: false,
    // GitLab always gives a user an image (Gravatar's identicon by default); svc draws its own identicon.
    avatar_url: `${v.externalUrl}${userAvatarPath(u.id, u.avatar)}`,
    web_url: `${v.externalUrl}/${u.username}`,
  };
}

/** User: public profile; a private profile shows only the basic fields to others (GitLab). */
export function userPublic(u: User, v: View): Static<typeof UserPublic> {
  const basic = userBasic(u, v);
  if (u.privateProfile && v.viewer?.id !== u.id && !isAdmin(v)) return basic;
  return { ...basic, created_at: u.createdAt, bio: u.bio, public_email: '', bot: u.botSource !== null };
}

/** The user as seen by itself (`GET /user`) or by an admin. */
export function userDetail(u: User, v: View): Static<typeof UserDetail> {
  return {
    ...userBasic(u, v),
    created_at: u.createdAt,
    bio: u.bio,
    public_email: '',
    bot: u.botSource !== null,
    email: u.email,
    is_admin: u.admin,
    private_profile: u.privateProfile,
    projects_limit: u.projectsLimit,
    can_create_group: true,
    can_create_project: u.projectsLimit > 0,
    two_factor_enabled: false,
    external: false,
  };
}

/** Users in lists: admins and the user itself get the detailed entity. */
export function user(u: User, v: View): Static<typeof UserPublic> | Static<typeof UserDetail> {
  return isAdmin(v) || v.viewer?.id === u.id ? userDetail(u, v) : userPublic(u, v);
}

export function token(t: PersonalAccessToken & { token?: string }, now: Date): Static<typeof Token> {
  const expired = t.expiresAt !== null && now.toISOString().slice(0, 10) >= t.expiresAt;
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: t.createdAt,
    description: '',
    scopes: [...t.scopes],
    user_id: t.userId,
    last_used_at: t.lastUsedAt,
    active: !t.revoked && !expired,
    expires_at: t.expiresAt,
    ...(t.token !== undefined && { token: t.token }),
  };
}

export function impersonationToken(
  t: PersonalAccessToken & { token?: string },
  now: Date,
): Static<typeof ImpersonationToken> {
  return { ...token(t, now), impersonation: t.impersonation };
}

export function resourceAccessToken(
  t: ResourceToken & { token?: string },
  now: Date,
): Static<typeof ResourceAccessToken> {
  return {
    ...token(t, now),
    access_level: t.accessLevel,
    resource_type: t.resourceType,
    resource_id: t.resourceId,
  };
}
