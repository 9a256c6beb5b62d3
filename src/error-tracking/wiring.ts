import type { Kysely } from 'kysely';
import type { AlertWrite } from '../alerts/intake.service.js';
import type { Clock } from '../clock.js';
import type { RateCounter } from '../cluster/rate-counter.js';
import type { Offering } from '../config.js';
import type { Cipher } from '../crypto.js';
import type { DialectName } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { Ingest } from '../ingest/ingest.js';
import type { Outbox } from '../ingest/outbox.js';
import type { JobQueue } from '../jobs/queue.js';
import type { OutboundHttp } from '../outbound.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { UsersService } from '../users/users.service.js';
import { CollectorService } from './collector.service.js';
import { ErrorTrackingRepository } from './error-tracking.repository.js';
import { ErrorTrackingService } from './error-tracking.service.js';
import { MonitorsRepository } from './monitors.repository.js';
import { MonitorsService } from './monitors.service.js';
import { ReportsRepository } from './reports.repository.js';
import { registerRetention } from './retention.js';
import { SentryClient } from './sentry-client.js';

/**
 * Error tracking: settings, keys and errors (integrated or an external Sentry), the Sentry-compatible collector
 * whose transaction writes the `error.recorded` outbox events, and the retention job.
 */
export function wireErrorTracking(deps: {
  kysely: Kysely<Database>;
  dialect: DialectName;
  projects: ProjectsService;
  access: Access;
  settings: SettingsService;
  outbound: OutboundHttp;
  cipher: Cipher;
  offering: Offering;
  jobs: JobQueue;
  outbox: Outbox;
  /** Events per client key. */
  rates: RateCounter;
  cacheTtlMs: number;
  clock: Clock;
  /** Cron monitors' alerts take the alert intake's path. */
  alertWrite: AlertWrite;
  /** Assignees and the authors of activity. */
  users: Pick<UsersService, 'findById' | 'findByUsername'>;
}): { errorTracking: ErrorTrackingService; collector: CollectorService; monitors: MonitorsService } {
  const { kysely: k, settings, clock } = deps;
  const repo = new ErrorTrackingRepository(k, deps.dialect);
  const reports = new ReportsRepository(k);
  registerRetention(deps.jobs, repo, settings, clock, reports);
  const errorTracking = new ErrorTrackingService(
    repo,
    deps.access,
    settings,
    new SentryClient(deps.outbound),
    deps.cipher,
    deps.offering,
    clock,
    deps.users,
    deps.jobs,
    reports,
  );
  errorTracking.registerJobs();
  const monitors = new MonitorsService(
    new MonitorsRepository(k),
    errorTracking,
    deps.jobs,
    clock,
    new Ingest(k, deps.outbox, { maxBatch: 64, attempts: 3 }),
    deps.alertWrite,
  );
  return {
    errorTracking,
    monitors,
    collector: new CollectorService(
      repo,
      deps.projects,
      errorTracking,
      settings,
      clock,
      new Ingest(k, deps.outbox, { maxBatch: 64, attempts: 3 }),
      deps.rates,
      deps.cacheTtlMs,
      monitors,
      reports,
    ),
  };
}
