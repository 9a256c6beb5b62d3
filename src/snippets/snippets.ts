/** Domain type for snippets. */

import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';

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
