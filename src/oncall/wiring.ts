import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { UsersService } from '../users/users.service.js';
import { OncallRepository } from './oncall.repository.js';
import { OncallService } from './oncall.service.js';

/** On-call schedules and rotations of projects and groups (Premium and Ultimate). */
export function wireOncall(deps: {
  kysely: Kysely<Database>;
  projects: ProjectsService;
  /** Finds a group schedule's group. */
  namespaces: Pick<NamespacesService, 'findById'>;
  users: Pick<UsersService, 'findById' | 'findByUsername'>;
  permissions: Pick<PermissionsService, 'inheritedSources'>;
  access: Access;
  clock: Clock;
}): { oncall: OncallService } {
  return {
    oncall: new OncallService(
      new OncallRepository(deps.kysely),
      deps.projects,
      deps.namespaces,
      deps.users,
      deps.permissions,
      deps.access,
      deps.clock,
    ),
  };
}
