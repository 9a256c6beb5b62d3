/** Access levels, visibility and members: who can see and do what. */
import type { User } from '../users/users.js';

export { AccessLevel, canSee, type Visibility } from '../access/access.js';

import type { Visibility } from '../access/access.js';

export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];

export const MEMBER_ACCESS_LEVELS = [10, 20, 30, 40, 50] as const;

export type MemberSource = { readonly type: 'namespace' | 'project'; readonly id: number };

export interface Member {
  readonly user: User;
  readonly accessLevel: number;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly createdById: number | null;
}
