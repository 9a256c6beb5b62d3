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

export interface User {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly admin: boolean;
  readonly state: 'active' | 'blocked';
  readonly privateProfile: boolean;
  readonly bio: string;
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
