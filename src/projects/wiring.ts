import type { Kysely } from 'kysely';
import { AccessPolicy } from '../access/access.policy.js';
import type { AvatarStore } from '../avatars/avatar-store.js';
import type { Clock } from '../clock.js';
import type { Tier } from '../config.js';
import type { Database } from '../db/schema.js';
import type { MembersService } from '../members/members.service.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Group } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { User } from '../users/users.js';
import type { Access } from './access.js';
import type { Project, RepositoryLifecycle } from './projects.js';
import { ProjectsRepository } from './projects.repository.js';
import { ProjectsService, type StoragePicker } from './projects.service.js';

/**
 * The one access policy over the levels `permissions` computes. It finds projects and groups through `find` (the
 * projects and groups features, built later: called per request only).
 */
export function wireAccess(deps: {
  permissions: PermissionsService;
  tier: Tier;
  find: {
    project(idOrPath: string): Promise<Project | null>;
    group(idOrPath: string): Promise<Group | null>;
  };
}): { access: Access } {
  // Objects are found by the projects and groups features; levels computed by PermissionsService, whose only
  // caller for access decisions is this policy.
  const { permissions, find } = deps;
  return {
    access: new AccessPolicy<User, Project, Group>(
      {
        findProject: (idOrPath) => find.project(idOrPath),
        findGroup: (idOrPath) => find.group(idOrPath),
        projectLevel: (actor, project) => permissions.projectLevel(actor, project),
        groupLevel: (actor, group) => permissions.groupLevel(actor, group),
      },
      deps.tier,
    ),
  };
}

/** Projects: creation in user or group namespaces, lookup, visibility and roles. */
export function wireProjects(deps: {
  kysely: Kysely<Database>;
  namespaces: NamespacesService;
  members: MembersService;
  permissions: PermissionsService;
  access: Access;
  settings: SettingsService;
  /** The configured storages' names, and where a new repository goes. */
  storages: { names: readonly string[]; pick: StoragePicker };
  lifecycle: RepositoryLifecycle;
  avatars: AvatarStore;
  clock: Clock;
  /** Whose personal project limit applies: the owner of a user namespace. */
  users: { findById(id: number): Promise<User | null> };
}): { projects: ProjectsService } {
  return {
    projects: new ProjectsService(
      new ProjectsRepository(deps.kysely),
      deps.namespaces,
      deps.members,
      deps.permissions,
      deps.access,
      deps.settings,
      deps.storages,
      deps.lifecycle,
      deps.avatars,
      deps.clock,
      deps.users,
    ),
  };
}
