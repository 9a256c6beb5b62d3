import type { Kysely } from 'kysely';
import type { AvatarStore } from '../avatars/avatar-store.js';
import type { Clock } from '../clock.js';
import type { DialectName } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { JobQueue } from '../jobs/queue.js';
import type { MembersService } from '../members/members.service.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { Access } from '../projects/access.js';
import type { RepositoryLifecycle } from '../projects/projects.js';
import type { SettingsService } from '../settings/settings.service.js';
import { GroupDeletionRepository } from './group-deletion.repository.js';
import { GroupTransferRepository } from './group-transfer.repository.js';
import { GroupsService } from './groups.service.js';

/** Groups: creation, the namespaces API and the deletion job. */
export function wireGroups(deps: {
  kysely: Kysely<Database>;
  dialect: DialectName;
  namespaces: NamespacesService;
  members: MembersService;
  permissions: PermissionsService;
  access: Access;
  settings: SettingsService;
  /** Where a new group's wiki repository goes. */
  pickStorage: () => Promise<string>;
  lifecycle: RepositoryLifecycle;
  jobs: JobQueue;
  avatars: AvatarStore;
  clock: Clock;
}): { groups: GroupsService } {
  return {
    groups: new GroupsService(
      deps.namespaces,
      deps.members,
      deps.permissions,
      deps.access,
      deps.settings,
      deps.pickStorage,
      deps.lifecycle,
      deps.clock,
      new GroupDeletionRepository(deps.kysely, deps.dialect),
      deps.jobs,
      new GroupTransferRepository(deps.kysely, deps.dialect),
      deps.avatars,
    ),
  };
}
