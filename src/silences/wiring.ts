import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Access } from '../projects/access.js';
import type { UsersService } from '../users/users.service.js';
import { SilencesRepository } from './silences.repository.js';
import { SilencesService } from './silences.service.js';

/** Alert silences: what the escalation pages and alert notifications ask before they send. */
export function wireSilences(deps: {
  kysely: Kysely<Database>;
  access: Access;
  users: Pick<UsersService, 'findById'>;
  clock: Clock;
}): {
  silences: SilencesService;
} {
  return {
    silences: new SilencesService(new SilencesRepository(deps.kysely), deps.access, deps.users, deps.clock),
  };
}
