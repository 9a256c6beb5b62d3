/** Domain types and pure rules for namespaces (user namespaces and groups). */
import type { Visibility } from '../members/members.js';

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
  /** Groups: whether users may ask for access (GitLab's `request_access_enabled`). */
  readonly requestAccessEnabled: boolean;
  readonly createdAt: string;
}

/** A group is a namespace of kind `group`. */
export type Group = Namespace & { readonly kind: 'group' };

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
