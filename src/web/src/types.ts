import type { Static } from 'typebox';
import type {
  AlertEntity,
  AlertNoteEntity,
  AlertSettingsEntity,
  IntegrationEntity,
} from '../../api/alerts/alerts.entities.js';
import type {
  ClientKeyEntity,
  ErrorEntity,
  ErrorEventEntity,
  ErrorTrackingSettingsEntity,
  ExternalProjectsEntity,
  StackTraceEntity,
} from '../../api/error-tracking/error-tracking.entities.js';
import type { GroupEntity, NamespaceEntity } from '../../api/groups/groups.entities.js';
import type { IssueEntity } from '../../api/issues/issues.entities.js';
import type { MemberEntity } from '../../api/members/members.entities.js';
import type { MergeRequestEntity } from '../../api/merge-requests/merge-requests.entities.js';
import type { ProjectEntity } from '../../api/projects/projects.entities.js';
import type { FeatureEntity, SettingsEntity, VersionEntity } from '../../api/settings/settings.entities.js';
import type { SnippetEntity } from '../../api/snippets/snippets.entities.js';
import type { StorageMoveEntity } from '../../api/storage-moves/storage-moves.entities.js';
import type { Token, UserAny, UserDetail } from '../../api/users/users.entities.js';

// Response bodies are the server's entity schemas (type-only imports: erased from the bundle). What follows the
// aliases is what no entity describes: request-independent UI view models and the few bodies whose schema is not
// exported from an entities file.

/** A GitLab project entity (`GET /projects/:id`). */
export type Project = Static<typeof ProjectEntity>;
/** Body of `GET /api/v4/version`. */
export type VersionInfo = Static<typeof VersionEntity>;
/** A user as the admin area lists it (`GET /users` as an administrator). */
export type AdminUser = Static<typeof UserDetail>;
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
/** One project of the external Sentry, as the Connect action lists it. */
export type ExternalProject = Static<typeof ExternalProjectsEntity>['projects'][number];
/** Body of `GET /projects/:id/error_tracking/errors/:error_id` (and one item of the list). */
export type TrackedError = Static<typeof ErrorEntity>;
/** Body of `GET .../errors/:error_id/stack_trace`: frames caller first, as Sentry sends them. */
export type StackTrace = Static<typeof StackTraceEntity>;
/** One frame of a stack trace; `context` holds `[line number, code]` pairs. */
export type StackTraceEntry = StackTrace['stack_trace_entries'][number];
/** One event of an error (`GET .../errors/:error_id/events`). */
export type ErrorEvent = Static<typeof ErrorEventEntity>;
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

/** The signed-in user as the session endpoint returns it. */
export interface SessionUser {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly is_admin: boolean;
}

/** Body of `GET/POST /-/session`. */
export interface Session {
  readonly user: SessionUser;
  readonly csrf_token: string;
}

/** Kinds of alert integration. */
export type IntegrationType = 'http' | 'prometheus' | 'oncall_link';

/** One key path of an integration's sample payload (`GET .../payload_fields`). */
export interface PayloadField {
  readonly path: readonly (string | number)[];
  readonly label: string;
  readonly type: string;
  readonly example: unknown;
}

/** The statuses an alert moves through. */
export type AlertStatus = 'triggered' | 'acknowledged' | 'resolved' | 'ignored';

/** Body of `GET .../alerts/counts`. */
export type AlertCounts = Readonly<Record<AlertStatus | 'open' | 'all', number>>;

/** The statuses of a tracked error. */
export type ErrorStatus = 'unresolved' | 'resolved' | 'ignored';

/** One configured repository storage (`GET /repository_storages`, admin only). */
export interface RepositoryStorage {
  readonly name: string;
  readonly path: string;
  /** Share of new repositories, 0–100 (`repository_storages_weighted`); 0 means none. */
  readonly weight: number;
  readonly projects: number;
  readonly snippets: number;
  readonly groups: number;
}

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

/** One entry of the deprecation catalog (`GET /deprecations`). */
export interface Deprecation {
  readonly id: string;
  readonly title: string;
  readonly area: string;
  /** Release the deprecation was announced in, or null when the spec gives none. */
  readonly announced: string | null;
  /** Release of removal (`17.0`), `v5` for REST API v4-to-v5 changes, or null when none is scheduled. */
  readonly removal: string | null;
  readonly breaking: boolean;
  readonly change: string;
  readonly replacement: string | null;
  /** Whether svc itself changes behaviour at the removal (rather than listing it for information). */
  readonly enforced: boolean;
  /** A {@link DeprecationSource}; kept open so a table added on the server still renders. */
  readonly source: string;
  /** Whether the removal is in force at the instance's release. */
  readonly applies: boolean;
}

/** Body of `GET /deprecations`. */
export interface DeprecationCatalog {
  readonly instance_release: string;
  readonly deprecations: readonly Deprecation[];
}
