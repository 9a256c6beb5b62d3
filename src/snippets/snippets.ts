/** Domain type for snippets. */
import type { Visibility } from '../members/members.js';
import type { User } from '../users/users.js';

export interface Snippet {
  readonly id: number;
  readonly projectId: number | null;
  readonly author: User;
  readonly title: string;
  readonly fileName: string;
  readonly description: string;
  readonly content: string;
  readonly visibility: Visibility;
  readonly repositoryStorage: string;
  readonly repositoryReadOnly: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}
