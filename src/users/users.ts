/** Domain types and pure rules for users and personal access tokens. */
export type TokenScope =
  | 'api'
  | 'read_api'
  | 'read_user'
  | 'sudo'
  | 'create_runner'
  | 'read_repository'
  | 'write_repository';

export const TOKEN_SCOPES: readonly TokenScope[] = [
  'api',
  'read_api',
  'read_user',
  'sudo',
  'create_runner',
  'read_repository',
  'write_repository',
];

/**
 * The scopes a project or group access token may have (GitLab's `resource_bot_scopes`): a bot reads no user
 * profile and cannot use sudo.
 */
export const RESOURCE_TOKEN_SCOPES: readonly TokenScope[] = [
  'api',
  'read_api',
  'create_runner',
  'read_repository',
  'write_repository',
];

/** GitLab's user states that svc has: `banned` is a blocked user whose content GitLab hides. */
export type UserState = 'active' | 'blocked' | 'banned';

/** The project or group a bot user (of an access token) belongs to. */
export interface BotSource {
  readonly type: 'project' | 'namespace';
  readonly id: number;
}

export interface User {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly admin: boolean;
  readonly state: UserState;
  readonly privateProfile: boolean;
  /** The project or group of a bot user (a project or group access token's), or null for a person. */
  readonly botSource: BotSource | null;
  readonly bio: string;
  /** Personal projects the user may own (GitLab's `projects_limit`; 0: none). */
  readonly projectsLimit: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The uploaded avatar's stored name; null: none (the identicon is shown). */
  readonly avatar: string | null;
}

export interface PersonalAccessToken {
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly scopes: readonly TokenScope[];
  /** `YYYY-MM-DD` or null. The token stops working at the start of that day (UTC), as GitLab. */
  readonly expiresAt: string | null;
  readonly revoked: boolean;
  /** An administrator's token that acts as the user (GitLab's impersonation tokens). */
  readonly impersonation: boolean;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

/** A token as created: the only time the secret is available. */
export interface CreatedToken extends PersonalAccessToken {
  readonly token: string;
}

/** Whether a token is past its expiry date (UTC `YYYY-MM-DD`). */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && now.toISOString().slice(0, 10) >= expiresAt;
}

/** Orders offered for user lists (all support keyset pagination). */
export type UserOrder = 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
