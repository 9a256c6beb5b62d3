import { join } from 'node:path';
import { wireAccessTokens } from './access-tokens/wiring.js';
import { DEFAULT_MAX_ALERTS } from './alerts/alerts.js';
import { wireAlerts } from './alerts/wiring.js';
import { eventPresenter } from './api/event-payloads.js';
import type { AppContext } from './app-context.js';
import { wireAudit } from './audit/wiring.js';
import { wireAvatars } from './avatars/wiring.js';
import { BackupRepository } from './backup/backup.repository.js';
import { BackupService } from './backup/backup.service.js';
import { wireChat } from './chat/wiring.js';
import { type Clock, systemClock } from './clock.js';
import { wireInvalidation } from './cluster/bus.js';
import { wireCluster } from './cluster/wiring.js';
import type { Config } from './config.js';
import { createCipher, loadOrCreateSecretKey } from './crypto.js';
import type { Db } from './db/db.js';
import { wireErrorTracking, wireReleases } from './error-tracking/wiring.js';
import { wireEscalation } from './escalation/wiring.js';
import { wireGeo } from './geo/wiring.js';
import { configuredWeights } from './git/storages.js';
import { wireGit, wireGitAccess, wireRepository } from './git/wiring.js';
import { wireGroups } from './groups/wiring.js';
import { Outbox } from './ingest/outbox.js';
import { wireIssues } from './issues/wiring.js';
import { JobQueue } from './jobs/queue.js';
import { wireMembers, wirePermissions } from './members/wiring.js';
import { wireMergeRequests } from './merge-requests/wiring.js';
import { wireNamespaces } from './namespaces/wiring.js';
import { wireNotifications } from './notifications/wiring.js';
import { wireOncall } from './oncall/wiring.js';
import { OutboundHttp } from './outbound.js';
import { wireAccess, wireProjects } from './projects/wiring.js';
import { wireRunners } from './runners/wiring.js';
import { wireSettings } from './settings/wiring.js';
import { wireSilences } from './silences/wiring.js';
import { wireSnippets } from './snippets/wiring.js';
import { wireStorageMoves } from './storage-moves/wiring.js';
import { wireSuspectCommits } from './suspect-commits/wiring.js';
import { wireUsers } from './users/wiring.js';
import { ReleaseGates } from './versioning/gates.js';
import { parseRelease } from './versioning/release.js';

/** The composition root: each feature built once by its wiring function, then the outbox and the bus. */
export function createContext(config: Config, db: Db, clock: Clock = systemClock): AppContext {
  const kysely = db.kysely;
  const shared = db.dialect === 'postgres';
  const { bus, rates, pushes } = wireCluster({ kysely, shared, databaseUrl: config.databaseUrl, clock });
  const jobs = new JobQueue(kysely, db.dialect, clock, config.jobLeaseSeconds * 1000);
  // What must happen after a commit: the intakes write events in their transaction; handlers are wired below.
  const outbox = new Outbox(kysely, jobs);
  const cipher = createCipher(loadOrCreateSecretKey(config.dataDir));
  const gates = new ReleaseGates(parseRelease(config.release));

  const { namespaces } = wireNamespaces({ kysely });
  const { permissions } = wirePermissions({ kysely, namespaces, clock });
  const { access } = wireAccess({
    permissions,
    tier: config.tier,
    // Called per request only, once projects and groups exist.
    find: { project: (p) => projects.lookup(p), group: (g) => groups.lookup(g) },
  });
  // What (nearly) every feature takes: the database, the clock, the access policy, the caches' lifetime.
  const base = { kysely, dialect: db.dialect, clock, access, cacheTtlMs: config.cacheTtlMs };
  const { settings, apiThrottle } = wireSettings({
    ...base,
    storageWeights: configuredWeights(config.storages),
    // GitLab's PROCESS_MAX_ALERTS: at most 100 alerts per Alertmanager payload.
    maxAlertsPerPayload: DEFAULT_MAX_ALERTS,
    rates: rates(),
  });
  const outbound = new OutboundHttp({
    allowLocal: async () => (await settings.get()).allow_local_requests_from_web_hooks_and_services,
    timeoutMs: config.outboundTimeoutMs,
  });
  const { avatars } = wireAvatars({ dataDir: config.dataDir });
  const { users } = wireUsers({
    ...base,
    avatars,
    namespaces,
    settings,
    limits: config,
    sharedRates: shared ? rates() : null,
  });
  const { members } = wireMembers({ ...base, users, permissions });
  const { accessTokens } = wireAccessTokens({ users, members, access, externalUrl: config.externalUrl });
  const { git, lifecycle, storagePicker, inventory } = wireGit({
    kysely,
    storages: config.storages,
    settings,
  });
  const storages = { names: Object.keys(config.storages), pick: () => storagePicker.pick() };
  const { projects } = wireProjects({
    ...base,
    namespaces,
    members,
    permissions,
    settings,
    storages,
    lifecycle,
    users,
    avatars,
  });
  const repositories = { settings, pickStorage: storages.pick, lifecycle, jobs };
  const { groups } = wireGroups({ ...base, ...repositories, namespaces, members, permissions, avatars });
  const { snippets } = wireSnippets({ ...base, ...repositories, permissions });
  const { audit } = wireAudit({ ...base, jobs, gates, outbound, cipher });
  const { geo } = wireGeo(base);
  const { issues } = wireIssues({
    ...{ kysely, access, users, outbox, clock },
    // Called per request only, once alerts exist.
    alerts: {
      closeResolvesAlerts: (trx, projectId) => alerts.closeResolvesAlerts(trx, projectId),
      resolveFor: (trx, writer, incident, closer, now) =>
        alerts.resolveFor(trx, writer, incident, closer, now),
      unlink: (trx, projectId, iid) => alerts.unlinkIncident(trx, projectId, iid),
    },
  });
  const mrs = wireMergeRequests({
    ...{ ...base, projects, git, users, namespaces, members, pushes, jobs, outbox },
    scratchDir: join(config.dataDir, 'tmp'),
  });
  const { gitAccess } = wireGitAccess({
    ...{ users, groups, projects, snippets, settings, git, audit, pushes, outbox },
    mergeRequests: mrs.mergeRequests,
  });

  const notifier = { settingsChanged: () => notifications.listenersChanged() };
  const alerting = wireAlerts({
    ...base,
    projects,
    issues,
    users,
    settings,
    cipher,
    outbox,
    notifier,
    rates: rates(),
    jobs,
  });
  const { alerts, alertSearch, alertIntake, integrations, heartbeats } = alerting;
  const { errorTracking, collector, monitors, releasesRepository } = wireErrorTracking({
    ...{ ...base, projects, settings, outbound, cipher, jobs, outbox, users },
    offering: config.offering,
    rates: rates(),
    alertWrite: alertIntake.apply,
  });
  const { silences, maintenanceWindows } = wireSilences({ ...base, users, integrations });
  const { notifications, hooks } = wireNotifications({
    ...{ ...base, jobs, projects, members, users, alerts, silences, errorTracking, outbound, cipher, git },
    mergeRequests: mrs.mergeRequests,
    smtp: { url: config.smtpUrl, from: config.emailFrom, timeoutMs: config.outboundTimeoutMs },
    payloads: eventPresenter(config.externalUrl),
    externalUrl: config.externalUrl,
  });
  const { chat } = wireChat({
    ...{ ...base, jobs, projects, alerts, silences, outbound, cipher },
    errors: errorTracking,
    incidents: issues,
    externalUrl: config.externalUrl,
    telegramApiUrl: config.telegramApiUrl,
  });
  const { oncall } = wireOncall({ ...base, projects, users, permissions, namespaces });
  // Someone who leaves loses the overrides that put them on call (GitLab takes them out of the rotations).
  members.onLeft((userId) => oncall.memberLeft(userId));
  const { escalations } = wireEscalation({
    ...base,
    projects,
    alerts,
    incidents: issues,
    outbox,
    externalUrl: config.externalUrl,
    users,
    members,
    oncall,
    // Each page also goes to the chat integrations with page events on.
    notifications: {
      page: async (p) => {
        await notifications.page(p);
        await chat.page(p);
      },
    },
    silences,
    chat: {
      integrationOf: (projectId, slug) => chat.integrationOf(projectId, slug),
      pageChannel: (p, integrationId) => chat.page(p, integrationId),
    },
    jobs,
  });

  const { repository } = wireRepository({ access, git, gitAccess });

  // The hop from an alert (intake or status change) to its notifications and escalation, and from an error to
  // its rules: the outbox events' handlers, by kind.
  outbox.on('alert.changed', 'notifications', {
    // Acknowledgements and their timeouts concern escalation only.
    wants: async (trx, e) =>
      (e.event === 'new' || e.event === 'resolved') &&
      (await notifications.listensToAlerts(trx, e.projectId)),
    handle: async (trx, e) => {
      if (e.event === 'new' || e.event === 'resolved')
        await notifications.alertChanged(trx, e.projectId, e.iid, e.event);
    },
  });
  outbox.on('alert.changed', 'escalation', {
    wants: (trx, e) => escalations.wantsAlertEvent(trx, e.projectId, e.event),
    handle: (trx, e) => escalations.alertChanged(trx, e.projectId, e.iid, e.event, e.alertId, e.at),
  });
  outbox.afterCommit('alert.changed', () => alertSearch.poke());
  // A paged incident acknowledged, resolved or triggered again: its acknowledgement timeout, the end of its pages.
  outbox.on('incident.changed', 'escalation', {
    wants: async (_trx, e) => 'issueId' in e && escalations.wantsIncidentEvent(),
    handle: async (trx, e) => {
      if ('issueId' in e)
        await escalations.incidentChanged(trx, e.projectId, e.issueId, e.iid, e.event, e.at);
    },
  });
  // A silence expired early or changed: the pages it held are checked again at once.
  silences.onChange((projectId) => escalations.silencesChanged(projectId));
  // ... and the alert e-mails and hooks it held, for alerts still firing.
  silences.onChange((projectId) => notifications.silencesChanged(projectId));
  outbox.on('error.recorded', 'notifications', {
    wants: (trx, e) => notifications.wantsErrorEvent(trx, e.projectId, e),
    handle: (trx, e) => notifications.errorRecorded(trx, e.projectId, e.errorId, e),
  });
  // Alerts and errors to the chat integrations with their event flag on.
  outbox.on('alert.changed', 'chat', {
    wants: async (trx, e) =>
      (e.event === 'new' || e.event === 'resolved') && (await chat.wants(trx, e.projectId, 'alert_events')),
    handle: async (trx, e) => {
      if (e.event === 'new' || e.event === 'resolved')
        await chat.alertChanged(trx, e.projectId, e.iid, e.event);
    },
  });
  outbox.on('error.recorded', 'chat', {
    wants: async (trx, e) =>
      (e.created || e.regressedAt !== null) && (await chat.wants(trx, e.projectId, 'error_tracking_events')),
    handle: (trx, e) => chat.errorRecorded(trx, e.projectId, e.errorId, e),
  });
  outbox.on('incident.changed', 'chat', {
    wants: async (trx, e) =>
      (e.event === 'new' || e.event === 'closed') && (await chat.wants(trx, e.projectId, 'incident_events')),
    handle: async (trx, e) => {
      if (e.event === 'new' || e.event === 'closed')
        await chat.incidentChanged(trx, e.projectId, e.iid, e.event);
    },
  });
  // GitLab's push, merge request and note events, to the project hooks that have their flag.
  outbox.on('project.event', 'hooks', {
    wants: (trx, e) => notifications.wantsProjectEvent(trx, e),
    handle: (trx, e) => notifications.projectEvent(trx, e),
  });

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
      changedBy: [(f) => projects.onChange(f), (f) => groups.onTreeDeleted(f), (f) => groups.onTreeMoved(f)],
      // A project's effective escalation policy follows the tree (a move, a deleted group).
      invalidates: [
        () => alertIntake.invalidate(),
        () => collector.invalidate(),
        () => escalations.invalidate(),
      ],
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
    // Chat integrations change rarely: they share the notifications' topic.
    {
      topic: 'notifications',
      changedBy: [(f) => chat.onChange(f)],
      invalidates: [() => chat.invalidate()],
    },
  ]);
  return {
    ...{ config, db, bus, clock, gates, access, outbox, jobs, users, groups, projects, members, snippets },
    ...{
      git,
      storagePicker,
      inventory,
      gitAccess,
      settings,
      apiThrottle,
      issues,
      geo,
      audit,
      oncall,
      avatars,
    },
    ...{ alertIntake, integrations, alerts, alertSearch, errorTracking, collector, notifications, hooks },
    escalations,
    silences,
    maintenanceWindows,
    chat,
    accessTokens,
    monitors,
    heartbeats,
    ...mrs,
    repository,
    ...wireReleases({
      ...{ releasesRepository, access, namespaces, projects, repository, clock },
      uploadLimitBytes: config.sentryUploadLimitBytes,
    }),
    ...wireSuspectCommits({ ...mrs, errorTracking, repository, oncall, users, clock }),
    release: parseRelease(config.release),
    ...wireRunners({
      kysely,
      access,
      gates,
      sharedRegistrationToken: config.sharedRunnersRegistrationToken,
      clock,
    }),
    ...wireStorageMoves({
      kysely,
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
    ctx.avatars,
  );
}
