/** Domain types and pure rules for users, tokens, namespaces, projects, members and snippets. */

export type Visibility = 'private' | 'internal' | 'public';
export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];

/** GitLab's access levels. */
export const AccessLevel = {
  None: 0,
  Guest: 10,
  Reporter: 20,
  Developer: 30,
  Maintainer: 40,
  Owner: 50,
} as const;
export type AccessLevelValue = (typeof AccessLevel)[keyof typeof AccessLevel];
export const MEMBER_ACCESS_LEVELS = [10, 20, 30, 40, 50] as const;

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

export interface Namespace {
  readonly id: number;
  readonly kind: 'user' | 'group';
  readonly name: string;
  readonly path: string;
  readonly fullPath: string;
  readonly parentId: number | null;
  readonly ownerId: number | null;
  readonly visibility: Visibility;
  readonly description: string;
  /** Groups: the storage of the group wiki repository (null for user namespaces). */
  readonly repositoryStorage: string | null;
  readonly repositoryReadOnly: boolean;
  readonly createdAt: string;
}

/** A group is a namespace of kind `group`. */
export type Group = Namespace & { readonly kind: 'group' };

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

export type MemberSource = { readonly type: 'namespace' | 'project'; readonly id: number };

export interface Member {
  readonly user: User;
  readonly accessLevel: number;
  readonly expiresAt: string | null;
  readonly createdAt: string;
  readonly createdById: number | null;
}

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

/** Offset page request and result. */
export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
}
export interface Paged<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/** Keyset request: rows after `after` in `order` direction, `limit` of them. */
export interface KeysetRequest<K extends string = string> {
  readonly orderBy: K;
  readonly sort: 'asc' | 'desc';
  readonly limit: number;
  /** The last row of the previous page: its ordering value and id. */
  readonly after: { readonly value: string | number; readonly id: number } | null;
}

/** Valid path segment for users, groups and projects (GitLab's rules, simplified). */
export const PATH_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,254}$/;

/** Turns a name into a path, as GitLab does when only `name` is given. */
export function pathFromName(name: string): string {
  return name
    .trim()
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .toLowerCase();
}

/** Whether a token is past its expiry date (UTC `YYYY-MM-DD`). */
export function isExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && now.toISOString().slice(0, 10) >= expiresAt;
}

/** Whether a caller with `level` (and signed-in state) can see something of `visibility`. */
export function canSee(visibility: Visibility, signedIn: boolean, level: number): boolean {
  if (visibility === 'public') return true;
  if (visibility === 'internal') return signedIn;
  return level >= AccessLevel.Guest;
}

/** Orders offered for user lists (all support keyset pagination). */
export type UserOrder = 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
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
