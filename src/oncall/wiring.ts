import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { UsersService } from '../users/users.service.js';
import { OncallRepository } from './oncall.repository.js';
import { OncallService } from './oncall.service.js';

/** On-call schedules and rotations (Premium and Ultimate). */
export function wireOncall(deps: {
  kysely: Kysely<Database>;
  projects: ProjectsService;
  users: Pick<UsersService, 'findById' | 'findByUsername'>;
  permissions: Pick<PermissionsService, 'inheritedSources'>;
  access: Access;
  clock: Clock;
}): { oncall: OncallService } {
  return {
    oncall: new OncallService(
      new OncallRepository(deps.kysely),
      deps.projects,
      deps.users,
      deps.permissions,
      deps.access,
      deps.clock,
    ),
  };
}
