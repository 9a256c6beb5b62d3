import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Outbox } from '../ingest/outbox.js';
import type { JobQueue } from '../jobs/queue.js';
import type { MembersService } from '../members/members.service.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SilencesService } from '../silences/silences.service.js';
import type { UsersService } from '../users/users.service.js';
import type { OnCallLookup } from './escalation.js';
import { EscalationRepository } from './escalation.repository.js';
import { EscalationService, type EscalationSources } from './escalation.service.js';

/** Escalation policies (Premium and Ultimate) and the pages of new alerts, due from each alert's creation. */
export function wireEscalation(deps: {
  kysely: Kysely<Database>;
  projects: ProjectsService;
  alerts: EscalationSources['alerts'];
  /** Incidents paged by hand. */
  incidents: EscalationSources['incidents'];
  outbox: Outbox;
  /** Where acknowledge links point. */
  externalUrl: string;
  users: Pick<UsersService, 'findById' | 'findByUsername'>;
  /** Who may be paged: the project's members. */
  members: Pick<MembersService, 'memberIdsAtLeast' | 'groupMemberIdsAtLeast'>;
  /** Who is on call now (the on-call schedules). */
  oncall: OnCallLookup;
  /** Sends the pages. */
  notifications: Pick<NotificationsService, 'page'>;
  /** Holds the pages of silenced alerts. */
  silences: Pick<SilencesService, 'silencing'>;
  /** The chat integrations a rule may page. */
  chat?: EscalationSources['chat'];
  jobs: JobQueue;
  access: Access;
  cacheTtlMs: number;
  clock: Clock;
}): { escalations: EscalationService } {
  return {
    escalations: new EscalationService(
      new EscalationRepository(deps.kysely),
      deps.projects,
      {
        alerts: deps.alerts,
        incidents: deps.incidents,
        users: deps.users,
        members: deps.members,
        notifications: deps.notifications,
        silences: deps.silences,
        chat: deps.chat,
      },
      deps.oncall,
      deps.jobs,
      deps.access,
      deps.clock,
      deps.outbox,
      deps.externalUrl,
      deps.cacheTtlMs,
    ),
  };
}
