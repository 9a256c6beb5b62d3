import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

export const UserBasic = Type.Object({
  id: Int,
  username: Str,
  name: Str,
  state: Str,
  locked: Bool,
  /** Never null: the uploaded avatar or the user's identicon (clients' schemas require a string). */
  avatar_url: Str,
  web_url: Str,
});

export const UserPublic = Type.Object({
  ...UserBasic.properties,
  created_at: Type.Optional(Str),
  bio: Type.Optional(Str),
  public_email: Type.Optional(Str),
  /** A project or group access token's bot user (GitLab's `bot`). */
  bot: Type.Optional(Bool),
});

export const UserDetail = Type.Object({
  ...UserPublic.properties,
  email: Str,
  is_admin: Bool,
  private_profile: Bool,
  projects_limit: Int,
  can_create_group: Bool,
  can_create_project: Bool,
  two_factor_enabled: Bool,
  external: Bool,
});

/** `PUT /user/avatar`'s answer (GitLab's `Entities::Avatar`). */
export const AvatarEntity = Type.Object({ avatar_url: Str });

export const Token = Type.Object({
  id: Int,
  name: Str,
  revoked: Bool,
  created_at: Str,
  description: Str,
  scopes: Type.Array(Str),
  user_id: Int,
  last_used_at: Nullable(Str),
  active: Bool,
  expires_at: Nullable(Str),
  token: Type.Optional(Str),
});

/** An impersonation token (admin): a token with `impersonation: true` that acts as its user. */
export const ImpersonationToken = Type.Object({ ...Token.properties, impersonation: Bool });

/** A project or group access token: its bot's access level in the resource. */
export const ResourceAccessToken = Type.Object({
  ...Token.properties,
  access_level: Int,
  resource_type: Str,
  resource_id: Int,
});

/** A user in lists: the detailed fields appear only for admins and the user itself. */
export const UserAny = Type.Object({
  ...UserBasic.properties,
  ...Type.Partial(Type.Object({ ...UserDetail.properties })).properties,
});

/** `private_profile` input: v4 accepts null (the instance default applies). */
export const PrivateProfileInput = Type.Union([Type.Boolean(), Type.Null()]);
