import { DEFAULT_MAX_ALERTS } from './alerts/alerts.js';
import { AlertsRepository } from './alerts/alerts.repository.js';
import { AlertsService } from './alerts/alerts.service.js';
import { type AlertNotifier, IntakeService } from './alerts/intake.service.js';
import { IntegrationsService } from './alerts/integrations.service.js';
import { AlertSearchIndex } from './alerts/search-index.js';
import { eventPresenter } from './api/event-payloads.js';
import type { AppContext } from './app-context.js';
import { AuditRepository } from './audit/audit.repository.js';
import { AuditService } from './audit/audit.service.js';
import { BackupRepository } from './backup/backup.repository.js';
import { BackupService } from './backup/backup.service.js';
import { type Clock, systemClock } from './clock.js';
import { type InvalidationBus, LocalBus, wireInvalidation } from './cluster/bus.js';
import { ClusterRepository } from './cluster/cluster.repository.js';
import { PgBus } from './cluster/pg-bus.js';
import { PushTracker } from './cluster/push-tracker.js';
import { LocalRateCounter, type RateCounter, SharedRateCounter } from './cluster/rate-counter.js';
import type { Config } from './config.js';
import { createCipher, loadOrCreateSecretKey } from './crypto.js';
import type { Db } from './db/db.js';
import { CollectorService } from './error-tracking/collector.service.js';
import { ErrorTrackingRepository } from './error-tracking/error-tracking.repository.js';
import { ErrorTrackingService } from './error-tracking/error-tracking.service.js';
import { registerRetention } from './error-tracking/retention.js';
import { SentryClient } from './error-tracking/sentry-client.js';
import { EscalationRepository } from './escalation/escalation.repository.js';
import { EscalationService } from './escalation/escalation.service.js';
import { GeoRepository } from './geo/geo.repository.js';
import { GeoService } from './geo/geo.service.js';
import { GitAccessService } from './git/git-access.service.js';
import { configuredWeights } from './git/storages.js';
import { wireGit } from './git/wiring.js';
import { GroupDeletionRepository } from './groups/group-deletion.repository.js';
import { GroupsService } from './groups/groups.service.js';
import { Ingest } from './ingest/ingest.js';
import { Outbox } from './ingest/outbox.js';
import { IssuesRepository } from './issues/issues.repository.js';
import { IssuesService } from './issues/issues.service.js';
import { JobQueue } from './jobs/queue.js';
import { AccessLevel } from './members/members.js';
import { MembersRepository } from './members/members.repository.js';
import { MembersService } from './members/members.service.js';
import { PermissionsService } from './members/permissions.service.js';
import { wireMergeRequests } from './merge-requests/wiring.js';
import { NamespacesRepository } from './namespaces/namespaces.repository.js';
import { NamespacesService } from './namespaces/namespaces.service.js';
import { HooksService } from './notifications/hooks.service.js';
import { smtpMailer } from './notifications/mailer.js';
import { NotificationsRepository } from './notifications/notifications.repository.js';
import { NotificationsService } from './notifications/notifications.service.js';
import { OncallRepository } from './oncall/oncall.repository.js';
import { OncallService } from './oncall/oncall.service.js';
import { OutboundHttp } from './outbound.js';
import { createAccessPolicy } from './projects/access.js';
import { ProjectsRepository } from './projects/projects.repository.js';
import { ProjectsService } from './projects/projects.service.js';
import { wireRunners } from './runners/wiring.js';
import { wireSettings } from './settings/wiring.js';
import { SnippetsRepository } from './snippets/snippets.repository.js';
import { SnippetsService } from './snippets/snippets.service.js';
import { wireStorageMoves } from './storage-moves/wiring.js';
import { SharedSignInLimiter } from './users/sign-in-limiter.js';
import { UsersRepository } from './users/users.repository.js';
import { UsersService } from './users/users.service.js';
import { ReleaseGates } from './versioning/gates.js';
import { parseRelease } from './versioning/release.js';

/** The composition root: repositories, then services, wired once. */
export function createContext(config: Config, db: Db, clock: Clock = systemClock): AppContext {
  const k = db.kysely;
  const usersRepo = new UsersRepository(k);
  const projectsRepo = new ProjectsRepository(k);
  const membersRepo = new MembersRepository(k);
  const snippetsRepo = new SnippetsRepository(k);
  // Several processes share one PostgreSQL database: caches are invalidated through the bus, rate
  // limits are counted in the database and pushes in progress are recorded there. SQLite is one process.
  const shared = db.dialect === 'postgres';
  const clusterRepo = new ClusterRepository(k);
  const bus: InvalidationBus =
    shared && config.databaseUrl
      ? new PgBus(config.databaseUrl, (channel, payload) => clusterRepo.notify(channel, payload))
      : new LocalBus();
  // One counter per use: in memory, each keeps its own bound (a flood of collector keys never evicts alert windows).
  const rates = (): RateCounter =>
    shared ? new SharedRateCounter(clusterRepo, clock) : new LocalRateCounter(clock);
  const pushes = new PushTracker(clusterRepo, shared);

  const namespaces = new NamespacesService(new NamespacesRepository(k));
  const permissions = new PermissionsService(membersRepo, namespaces, clock);
  // The one access policy; projects and groups find objects for it (declared below, called only per request).
  const access = createAccessPolicy(
    permissions,
    { project: (idOrPath) => projects.lookup(idOrPath), group: (idOrPath) => groups.lookup(idOrPath) },
    config.tier,
  );
  const { settings } = wireSettings({
    kysely: k,
    access,
    clock,
    cacheTtlMs: config.cacheTtlMs,
    storageWeights: configuredWeights(config.storages),
    // GitLab's PROCESS_MAX_ALERTS: at most 100 alerts per Alertmanager payload.
    maxAlertsPerPayload: DEFAULT_MAX_ALERTS,
  });
  const users = new UsersService(
    usersRepo,
    namespaces,
    settings,
    access,
    clock,
    {
      maxAttempts: config.maxLoginAttempts,
      lockMs: config.loginLockMinutes * 60_000,
      failuresPerAddress: config.loginFailuresPerIp,
      windowMs: config.loginFailureWindowSeconds * 1000,
    },
    shared
      ? new SharedSignInLimiter(rates(), config.loginFailuresPerIp, config.loginFailureWindowSeconds * 1000)
      : undefined,
  );
  const members = new MembersService(membersRepo, users, access, clock);
  const { git, lifecycle, storagePicker, inventory } = wireGit({
    kysely: k,
    storages: config.storages,
    settings,
  });
  const pick = () => storagePicker.pick();
  const projects = new ProjectsService(
    projectsRepo,
    namespaces,
    members,
    permissions,
    access,
    settings,
    { names: Object.keys(config.storages), pick },
    lifecycle,
    clock,
  );
  const alertsRepo = new AlertsRepository(k, db.dialect);
  const issues = new IssuesService(new IssuesRepository(k), projects);
  const cipher = createCipher(loadOrCreateSecretKey(config.dataDir));
  const integrations = new IntegrationsService(alertsRepo, projects, cipher, access, clock);
  const outbound = new OutboundHttp({
    allowLocal: async () => (await settings.get()).allow_local_requests_from_web_hooks_and_services,
    timeoutMs: config.outboundTimeoutMs,
  });
  const sentry = new SentryClient(outbound);
  const jobs = new JobQueue(k, db.dialect, clock, config.jobLeaseSeconds * 1000);
  const payloads = eventPresenter(config.externalUrl);
  const notifyRepo = new NotificationsRepository(k);
  const notifications: NotificationsService = new NotificationsService(
    notifyRepo,
    jobs,
    config.smtpUrl ? smtpMailer(config.smtpUrl, config.emailFrom, config.outboundTimeoutMs) : null,
    payloads,
    {
      project: (id) => projectsRepo.findById(id),
      inheritedSources: (p) => permissions.inheritedSources(p.namespace, false),
      alert: (projectId, iid) => alertsRepo.alert(projectId, iid),
      sendEmailEnabled: async (projectId) => (await alertsRepo.settings(projectId)).sendEmail,
      error: (projectId, id) => errorTrackingRepo.error(projectId, id),
    },
    outbound,
    cipher,
    access,
    clock,
    config.externalUrl,
  );
  const errorTrackingRepo: ErrorTrackingRepository = new ErrorTrackingRepository(k, db.dialect);
  registerRetention(jobs, errorTrackingRepo, settings, clock);
  const errorTracking = new ErrorTrackingService(
    errorTrackingRepo,
    access,
    settings,
    sentry,
    cipher,
    config.offering,
    clock,
  );
  const geo = new GeoService(new GeoRepository(k), access, clock);
  const groups = new GroupsService(
    namespaces,
    members,
    permissions,
    access,
    settings,
    pick,
    lifecycle,
    clock,
    new GroupDeletionRepository(k, db.dialect),
    jobs,
  );
  const snippets = new SnippetsService(snippetsRepo, access, settings, pick, lifecycle, clock);
  const audit = new AuditService(
    new AuditRepository(k),
    jobs,
    new ReleaseGates(parseRelease(config.release)),
    outbound,
    access,
    clock,
    cipher,
  );
  const { mergeRequests, projectApprovalRules, mergeRequestApprovals } = wireMergeRequests({
    kysely: k,
    projects,
    git,
    users,
    namespaces,
    members,
    access,
    clock,
  });
  const gitAccess = new GitAccessService(
    users,
    groups,
    projects,
    snippets,
    settings,
    git,
    audit,
    mergeRequests,
    pushes,
  );
  const oncall = new OncallService(
    new OncallRepository(k),
    projects,
    users,
    (p) => permissions.inheritedSources(p.namespace, false),
    access,
    clock,
  );
  const escalations = new EscalationService(
    new EscalationRepository(k),
    projects,
    {
      alert: (projectId, iid) => alertsRepo.alert(projectId, iid),
      user: (id) => usersRepo.findById(id),
      userByUsername: (username) => usersRepo.findByUsername(username),
      memberIds: async (project) => {
        const sources = [
          { type: 'project' as const, id: project.id },
          ...(await permissions.inheritedSources(project.namespace, false)),
        ];
        const today = clock.now().toISOString().slice(0, 10);
        const owner = project.namespace.kind === 'user' ? project.namespace.ownerId : null;
        const members = await notifyRepo.membersAtLeast(sources, AccessLevel.Guest, today, owner);
        return new Set(members.map((m) => m.id));
      },
      page: (p) => notifications.page(p),
    },
    oncall,
    jobs,
    access,
    clock,
    config.cacheTtlMs,
  );
  const alertNotifier: AlertNotifier = { settingsChanged: () => notifications.listenersChanged() };
  const alertSearch = new AlertSearchIndex(alertsRepo);
  // What happens after an intake or status change commits: the outbox events' handlers, by kind.
  const outbox = new Outbox(k, jobs);
  outbox.on('alert.changed', 'notifications', {
    wants: (trx, e) => notifications.listensToAlerts(trx, e.projectId),
    handle: (trx, e) => notifications.alertChanged(trx, e.projectId, e.iid, e.event),
  });
  outbox.on('alert.changed', 'escalation', {
    wants: (trx, e) => escalations.wantsAlertEvent(trx, e.projectId, e.event),
    handle: (trx, e) => escalations.alertChanged(trx, e.projectId, e.iid, e.event, e.alertId, e.at),
  });
  outbox.afterCommit('alert.changed', () => alertSearch.poke());
  outbox.on('error.recorded', 'notifications', {
    wants: (trx, e) => notifications.wantsErrorEvent(trx, e.projectId, e),
    handle: (trx, e) => notifications.errorRecorded(trx, e.projectId, e.errorId, e),
  });
  const alertIntake = new IntakeService(
    alertsRepo,
    issues,
    integrations,
    projects,
    settings,
    access,
    clock,
    new Ingest(k, outbox, { maxBatch: 64, attempts: 5 }),
    rates(),
    config.cacheTtlMs,
  );
  const collector = new CollectorService(
    errorTrackingRepo,
    projects,
    errorTracking,
    settings,
    clock,
    new Ingest(k, outbox, { maxBatch: 64, attempts: 3 }),
    rates(),
    config.cacheTtlMs,
  );
  // Changes are announced on the bus after they commit; every process's caches subscribe to what they hold.
  const settingsChange =
    (what: 'settings' | 'flags') =>
    (announce: () => Promise<void>): void =>
      settings.onChange((changed) => (changed === what ? announce() : undefined));
  wireInvalidation(bus, [
    {
      topic: 'integrations',
      changedBy: [(f) => integrations.onChange(f)],
      invalidates: [() => alertIntake.invalidate()],
    },
    {
      topic: 'projects',
      changedBy: [(f) => projects.onChange(f), (f) => groups.onTreeDeleted(f)],
      invalidates: [() => alertIntake.invalidate(), () => collector.invalidate()],
    },
    {
      topic: 'error-tracking',
      changedBy: [(f) => errorTracking.onChange(f)],
      invalidates: [() => collector.invalidate()],
    },
    {
      topic: 'flags',
      changedBy: [settingsChange('flags')],
      invalidates: [
        () => alertIntake.invalidate(),
        () => collector.invalidate(),
        () => settings.invalidate('flags'),
      ],
    },
    {
      topic: 'settings',
      changedBy: [settingsChange('settings')],
      invalidates: [() => settings.invalidate('settings')],
    },
    {
      topic: 'escalation-policies',
      changedBy: [(f) => escalations.onChange(f)],
      invalidates: [() => escalations.invalidate()],
    },
    {
      topic: 'notifications',
      changedBy: [(f) => notifications.onChange(f)],
      invalidates: [() => notifications.invalidate()],
    },
  ]);
  return {
    config,
    db,
    bus,
    clock,
    release: parseRelease(config.release),
    gates: new ReleaseGates(parseRelease(config.release)),
    access,
    users,
    groups,
    projects,
    members,
    snippets,
    git,
    storagePicker,
    inventory,
    gitAccess,
    settings,
    integrations,
    alertIntake,
    alerts: new AlertsService(
      alertsRepo,
      projects,
      access,
      clock,
      users,
      issues,
      alertNotifier,
      alertSearch,
      outbox,
    ),
    alertSearch,
    issues,
    errorTracking,
    jobs,
    geo,
    mergeRequests,
    projectApprovalRules,
    mergeRequestApprovals,
    ...wireRunners({
      kysely: k,
      access,
      gates: new ReleaseGates(parseRelease(config.release)),
      sharedRegistrationToken: config.sharedRunnersRegistrationToken,
      clock,
    }),
    audit,
    ...wireStorageMoves({
      kysely: k,
      git,
      jobs,
      storagePicker,
      offering: config.offering,
      access,
      clock,
      // Spec rule 9: after moving, when geo replication is enabled, all repositories are resynced.
      moved: (type, id) => geo.markResync(type, id, 'repository storage move'),
      pushWaitMs: config.movePushWaitSeconds * 1000,
      pushes,
    }),
    collector,
    notifications,
    escalations,
    hooks: new HooksService(
      notifyRepo,
      access,
      notifications,
      payloads,
      outbound,
      cipher,
      clock,
      config.externalUrl,
      (p) => permissions.inheritedSources(p.namespace, false),
    ),
    oncall,
  };
}

/** The backup service over a context (the `svc backup` commands open their own, beside a running server). */
export function createBackupService(ctx: AppContext): BackupService {
  return new BackupService(
    new BackupRepository(ctx.db.kysely, ctx.db.dialect),
    ctx.git,
    ctx.config.dataDir,
    ctx.config.release,
    ctx.storagePicker,
  );
}
