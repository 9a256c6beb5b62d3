import type { Kysely } from 'kysely';
import type { IntegrationsService } from '../alerts/integrations.service.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Access } from '../projects/access.js';
import type { UsersService } from '../users/users.service.js';
import { MaintenanceWindowsRepository } from './maintenance-windows.repository.js';
import { MaintenanceWindowsService } from './maintenance-windows.service.js';
import { SilencesRepository } from './silences.repository.js';
import { SilencesService } from './silences.service.js';

/**
 * Alert silences and maintenance windows: what the escalation pages and alert notifications ask before they
 * send. A window's change is announced through the silences' listeners, so both release what they held alike.
 */
export function wireSilences(deps: {
  kysely: Kysely<Database>;
  access: Access;
  users: Pick<UsersService, 'findById'>;
  /** A window over one integration names one of the project's. */
  integrations: Pick<IntegrationsService, 'views'>;
  clock: Clock;
}): {
  silences: SilencesService;
  maintenanceWindows: MaintenanceWindowsService;
} {
  const windows = new MaintenanceWindowsRepository(deps.kysely);
  const silences = new SilencesService(
    new SilencesRepository(deps.kysely),
    deps.access,
    deps.users,
    deps.clock,
    windows,
  );
  const maintenanceWindows = new MaintenanceWindowsService(
    windows,
    deps.access,
    deps.users,
    deps.integrations,
    deps.clock,
    (projectId) => silences.announce(projectId),
  );
  return { silences, maintenanceWindows };
}
