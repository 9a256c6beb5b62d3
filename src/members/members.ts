/** Access levels, visibility and members: who can see and do what. */
import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';

/** GitLab's access levels. */
export const AccessLevel = {
  None: 0,
  Guest: 10,
  Reporter: 20,
  Developer: 30,
  Maintainer: 40,
  Owner: 50,
} as const;

export const MEMBER_ACCESS_LEVELS = [10, 20, 30, 40, 50] as const;

export type MemberSource = { readonly type: 'namespace' | 'project'; readonly id: number };

export interface Member {
  readonly user: User;
  readonly accessLevel: number;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly createdById: number | null;
}

/** Whether a caller with `level` (and signed-in state) can see something of `visibility`. */
export function canSee(visibility: Visibility, signedIn: boolean, level: number): boolean {
  if (visibility === 'public') return true;
  if (visibility === 'internal') return signedIn;
  return level >= AccessLevel.Guest;
}

/** Which projects a caller may see in a list: `null` means all (admins). */
export interface ProjectScope {
  readonly visibilities: readonly Visibility[];
  readonly projectIds: readonly number[];
  readonly namespaceIds: readonly number[];
}
