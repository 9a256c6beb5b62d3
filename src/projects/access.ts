import { AccessPolicy } from '../access/access.policy.js';
import type { Tier } from '../config.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Group } from '../namespaces/namespaces.js';
import type { User } from '../users/users.js';
import type { Project } from './projects.js';

/** The access policy over this service's users, projects and groups. */
export type Access = AccessPolicy<User, Project, Group>;

/**
 * Builds the one access policy: objects found by `find` (the projects and groups features), levels computed here.
 * The policy is the only caller of the level computation for access decisions.
 */
export function createAccessPolicy(
  permissions: PermissionsService,
  find: {
    project(idOrPath: string): Promise<Project | null>;
    group(idOrPath: string): Promise<Group | null>;
  },
  tier: Tier,
): Access {
  return new AccessPolicy<User, Project, Group>(
    {
      findProject: (idOrPath) => find.project(idOrPath),
      findGroup: (idOrPath) => find.group(idOrPath),
      projectLevel: (actor, project) => permissions.projectLevel(actor, project),
      groupLevel: (actor, group) => permissions.groupLevel(actor, group),
    },
    tier,
  );
}
