/** Domain types and pure rules for namespaces (user namespaces and groups). */
import type { Visibility } from '../visibility.js';

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
  /** The avatar's stored name (a group's own; a user namespace's is its owner's), or null. */
  readonly avatar: string | null;
}

/** A group is a namespace of kind `group`. */
export type Group = Namespace & { readonly kind: 'group' };
