import type { Paged, PageRequest } from '../pagination.js';
import type { Namespace } from './namespaces.js';
import type { GroupFilter, NamespacesRepository } from './namespaces.repository.js';

/**
 * Namespaces, without access checks: the tree that user and group paths share. Users own a personal namespace,
 * projects live in one, permissions inherit down the tree; GroupsService checks access and keeps groups in it.
 */
export class NamespacesService {
  constructor(private readonly namespaces: NamespacesRepository) {}

  findById(id: number): Promise<Namespace | null> {
    return this.namespaces.findById(id);
  }

  findByFullPath(fullPath: string): Promise<Namespace | null> {
    return this.namespaces.findByFullPath(fullPath);
  }

  findUserNamespace(userId: number): Promise<Namespace | null> {
    return this.namespaces.findUserNamespace(userId);
  }

  /** The namespace and its ancestors, outermost first. */
  ancestry(ns: Namespace): Promise<Namespace[]> {
    return this.namespaces.ancestry(ns);
  }

  /** Ids of the given groups and every group below them. */
  withDescendants(ids: readonly number[]): Promise<number[]> {
    return this.namespaces.withDescendants(ids);
  }

  /** Whether a namespace holds groups or projects. */
  hasChildren(id: number): Promise<boolean> {
    return this.namespaces.hasChildren(id);
  }

  /** A new user's personal namespace: named after the user, public, at the top of the tree. */
  createUserNamespace(user: { id: number; name: string; username: string }, now: string): Promise<Namespace> {
    return this.namespaces.insert(
      {
        kind: 'user',
        name: user.name,
        path: user.username,
        fullPath: user.username,
        parentId: null,
        ownerId: user.id,
        visibility: 'public',
        description: '',
      },
      now,
    );
  }

  listGroups(f: GroupFilter, page: PageRequest): Promise<Paged<Namespace>> {
    return this.namespaces.listGroups(f, page);
  }

  insert(n: Parameters<NamespacesRepository['insert']>[0], now: string): Promise<Namespace> {
    return this.namespaces.insert(n, now);
  }

  update(id: number, patch: Parameters<NamespacesRepository['update']>[1], now: string): Promise<void> {
    return this.namespaces.update(id, patch, now);
  }

  /** A group now at `fullPath` (created, or moved there): the old paths redirected there and below end. */
  claimPath(fullPath: string): Promise<void> {
    return this.namespaces.claimPath(fullPath);
  }

  /** Records a namespace's avatar name: a group's own, or a user namespace's owner's. */
  setAvatar(id: number, avatar: string | null): Promise<void> {
    return this.namespaces.setAvatar(id, avatar);
  }

  delete(id: number): Promise<void> {
    return this.namespaces.delete(id);
  }
}
