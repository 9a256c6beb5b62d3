import { DEFAULT_MAX_ALERTS } from './alerts/alerts.js';
import { AlertsRepository } from './alerts/alerts.repository.js';
import { AlertsService } from './alerts/alerts.service.js';
import { IntakeService } from './alerts/intake.service.js';
import { IntegrationsService } from './alerts/integrations.service.js';
import { AuditRepository } from './audit/audit.repository.js';
import { AuditService } from './audit/audit.service.js';
import { BackupRepository } from './backup/backup.repository.js';
import { BackupService } from './backup/backup.service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { createCipher, loadOrCreateSecretKey } from './crypto.js';
import type { Db } from './db/db.js';
import { CollectorService } from './error-tracking/collector.service.js';
import { ErrorTrackingRepository } from './error-tracking/error-tracking.repository.js';
import { ErrorTrackingService } from './error-tracking/error-tracking.service.js';
import { registerRetention } from './error-tracking/retention.js';
import { SentryClient } from './error-tracking/sentry-client.js';
import { GeoRepository } from './geo/geo.repository.js';
import { GeoService } from './geo/geo.service.js';
import { Git } from './git/git.js';
import { GitAccessService } from './git/git-access.service.js';
import { InventoryRepository } from './git/inventory.repository.js';
import { InventoryService } from './git/inventory.service.js';
import { RepositoriesService, repositoryLifecycle } from './git/repositories.service.js';
import { configuredWeights, WeightedStorages } from './git/storages.js';
import { GroupDeletionRepository } from './groups/group-deletion.repository.js';
import { GroupsService } from './groups/groups.service.js';
import { NamespacesRepository } from './groups/namespaces.repository.js';
import { IssuesRepository } from './issues/issues.repository.js';
import { IssuesService } from './issues/issues.service.js';
import { JobQueue } from './jobs/queue.js';
import { MembersRepository } from './members/members.repository.js';
import { MembersService } from './members/members.service.js';
import { PermissionsService } from './members/permissions.service.js';
import { ApprovalsRepository } from './merge-requests/approvals.repository.js';
import { ApprovalsService } from './merge-requests/approvals.service.js';
import { MergeRequestsRepository } from './merge-requests/merge-requests.repository.js';
import { MergeRequestsService } from './merge-requests/merge-requests.service.js';
import { MergeRequestApprovalsRepository } from './merge-requests/mr-approvals.repository.js';
import { MergeRequestApprovalsService } from './merge-requests/mr-approvals.service.js';
import { OutboundHttp } from './outbound.js';
import { ProjectsRepository } from './projects/projects.repository.js';
import { ProjectsService } from './projects/projects.service.js';
import { RunnersRepository } from './runners/runners.repository.js';
import { RunnersService } from './runners/runners.service.js';
import { SettingsRepository } from './settings/settings.repository.js';
import { SettingsService } from './settings/settings.service.js';
import { SnippetsRepository } from './snippets/snippets.repository.js';
import { SnippetsService } from './snippets/snippets.service.js';
import { StorageMovesRepository } from './storage-moves/storage-moves.repository.js';
import { StorageMovesService } from './storage-moves/storage-moves.service.js';
import { UsersRepository } from './users/users.repository.js';
import { UsersService } from './users/users.service.js';
import { ReleaseGates } from './versioning/gates.js';
import { parseRelease, type Release } from './versioning/release.js';

/** Everything the HTTP layer and the CLI need, built once. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly release: Release;
  readonly gates: ReleaseGates;
  readonly users: UsersService;
  readonly groups: GroupsService;
  readonly projects: ProjectsService;
  readonly members: MembersService;
  readonly snippets: SnippetsService;
  readonly settings: SettingsService;
  readonly repositories: RepositoriesService;
  /** Where new repositories go, by the weights in application settings. */
  readonly storagePicker: WeightedStorages;
  readonly inventory: InventoryService;
  readonly gitAccess: GitAccessService;
  readonly integrations: IntegrationsService;
  readonly alertIntake: IntakeService;
  readonly alerts: AlertsService;
  readonly issues: IssuesService;
  readonly errorTracking: ErrorTrackingService;
  readonly collector: CollectorService;
  readonly jobs: JobQueue;
  readonly storageMoves: StorageMovesService;
  readonly geo: GeoService;
  readonly audit: AuditService;
  readonly runners: RunnersService;
  readonly mergeRequests: MergeRequestsService;
  readonly approvals: ApprovalsService;
  readonly mergeRequestApprovals: MergeRequestApprovalsService;
}

/** The composition root: repositories, then services, wired once. */
export function createContext(config: Config, db: Db, clock: Clock = systemClock): AppContext {
  const k = db.kysely;
  const usersRepo = new UsersRepository(k);
  const namespacesRepo = new NamespacesRepository(k);
  const projectsRepo = new ProjectsRepository(k);
  const membersRepo = new MembersRepository(k);
  const snippetsRepo = new SnippetsRepository(k);
  const settingsRepo = new SettingsRepository(k);

  const settings = new SettingsService(
    settingsRepo,
    {
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      user_defaults_to_private_profile: false,
      signup_enabled: false,
      repository_storages_weighted: configuredWeights(config.storages),
      // GitLab's defaults: the per-URL alert notification throttle is off, 3600 requests per 3600 s.
      throttle_incident_management_notification_enabled: false,
      throttle_incident_management_notification_per_period: 3600,
      throttle_incident_management_notification_period_in_seconds: 3600,
      // GitLab's PROCESS_MAX_ALERTS: at most 100 alerts per Alertmanager payload.
      incident_management_notification_max_alerts: DEFAULT_MAX_ALERTS,
      error_tracking_rate_limit_per_minute: 0,
      error_tracking_retention_days: 90,
      allow_local_requests_from_web_hooks_and_services: false,
      // GitLab's default: no maximum push size.
      receive_max_input_size: 0,
      sign_in_text: '',
      help_text: '',
    },
    clock,
  );
  const permissions = new PermissionsService(membersRepo, namespacesRepo, clock);
  const repositories = new RepositoriesService(new Git(), config.storages);
  const lifecycle = repositoryLifecycle(repositories);
  const storagePicker = new WeightedStorages(async () => (await settings.get()).repository_storages_weighted);
  const pick = () => storagePicker.pick();
  const projects = new ProjectsService(
    projectsRepo,
    namespacesRepo,
    membersRepo,
    permissions,
    settings,
    { names: Object.keys(config.storages), pick },
    lifecycle,
    clock,
  );
  const alertsRepo = new AlertsRepository(k);
  const issuesRepo = new IssuesRepository(k);
  const cipher = createCipher(loadOrCreateSecretKey(config.dataDir));
  const integrations = new IntegrationsService(alertsRepo, projects, cipher, config.tier, clock);
  const errorTrackingRepo = new ErrorTrackingRepository(k, db.dialect);
  const outbound = new OutboundHttp({
    allowLocal: async () => (await settings.get()).allow_local_requests_from_web_hooks_and_services,
    timeoutMs: config.outboundTimeoutMs,
  });
  const sentry = new SentryClient(outbound);
  const jobs = new JobQueue(k, db.dialect, clock, config.jobLeaseSeconds * 1000);
  registerRetention(jobs, errorTrackingRepo, settings, clock);
  const errorTracking = new ErrorTrackingService(
    errorTrackingRepo,
    projects,
    settings,
    sentry,
    cipher,
    config.offering,
    clock,
  );
  const geo = new GeoService(new GeoRepository(k), clock);
  const groups = new GroupsService(
    namespacesRepo,
    membersRepo,
    permissions,
    settings,
    pick,
    lifecycle,
    clock,
    new GroupDeletionRepository(k, db.dialect),
    jobs,
  );
  const users = new UsersService(usersRepo, namespacesRepo, settings, clock, {
    maxAttempts: config.maxLoginAttempts,
    lockMs: config.loginLockMinutes * 60_000,
    failuresPerAddress: config.loginFailuresPerIp,
    windowMs: config.loginFailureWindowSeconds * 1000,
  });
  const snippets = new SnippetsService(snippetsRepo, projects, settings, pick, lifecycle, clock);
  const audit = new AuditService(
    new AuditRepository(k),
    jobs,
    new ReleaseGates(parseRelease(config.release)),
    outbound,
    clock,
    cipher,
  );
  const mergeRequests = new MergeRequestsService(
    new MergeRequestsRepository(k),
    projects,
    repositories,
    usersRepo,
    clock,
  );
  const approvals = new ApprovalsService(
    new ApprovalsRepository(k),
    projects,
    usersRepo,
    namespacesRepo,
    clock,
  );
  return {
    config,
    db,
    clock,
    release: parseRelease(config.release),
    gates: new ReleaseGates(parseRelease(config.release)),
    users,
    groups,
    projects,
    members: new MembersService(membersRepo, usersRepo, clock),
    snippets,
    repositories,
    storagePicker,
    inventory: new InventoryService(new InventoryRepository(k)),
    gitAccess: new GitAccessService(users, groups, projects, snippets, settings, repositories, audit),
    settings,
    integrations,
    alertIntake: new IntakeService(
      alertsRepo,
      issuesRepo,
      integrations,
      projects,
      settings,
      config.tier,
      clock,
    ),
    alerts: new AlertsService(alertsRepo, projects, clock),
    issues: new IssuesService(issuesRepo, projects),
    errorTracking,
    jobs,
    geo,
    mergeRequests,
    approvals,
    mergeRequestApprovals: new MergeRequestApprovalsService(
      new MergeRequestApprovalsRepository(k),
      mergeRequests,
      projects,
      approvals,
      membersRepo,
      usersRepo,
      config.tier,
      clock,
    ),
    runners: new RunnersService(
      new RunnersRepository(k),
      projects,
      groups,
      new ReleaseGates(parseRelease(config.release)),
      config.sharedRunnersRegistrationToken,
      clock,
    ),
    audit,
    storageMoves: new StorageMovesService(
      new StorageMovesRepository(k),
      repositories,
      jobs,
      storagePicker,
      config.offering,
      config.tier,
      clock,
      // Spec rule 9: after moving, when geo replication is enabled, all repositories are resynced.
      (type, id) => geo.markResync(type, id, 'repository storage move'),
      config.movePushWaitSeconds * 1000,
    ),
    collector: new CollectorService(errorTrackingRepo, projects, errorTracking, settings, clock),
  };
}

/** The backup service over a context (the `svc backup` commands open their own, beside a running server). */
export function createBackupService(ctx: AppContext): BackupService {
  return new BackupService(
    new BackupRepository(ctx.db.kysely, ctx.db.dialect),
    ctx.repositories,
    ctx.config.dataDir,
    ctx.config.release,
    ctx.storagePicker,
  );
}
