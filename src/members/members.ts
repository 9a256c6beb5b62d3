/** Access levels, visibility and members: who can see and do what. */
import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';

export { AccessLevel, canSee } from '../access/access.js';

export const MEMBER_ACCESS_LEVELS = [10, 20, 30, 40, 50] as const;

export type MemberSource = { readonly type: 'namespace' | 'project'; readonly id: number };

export interface Member {
  readonly user: User;
  readonly accessLevel: number;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly createdById: number | null;
}

/** Which projects a caller may see in a list: `null` means all (admins). */
export interface ProjectScope {
  readonly visibilities: readonly Visibility[];
  readonly projectIds: readonly number[];
  readonly namespaceIds: readonly number[];
}
