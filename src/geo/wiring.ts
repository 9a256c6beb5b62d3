import type { Kysely } from 'kysely';
import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { User } from '../users/users.js';
import { GeoRepository } from './geo.repository.js';
import { GeoService } from './geo.service.js';

/** Geo sites and what they must resync. */
export function wireGeo(deps: { kysely: Kysely<Database>; access: InstancePolicy<User>; clock: Clock }): {
  geo: GeoService;
} {
  return { geo: new GeoService(new GeoRepository(deps.kysely), deps.access, deps.clock) };
}
