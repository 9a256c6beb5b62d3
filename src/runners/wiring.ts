import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Access } from '../projects/access.js';
import type { ReleaseGates } from '../versioning/gates.js';
import { RunnersRepository } from './runners.repository.js';
import { RunnersService } from './runners.service.js';

/** CI runners: instance, group and project runners and their registration. */
export function wireRunners(deps: {
  kysely: Kysely<Database>;
  access: Access;
  gates: ReleaseGates;
  /** The instance's shared runners registration token (`null`: none). */
  sharedRegistrationToken: string | null;
  clock: Clock;
}): { runners: RunnersService } {
  return {
    runners: new RunnersService(
      new RunnersRepository(deps.kysely),
      deps.access,
      deps.gates,
      deps.sharedRegistrationToken,
      deps.clock,
    ),
  };
}
