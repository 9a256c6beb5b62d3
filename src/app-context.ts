import type { AccessTokensService } from './access-tokens/access-tokens.service.js';
import type { AlertsService } from './alerts/alerts.service.js';
import type { HeartbeatsService } from './alerts/heartbeats.service.js';
import type { IntakeService } from './alerts/intake.service.js';
import type { IntegrationsService } from './alerts/integrations.service.js';
import type { AlertSearchIndex } from './alerts/search-index.js';
import type { AuditService } from './audit/audit.service.js';
import type { AvatarStore } from './avatars/avatar-store.js';
import type { ChatService } from './chat/chat.service.js';
import type { Clock } from './clock.js';
import type { InvalidationBus } from './cluster/bus.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import type { CollectorService } from './error-tracking/collector.service.js';
import type { ErrorTrackingService } from './error-tracking/error-tracking.service.js';
import type { MonitorsService } from './error-tracking/monitors.service.js';
import type { ReleasesService } from './error-tracking/releases.service.js';
import type { EscalationService } from './escalation/escalation.service.js';
import type { GeoService } from './geo/geo.service.js';
import type { GitAccessService } from './git/git-access.service.js';
import type { GitRepositoriesService } from './git/git-repositories.service.js';
import type { InventoryService } from './git/inventory.service.js';
import type { RepositoryService } from './git/repository.service.js';
import type { WeightedStorages } from './git/storages.js';
import type { GroupsService } from './groups/groups.service.js';
import type { Outbox } from './ingest/outbox.js';
import type { IssuesService } from './issues/issues.service.js';
import type { JobQueue } from './jobs/queue.js';
import type { MembersService } from './members/members.service.js';
import type { MergeRequestApprovalsService } from './merge-requests/merge-request-approvals.service.js';
import type { MergeRequestNotesService } from './merge-requests/merge-request-notes.service.js';
import type { MergeRequestsService } from './merge-requests/merge-requests.service.js';
import type { ProjectApprovalRulesService } from './merge-requests/project-approval-rules.service.js';
import type { HooksService } from './notifications/hooks.service.js';
import type { NotificationsService } from './notifications/notifications.service.js';
import type { OncallService } from './oncall/oncall.service.js';
import type { Access } from './projects/access.js';
import type { ProjectsService } from './projects/projects.service.js';
import type { RunnersService } from './runners/runners.service.js';
import type { ApiThrottle } from './settings/api-throttle.js';
import type { SettingsService } from './settings/settings.service.js';
import type { MaintenanceWindowsService } from './silences/maintenance-windows.service.js';
import type { SilencesService } from './silences/silences.service.js';
import type { SnippetsService } from './snippets/snippets.service.js';
import type { StorageMovesService } from './storage-moves/storage-moves.service.js';
import type { SuspectCommitsService } from './suspect-commits/suspect-commits.service.js';
import type { UsersService } from './users/users.service.js';
import type { ReleaseGates } from './versioning/gates.js';
import type { Release } from './versioning/release.js';

/** Everything the HTTP layer and the CLI need, built once. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly release: Release;
  readonly gates: ReleaseGates;
  /** The one access policy: may this actor do this to this object. */
  readonly access: Access;
  readonly users: UsersService;
  readonly groups: GroupsService;
  readonly projects: ProjectsService;
  readonly members: MembersService;
  readonly snippets: SnippetsService;
  readonly settings: SettingsService;
  /** The API's request throttles (application settings `throttle_*_api_*`). */
  readonly apiThrottle: ApiThrottle;
  /** Git repositories on disk (the storages), not data access. */
  readonly git: GitRepositoriesService;
  /** Avatar files under the data directory (backup reads and restores them). */
  readonly avatars: AvatarStore;
  /** Where new repositories go, by the weights in application settings. */
  readonly storagePicker: WeightedStorages;
  readonly inventory: InventoryService;
  readonly gitAccess: GitAccessService;
  /** Repository content through the API: trees, files, branches, commits, and commits made without a push. */
  readonly repository: RepositoryService;
  readonly integrations: IntegrationsService;
  readonly alertIntake: IntakeService;
  readonly alerts: AlertsService;
  /** SQLite's alert search index, kept up to date in the background. */
  readonly alertSearch: AlertSearchIndex;
  readonly issues: IssuesService;
  readonly errorTracking: ErrorTrackingService;
  /** Sentry releases and artifact bundles for `sentry-cli` (`/api/0/`). */
  readonly releases: ReleasesService;
  /** Errors with their suspect commits (blame of the culprit frame in the release, its merge request). */
  readonly suspectCommits: SuspectCommitsService;
  readonly collector: CollectorService;
  readonly jobs: JobQueue;
  /** The one dispatcher of what must happen after a commit (the server hooks its log). */
  readonly outbox: Outbox;
  readonly storageMoves: StorageMovesService;
  readonly geo: GeoService;
  readonly audit: AuditService;
  readonly runners: RunnersService;
  readonly mergeRequests: MergeRequestsService;
  readonly projectApprovalRules: ProjectApprovalRulesService;
  readonly mergeRequestApprovals: MergeRequestApprovalsService;
  readonly mergeRequestNotes: MergeRequestNotesService;
  /** Cache invalidation across processes (PostgreSQL LISTEN/NOTIFY), or within this one (SQLite). */
  readonly bus: InvalidationBus;
  /** E-mail, webhook deliveries and error rules. */
  readonly notifications: NotificationsService;
  /** Project webhooks and error notification rules (Maintainer). */
  readonly hooks: HooksService;
  /** On-call schedules, rotations and who is on call (Premium and Ultimate). */
  readonly oncall: OncallService;
  /** Escalation policies and the pages of new alerts (Premium and Ultimate). */
  readonly escalations: EscalationService;
  /** Alert silences (Alertmanager's): what holds a matching alert's pages, e-mails and hooks back. */
  readonly silences: SilencesService;
  /** Maintenance windows (PagerDuty's): a project or an integration silenced for a planned period. */
  readonly maintenanceWindows: MaintenanceWindowsService;
  /** Sentry cron monitors and their check-ins. */
  readonly monitors: MonitorsService;
  /** Heartbeat integrations' deadlines. */
  readonly heartbeats: HeartbeatsService;
  /** Project and group access tokens (their bot users). */
  readonly accessTokens: AccessTokensService;
  /** Chat integrations (GitLab's `/projects/:id/integrations/:slug` for chat services) and their deliveries. */
  readonly chat: ChatService;
}
