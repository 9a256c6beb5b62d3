import type { Kysely } from 'kysely';
import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { MembersRepository } from './members.repository.js';
import { MembersService } from './members.service.js';
import { PermissionsService } from './permissions.service.js';

/** Members of groups and projects, and who a project's members are (recipients, who may be paged). */
export function wireMembers(deps: {
  kysely: Kysely<Database>;
  users: Pick<UsersService, 'findById'>;
  permissions: Pick<PermissionsService, 'inheritedSources'>;
  access: InstancePolicy<User>;
  clock: Clock;
}): { members: MembersService } {
  return {
    members: new MembersService(
      new MembersRepository(deps.kysely),
      deps.users,
      deps.permissions,
      deps.access,
      deps.clock,
    ),
  };
}

/** Access levels (direct and inherited memberships), which the access policy asks. */
export function wirePermissions(deps: {
  kysely: Kysely<Database>;
  namespaces: NamespacesService;
  clock: Clock;
}): {
  permissions: PermissionsService;
} {
  return {
    permissions: new PermissionsService(new MembersRepository(deps.kysely), deps.namespaces, deps.clock),
  };
}
