import type { Static } from 'typebox';
import type {
  AlertCountsEntity,
  AlertEntity,
  AlertNoteEntity,
  AlertSettingsEntity,
  IntakeEntity,
  IntegrationEntity,
  OccurrencesEntity,
  PayloadFieldEntity,
} from '../../api/alerts/alerts.entities.js';
import type { DeprecationCatalogEntity, DeprecationEntity } from '../../api/deprecations.entities.js';
import type {
  ClientKeyEntity,
  ErrorActivityEntity,
  ErrorAttachmentEntity,
  ErrorCountsEntity,
  ErrorDetailEntity,
  ErrorEntity,
  ErrorEventDetailEntity,
  ErrorEventEntity,
  ErrorFeedbackEntity,
  ErrorHashEntity,
  ErrorMergeEntity,
  ErrorSessionsEntity,
  ErrorStatsEntity,
  ErrorTrackingSettingsEntity,
  ExternalProjectsEntity,
  StackTraceEntity,
} from '../../api/error-tracking/error-tracking.entities.js';
import type { MonitorEntity } from '../../api/error-tracking/monitors.entities.js';
import type { SentryReleaseEntity } from '../../api/error-tracking/sentry-api.entities.js';
import type {
  AlertEscalationEntity,
  EscalationPolicyEntity,
  EscalationRuleEntity,
} from '../../api/escalation/escalation.entities.js';
import type { GroupEntity, NamespaceEntity } from '../../api/groups/groups.entities.js';
import type {
  IssueEntity,
  TimelineEventEntity,
  TimelineEventTagEntity,
} from '../../api/issues/issues.entities.js';
import type { MemberEntity } from '../../api/members/members.entities.js';
import type { MergeRequestEntity } from '../../api/merge-requests/merge-requests.entities.js';
import type { NoteEntity } from '../../api/notes/notes.entities.js';
import type {
  ErrorNotificationRuleEntity,
  HookDeliveryEntity,
  ProjectHookEntity,
} from '../../api/notifications/notifications.entities.js';
import type {
  OncallOverrideEntity,
  OncallRotationEntity,
  OncallScheduleEntity,
  OncallShiftEntity,
  OncallUserEntity,
} from '../../api/oncall/oncall.entities.js';
import type { ProjectEntity } from '../../api/projects/projects.entities.js';
import type { SessionEntity } from '../../api/session.entities.js';
import type { FeatureEntity, SettingsEntity, VersionEntity } from '../../api/settings/settings.entities.js';
import type { MaintenanceWindowEntity } from '../../api/silences/maintenance-windows.entities.js';
import type { MatcherEntity, SilenceEntity } from '../../api/silences/silences.entities.js';
import type { SnippetEntity } from '../../api/snippets/snippets.entities.js';
import type {
  RepositoryStorageEntity,
  StorageMoveEntity,
} from '../../api/storage-moves/storage-moves.entities.js';
import type { Token, UserAny, UserBasic, UserDetail } from '../../api/users/users.entities.js';

// Response bodies are the server's entity schemas (type-only imports: erased from the bundle, and the UI never
// declares a copy of one: test/architecture.test.ts). What follows them is the UI's own.

/** A GitLab project entity (`GET /projects/:id`). */
export type Project = Static<typeof ProjectEntity>;
/** Body of `GET /api/v4/version`. */
export type VersionInfo = Static<typeof VersionEntity>;
/** A user as the admin area lists it (`GET /users` as an administrator). */
export type AdminUser = Static<typeof UserDetail>;
/** Body of `GET /api/v4/user`: the signed-in user, e-mail included. */
export type CurrentUser = Static<typeof UserDetail>;
/** Body of `GET /projects/:id/alert_management/integrations/:integration_id`. */
export type Integration = Static<typeof IntegrationEntity>;
/** How one alert field is read from a custom payload. */
export type PayloadMapping = Integration['payload_attribute_mapping'][string];
/** Body of `GET /projects/:id/alert_management/alerts/:alert_iid`. */
export type Alert = Static<typeof AlertEntity>;
/** One note of an alert (system notes record status changes and intake). */
export type AlertNote = Static<typeof AlertNoteEntity>;
/** Body of `GET/PUT /projects/:id/alert_management/settings`. */
export type AlertSettings = Static<typeof AlertSettingsEntity>;
/** A GitLab issue (here: an incident). */
export type Issue = Static<typeof IssueEntity>;
/** Body of `GET/PUT /projects/:id/error_tracking/settings`. */
export type ErrorTrackingSettings = Static<typeof ErrorTrackingSettingsEntity>;
/** One client key of the integrated backend (`GET /projects/:id/error_tracking/client_keys`). */
export type ClientKey = Static<typeof ClientKeyEntity>;
/** Body of the Connect action (`GET .../error_tracking/projects`): the external Sentry's projects. */
export type ExternalProjects = Static<typeof ExternalProjectsEntity>;
/** One project of the external Sentry, as the Connect action lists it. */
export type ExternalProject = ExternalProjects['projects'][number];
/** One item of `GET /projects/:id/error_tracking/errors` (and the answer to a status change). */
export type TrackedError = Static<typeof ErrorEntity>;
/** One entry of `GET .../errors/:error_id/activities` (and the answer to a comment). */
export type ErrorActivity = Static<typeof ErrorActivityEntity>;
/** Body of `GET /projects/:id/error_tracking/errors/:error_id`: the error with its suspect commits. */
export type ErrorDetail = Static<typeof ErrorDetailEntity>;
/** A suspect commit of an error: the commit that last changed its culprit line, with its merge request. */
export type SuspectCommit = ErrorDetail['suspect_commits'][number];
/** Body of `GET .../errors/:error_id/stack_trace`: frames caller first, as Sentry sends them. */
export type StackTrace = Static<typeof StackTraceEntity>;

/** A Sentry release as sentry-cli's API (`/api/0/`) answers it: its first and last events. */
export type SentryRelease = Static<typeof SentryReleaseEntity>;
/** One frame of a stack trace; `context` holds `[line number, code]` pairs. */
export type StackTraceEntry = StackTrace['stack_trace_entries'][number];
/** One event of an error (`GET .../errors/:error_id/events`). */
export type ErrorEvent = Static<typeof ErrorEventEntity>;
/** User feedback about an error's events (`GET .../errors/:error_id/feedback`). */
export type ErrorFeedback = Static<typeof ErrorFeedbackEntity>;
/** An event's attachment (`GET .../events/:event_id/attachments`). */
export type ErrorAttachment = Static<typeof ErrorAttachmentEntity>;
/** Body of `GET/PUT /application/settings`. */
export type ApplicationSettings = Static<typeof SettingsEntity>;
/** The part of `GET/PUT /application/settings` the storages page reads. */
export type StorageSettings = Pick<Static<typeof SettingsEntity>, 'repository_storages_weighted'>;
/** A project as an administrator sees it in `GET /projects` (with its storage). */
export type AdminProject = Project;
/** One item of `GET /<kind>_repository_storage_moves`; the container key depends on the kind. */
export type StorageMove = Static<typeof StorageMoveEntity>;
/** Body of `GET /namespaces` items. */
export type Namespace = Static<typeof NamespaceEntity>;
/** A GitLab group entity. */
export type Group = Static<typeof GroupEntity>;
/** A member of a project or group (`/members/all` adds inherited ones). */
export type Member = Static<typeof MemberEntity>;
/** A user as `/users` returns it to anyone (admins see more). */
export type UserSummary = Static<typeof UserAny>;
/** A personal access token; `token` only in the answer that created it. */
export type PersonalAccessToken = Static<typeof Token>;
/** A feature flag (`GET /features`). */
export type FeatureFlag = Static<typeof FeatureEntity>;
/** A snippet (personal or project). */
export type Snippet = Static<typeof SnippetEntity>;
/** A merge request. */
export type MergeRequest = Static<typeof MergeRequestEntity>;
/** Body of `GET/POST /-/session`. */
export type Session = Static<typeof SessionEntity>;
/** The signed-in user as the session endpoint returns it. */
export type SessionUser = Session['user'];
/** The alerts an intake (or a test alert) created or updated: their iid and title. */
export type IntakeResult = Static<typeof IntakeEntity>;
/** One key path of an integration's sample payload (`GET .../payload_fields`). */
export type PayloadField = Static<typeof PayloadFieldEntity>;
/** Body of `GET .../alerts/counts`: a count per status, `open` and `all`. */
export type AlertCounts = Static<typeof AlertCountsEntity>;
/** One configured repository storage (`GET /repository_storages`, admin only). */
export type RepositoryStorage = Static<typeof RepositoryStorageEntity>;
/** One entry of the deprecation catalog (`GET /deprecations`). */
export type Deprecation = Static<typeof DeprecationEntity>;
/** Body of `GET /deprecations`. */
export type DeprecationCatalog = Static<typeof DeprecationCatalogEntity>;
/** Body of `GET .../alerts/:iid/stats` and `GET .../errors/:error_id/stats`: buckets oldest first. */
export type Occurrences = Static<typeof OccurrencesEntity>;
/** One bucket of an occurrence series: its start (UTC) and the count in it. */
export type Bucket = Occurrences['buckets'][number];
/** One event with its stored Sentry payload and its neighbours (`GET .../errors/:error_id/events/:event_id`). */
export type ErrorEventDetail = Static<typeof ErrorEventDetailEntity>;
/** One item of `GET .../errors/stats`: an error's occurrences, for the list's sparklines. */
export type ErrorStats = Static<typeof ErrorStatsEntity>;
/** Body of `GET .../errors/counts`: a count per status and `all`. */
export type ErrorCounts = Static<typeof ErrorCountsEntity>;

export type ErrorHash = Static<typeof ErrorHashEntity>;

export type ErrorMerge = Static<typeof ErrorMergeEntity>;
/** Session counts per release and environment (`GET .../error_tracking/sessions`). */
export type ErrorSessions = Static<typeof ErrorSessionsEntity>;
export type CronMonitor = Static<typeof MonitorEntity>;
/** An error notification rule (`GET .../error_tracking/notification_rules`). */
export type ErrorNotificationRule = Static<typeof ErrorNotificationRuleEntity>;
/** A project webhook (`GET /projects/:id/hooks`). */
export type ProjectHook = Static<typeof ProjectHookEntity>;
/** One recent delivery of a hook (`GET .../hooks/:hook_id/events`). */
export type HookDelivery = Static<typeof HookDeliveryEntity>;
/** A user as other entities name one (id, username, name, avatar, state, web URL). */
export type UserRef = Static<typeof UserBasic>;
/** One rule of an escalation policy. */
export type EscalationRule = Static<typeof EscalationRuleEntity>;
/** An escalation policy (`GET .../escalation_policies`). */
export type EscalationPolicy = Static<typeof EscalationPolicyEntity>;
/** One rule's escalation of one alert (`GET .../alerts/:iid/escalations`). */
export type AlertEscalation = Static<typeof AlertEscalationEntity>;
/** An on-call schedule with its rotations (`GET .../oncall_schedules`). */
export type OncallSchedule = Static<typeof OncallScheduleEntity>;
/** A rotation of an on-call schedule. */
export type OncallRotation = Static<typeof OncallRotationEntity>;
/** One shift (`GET .../oncall_schedules/:iid/shifts`). */
export type OncallShift = Static<typeof OncallShiftEntity>;
/** An override of a schedule (`GET .../oncall_schedules/:iid/overrides`). */
export type OncallOverride = Static<typeof OncallOverrideEntity>;
/** A note of an issue (`GET .../issues/:iid/notes`): a comment, or a system note recording a change. */
export type IssueNote = Static<typeof NoteEntity>;
/** An incident timeline event (`GET .../issues/:iid/timeline_events`). */
export type TimelineEvent = Static<typeof TimelineEventEntity>;
/** A timeline event tag of a project (`GET .../incident_management/timeline_event_tags`). */
export type TimelineEventTag = Static<typeof TimelineEventTagEntity>;
/** An alert silence (`GET .../alert_management/silences`). */
export type Silence = Static<typeof SilenceEntity>;
/** One matcher of a silence, in Alertmanager's shape. */
export type SilenceMatcher = Static<typeof MatcherEntity>;

// The values the UI knows for fields the entities type as strings (labels, filters, badges): a value outside
// them is shown as it came.

/** Kinds of alert integration. */
export type IntegrationType = 'http' | 'prometheus' | 'oncall_link' | 'heartbeat';

/** The statuses an alert moves through. */
export type AlertStatus = 'triggered' | 'acknowledged' | 'resolved' | 'ignored';

/** The statuses of a tracked error. */
export type ErrorStatus = 'unresolved' | 'resolved' | 'ignored';

/** The states of a repository storage move; `initial` comes before `scheduled`. */
export type StorageMoveState =
  | 'initial'
  | 'scheduled'
  | 'started'
  | 'replicated'
  | 'finished'
  | 'failed'
  | 'cleanup failed';

/** The spec table a deprecation comes from. */
export type DeprecationSource = 'v4-to-v5' | 'removals-18.0' | 'removals-17.0' | 'alerts-errors-storage';

/** The alert statuses an escalation rule pages while the alert is in them. */
export type EscalationRuleStatus = 'acknowledged' | 'resolved';

/** The states of one rule's escalation of an alert. */
export type EscalationState = 'pending' | 'paged' | 'skipped';

/** The units of an on-call rotation's length. */
export type RotationLengthUnit = 'hours' | 'days' | 'weeks';

/** The triggers of an error notification rule. */
export type ErrorRuleTrigger = 'new' | 'regression' | 'threshold';

/** An incident's escalation status. */
export type EscalationStatus = NonNullable<Issue['escalation_status']>;

/** An incident's severity, as the API spells it. */
export type IncidentSeverity = Issue['severity'];

/** The states of a silence. */
export type SilenceState = 'active' | 'pending' | 'expired';

/** Periods the occurrence endpoints offer (`stats_period`). */
export type StatsPeriod = '24h' | '30d';

/** Body of `GET /projects/:id/alert_management/maintenance_windows/:window_id`. */
export type MaintenanceWindow = Static<typeof MaintenanceWindowEntity>;
/** Who is on call at a time, with their shifts (`GET .../oncall_schedules/:iid/on_call`). */
export type OncallUser = Static<typeof OncallUserEntity>;
