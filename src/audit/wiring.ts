import type { Kysely } from 'kysely';
import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import type { Database } from '../db/schema.js';
import type { JobQueue } from '../jobs/queue.js';
import type { OutboundHttp } from '../outbound.js';
import type { User } from '../users/users.js';
import type { ReleaseGates } from '../versioning/gates.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';

/** Audit events and their streaming destinations. */
export function wireAudit(deps: {
  kysely: Kysely<Database>;
  jobs: JobQueue;
  gates: ReleaseGates;
  outbound: OutboundHttp;
  access: InstancePolicy<User>;
  clock: Clock;
  cipher: Cipher;
}): { audit: AuditService } {
  return {
    audit: new AuditService(
      new AuditRepository(deps.kysely),
      deps.jobs,
      deps.gates,
      deps.outbound,
      deps.access,
      deps.clock,
      deps.cipher,
    ),
  };
}
