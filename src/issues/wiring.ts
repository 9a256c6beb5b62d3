import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Outbox } from '../ingest/outbox.js';
import { wireNotes } from '../notes/wiring.js';
import type { Access } from '../projects/access.js';
import type { UsersService } from '../users/users.service.js';
import type { IncidentAlerts } from './issues.js';
import { IssuesRepository } from './issues.repository.js';
import { IssuesService } from './issues.service.js';

/** Issues (incidents), their notes and timeline, and the one incident creator. */
export function wireIssues(deps: {
  kysely: Kysely<Database>;
  access: Access;
  users: UsersService;
  outbox: Outbox;
  clock: Clock;
  /** What closing or deleting an incident does to its alerts (the alerts feature, built after this one). */
  alerts: IncidentAlerts;
}): {
  issues: IssuesService;
} {
  const { kysely, users, clock } = deps;
  // The notes service holds no state: this feature's copy reads and writes the same table as merge requests'.
  const notes = wireNotes({ kysely, users, clock, outbox: deps.outbox });
  return {
    issues: new IssuesService(new IssuesRepository(kysely), {
      access: deps.access,
      users,
      notes,
      outbox: deps.outbox,
      clock,
      alerts: deps.alerts,
    }),
  };
}
