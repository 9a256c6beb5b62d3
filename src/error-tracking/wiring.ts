import type { Kysely } from 'kysely';
import type { AlertWrite } from '../alerts/intake.service.js';
import type { Clock } from '../clock.js';
import type { RateCounter } from '../cluster/rate-counter.js';
import type { Offering } from '../config.js';
import type { Cipher } from '../crypto.js';
import type { DialectName } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { RepositoryService } from '../git/repository.service.js';
import { Ingest } from '../ingest/ingest.js';
import type { Outbox } from '../ingest/outbox.js';
import type { JobQueue } from '../jobs/queue.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
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
import { type ChunkLimits, DEFAULT_CHUNK_LIMITS } from './releases.js';
import { ReleasesRepository } from './releases.repository.js';
import { ReleasesService } from './releases.service.js';
import { ReportsRepository } from './reports.repository.js';
import { registerRetention } from './retention.js';
import { SentryClient } from './sentry-client.js';
import { Symbolicator } from './symbolication.js';

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
}): {
  errorTracking: ErrorTrackingService;
  collector: CollectorService;
  monitors: MonitorsService;
  releasesRepository: ReleasesRepository;
} {
  const { kysely: k, settings, clock } = deps;
  const repo = new ErrorTrackingRepository(k, deps.dialect);
  const reports = new ReportsRepository(k);
  const releasesRepo = new ReleasesRepository(k);
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
    new Symbolicator(releasesRepo),
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
    releasesRepository: releasesRepo,
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

/**
 * Sentry releases and artifact bundles for `sentry-cli` (`/api/0/`): built once the repository service exists,
 * since a release's commits are read from the project's own repository.
 */
export function wireReleases(deps: {
  releasesRepository: ReleasesRepository;
  access: Access;
  namespaces: NamespacesService;
  projects: ProjectsService;
  repository: RepositoryService;
  clock: Clock;
  uploadLimitBytes: number;
}): { releases: ReleasesService } {
  const chunkSize = Math.min(DEFAULT_CHUNK_LIMITS.chunkSize, deps.uploadLimitBytes);
  const limits: ChunkLimits = {
    ...DEFAULT_CHUNK_LIMITS,
    chunkSize,
    maxFileSize: deps.uploadLimitBytes,
    maxChunks: Math.ceil(deps.uploadLimitBytes / chunkSize),
    maxRequestSize: Math.max(chunkSize, Math.min(DEFAULT_CHUNK_LIMITS.maxRequestSize, deps.uploadLimitBytes)),
  };
  return {
    releases: new ReleasesService(
      deps.releasesRepository,
      deps.access,
      deps.namespaces,
      deps.projects,
      deps.repository,
      deps.clock,
      limits,
    ),
  };
}
