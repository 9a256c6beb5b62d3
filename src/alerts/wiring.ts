import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { RateCounter } from '../cluster/rate-counter.js';
import type { Cipher } from '../crypto.js';
import type { DialectName } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { Ingest } from '../ingest/ingest.js';
import type { Outbox } from '../ingest/outbox.js';
import type { IssuesService } from '../issues/issues.service.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { UsersService } from '../users/users.service.js';
import { AlertsRepository } from './alerts.repository.js';
import { AlertsService } from './alerts.service.js';
import { HeartbeatsRepository } from './heartbeats.repository.js';
import { HeartbeatsService } from './heartbeats.service.js';
import { type AlertNotifier, IntakeService } from './intake.service.js';
import { IntegrationsService } from './integrations.service.js';
import { AlertSearchIndex } from './search-index.js';

/**
 * Alerts: the integrations (keys, tier rules), the alerts themselves, SQLite's search index and the notify
 * intake, whose transaction writes the `alert.changed` outbox events.
 */
export function wireAlerts(deps: {
  kysely: Kysely<Database>;
  dialect: DialectName;
  projects: ProjectsService;
  issues: IssuesService;
  users: Pick<UsersService, 'findByUsername'>;
  settings: SettingsService;
  access: Access;
  cipher: Cipher;
  outbox: Outbox;
  /** Told when a project's alert settings change (who listens to its alerts). */
  notifier: AlertNotifier;
  /** Notifications per integration, counted after authentication. */
  rates: RateCounter;
  cacheTtlMs: number;
  clock: Clock;
  /** The heartbeats' deadline jobs. */
  jobs: JobQueue;
}): {
  integrations: IntegrationsService;
  alerts: AlertsService;
  alertSearch: AlertSearchIndex;
  alertIntake: IntakeService;
  heartbeats: HeartbeatsService;
} {
  const { kysely: k, projects, access, clock } = deps;
  const repo = new AlertsRepository(k, deps.dialect);
  // The intake writes the heartbeats' alerts, and tells them of calls: the write is reached once it exists.
  const heartbeats = new HeartbeatsService(
    new HeartbeatsRepository(k),
    repo,
    deps.jobs,
    clock,
    new Ingest(k, deps.outbox, { maxBatch: 64, attempts: 5 }),
    () => intake.apply,
  );
  const integrations = new IntegrationsService(repo, projects, deps.cipher, access, clock, heartbeats);
  const alertSearch = new AlertSearchIndex(repo);
  const intake: IntakeService = new IntakeService(
    repo,
    deps.issues,
    integrations,
    projects,
    deps.settings,
    access,
    clock,
    new Ingest(k, deps.outbox, { maxBatch: 64, attempts: 5 }),
    deps.rates,
    deps.cacheTtlMs,
    heartbeats,
  );
  return {
    heartbeats,
    integrations,
    alerts: new AlertsService(
      repo,
      projects,
      access,
      clock,
      deps.users,
      deps.issues,
      deps.notifier,
      alertSearch,
      deps.outbox,
    ),
    alertSearch,
    alertIntake: intake,
  };
}
