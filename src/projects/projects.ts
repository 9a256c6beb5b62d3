/** Domain types for projects and the port that creates and removes their repositories. */
import type { Namespace } from '../groups/namespaces.js';
import type { Visibility } from '../members/members.js';
import type { User } from '../users/users.js';

export interface Project {
  readonly id: number;
  readonly namespace: Namespace;
  readonly name: string;
  readonly path: string;
  readonly fullPath: string;
  readonly description: string;
  readonly visibility: Visibility;
  readonly defaultBranch: string;
  readonly monitorEnabled: boolean;
  readonly repositoryStorage: string;
  /** True while a storage move runs: pushes and content writes are refused. */
  readonly repositoryReadOnly: boolean;
  readonly creatorId: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastActivityAt: string;
}

/** Orders offered for project lists. */
export type ProjectOrder = 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at';

/** Creates and removes the bare repositories of projects, snippets and group wikis (a port of the accounts services). */
export interface RepositoryLifecycle {
  create(
    kind: 'project' | 'snippet' | 'group',
    id: number,
    storage: string,
    defaultBranch?: string,
  ): Promise<void>;
  remove(kind: 'project' | 'snippet' | 'group', id: number, storage: string): Promise<void>;
  /** Records a snippet's content as a commit in its repository. */
  commitSnippet(
    id: number,
    storage: string,
    file: { name: string; content: string },
    author: User,
  ): Promise<void>;
}
