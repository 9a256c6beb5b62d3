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

/** The fields of a GitLab project entity that the UI reads (the API returns many more). */
export interface Project {
  readonly id: number;
  readonly name: string;
  readonly name_with_namespace: string;
  readonly path_with_namespace: string;
  readonly description: string | null;
  readonly visibility: string;
  readonly web_url: string;
  readonly last_activity_at: string | null;
  readonly monitor_access_level?: string | null;
}

/** Body of `GET /api/v4/version`. */
export interface VersionInfo {
  readonly version: string;
  readonly revision: string;
}

/** The fields of a GitLab user entity (admin view) that the admin area lists. */
export interface AdminUser {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: string;
  readonly is_admin: boolean;
}

/** Kinds of alert integration. */
export type IntegrationType = 'http' | 'prometheus' | 'oncall_link';

/** How one alert field is read from a custom payload. */
export interface PayloadMapping {
  readonly path: readonly (string | number)[];
  readonly type: string;
  readonly label?: string | null;
}

/** Body of `GET /projects/:id/alert_management/integrations/:integration_id`. */
export interface Integration {
  readonly id: number;
  readonly name: string;
  readonly type: IntegrationType;
  readonly active: boolean;
  readonly api_url: string | null;
  /** JSON text of the sample payload. */
  readonly payload_example: string;
  readonly payload_attribute_mapping: Readonly<Record<string, PayloadMapping>>;
  /** The notify URL; null for the on-call tool link. */
  readonly url: string | null;
  readonly authorization_key?: string;
  readonly created_at: string;
  readonly updated_at: string;
}

/** One key path of an integration's sample payload (`GET .../payload_fields`). */
export interface PayloadField {
  readonly path: readonly (string | number)[];
  readonly label: string;
  readonly type: string;
  readonly example: unknown;
}

/** The statuses an alert moves through. */
export type AlertStatus = 'triggered' | 'acknowledged' | 'resolved' | 'ignored';

/** Body of `GET /projects/:id/alert_management/alerts/:alert_iid`. */
export interface Alert {
  readonly iid: number;
  readonly title: string;
  readonly description: string | null;
  readonly severity: string;
  readonly status: AlertStatus;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly event_count: number;
  readonly fingerprint: string | null;
  readonly hosts: readonly string[];
  readonly service: string | null;
  readonly monitoring_tool: string | null;
  readonly environment: string | null;
  readonly runbook: string | null;
  readonly payload: unknown;
  readonly incident: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly web_url: string;
  /** GitLab's alert assignees (one at most). */
  readonly assignees: readonly {
    readonly id: number;
    readonly username: string;
    readonly name: string;
    readonly web_url: string;
  }[];
}

/** Body of `GET .../alerts/counts`. */
export type AlertCounts = Readonly<Record<AlertStatus | 'open' | 'all', number>>;

/** One note of an alert (system notes record status changes and intake). */
export interface AlertNote {
  readonly id: number;
  readonly body: string;
  readonly system: boolean;
  readonly author: { readonly id: number | null; readonly username: string; readonly name: string };
  readonly created_at: string;
}

/** Body of `GET/PUT /projects/:id/alert_management/settings`. */
export interface AlertSettings {
  readonly create_incident: boolean;
  readonly auto_close_incident: boolean;
  /** E-mail the Owners and Maintainers about each new alert (GitLab's `send_email`). */
  readonly send_email: boolean;
}

/** The fields of a GitLab issue (here: an incident) that the UI reads. */
export interface Issue {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  readonly title: string;
  readonly description: string | null;
  readonly state: string;
  readonly issue_type?: string;
  readonly labels?: readonly string[];
  readonly created_at: string;
  readonly updated_at: string;
  readonly closed_at: string | null;
  readonly web_url: string;
}

/** Body of `GET/PUT /projects/:id/error_tracking/settings`. */
export interface ErrorTrackingSettings {
  readonly active: boolean;
  readonly project_name: string | null;
  readonly sentry_external_url: string | null;
  readonly api_url: string | null;
  readonly integrated: boolean;
}

/** One client key of the integrated backend (`GET /projects/:id/error_tracking/client_keys`). */
export interface ClientKey {
  readonly id: number;
  readonly active: boolean;
  readonly public_key: string;
  readonly sentry_dsn: string;
  /** The DSN with a secret part, for clients that require a private key. */
  readonly deprecated_dsn: string;
}

/** One project of the external Sentry, as the Connect action lists it. */
export interface ExternalProject {
  readonly id: string | null;
  readonly name: string;
  readonly slug: string;
  readonly status: string | null;
  readonly organization_name: string;
  readonly organization_slug: string;
  readonly organization_id: string | null;
}

/** The statuses of a tracked error. */
export type ErrorStatus = 'unresolved' | 'resolved' | 'ignored';

/** Body of `GET /projects/:id/error_tracking/errors/:error_id` (and one item of the list). */
export interface TrackedError {
  readonly id: number;
  readonly title: string;
  readonly type: string;
  readonly message: string;
  readonly culprit: string;
  readonly platform: string;
  readonly status: ErrorStatus;
  readonly count: number;
  readonly user_count: number;
  readonly first_seen: string;
  readonly last_seen: string;
  readonly first_release: string | null;
  readonly last_release: string | null;
  readonly environment: string | null;
  readonly tags: Readonly<Record<string, string>>;
}

/** One frame of a stack trace; `context` holds `[line number, code]` pairs. */
export interface StackTraceEntry {
  readonly filename: string | null;
  readonly abs_path: string | null;
  readonly function: string | null;
  readonly lineNo: number | null;
  readonly colNo: number | null;
  readonly context: readonly (readonly [number, string])[];
}

/** Body of `GET .../errors/:error_id/stack_trace`: frames caller first, as Sentry sends them. */
export interface StackTrace {
  readonly issue_id: number | string;
  readonly date_received: string;
  readonly stack_trace_entries: readonly StackTraceEntry[];
}

/** One event of an error (`GET .../errors/:error_id/events`). */
export interface ErrorEvent {
  readonly id: number;
  readonly event_id: string;
  readonly timestamp: string;
  readonly level: string;
  readonly environment: string | null;
  readonly release: string | null;
  readonly message: string;
  readonly user_key: string | null;
  readonly user: unknown;
}

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

/** The part of `GET/PUT /application/settings` the storages page reads. */
export interface StorageSettings {
  readonly repository_storages_weighted: Readonly<Record<string, number>>;
}

/** A project as an administrator sees it in `GET /projects` (with its storage). */
export interface AdminProject extends Project {
  readonly repository_storage?: string;
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

/** One item of `GET /<kind>_repository_storage_moves`; the container key depends on the kind. */
export interface StorageMove {
  readonly id: number;
  readonly created_at: string;
  readonly state: StorageMoveState;
  readonly source_storage_name: string;
  readonly destination_storage_name: string;
  readonly error_message: string | null;
  readonly project?: {
    readonly id: number;
    readonly name_with_namespace: string;
    readonly path_with_namespace: string;
  } | null;
  readonly snippet?: { readonly id: number; readonly title: string } | null;
  readonly group?: { readonly id: number; readonly full_path: string } | null;
}

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

/** Body of `GET /namespaces` items. */
export interface Namespace {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  readonly kind: 'user' | 'group' | string;
  readonly full_path: string;
  readonly web_url: string;
}

/** The fields of a GitLab group entity that the UI reads. */
export interface Group {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  readonly full_name: string;
  readonly full_path: string;
  readonly description: string;
  readonly visibility: string;
  readonly parent_id: number | null;
  readonly web_url: string;
}

/** A member of a project or group (`/members/all` adds inherited ones). */
export interface Member {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: string;
  readonly access_level: number;
  readonly web_url: string;
}

/** A user as `/users` returns it to anyone (admins see more). */
export interface UserSummary {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: string;
  readonly web_url: string;
  readonly bio?: string;
  readonly created_at?: string;
  readonly is_admin?: boolean;
  readonly email?: string;
}

/** A personal access token; `token` only in the answer that created it. */
export interface PersonalAccessToken {
  readonly id: number;
  readonly name: string;
  readonly revoked: boolean;
  readonly active: boolean;
  readonly scopes: readonly string[];
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at?: string | null;
  readonly token?: string;
}

/** A feature flag (`GET /features`). */
export interface FeatureFlag {
  readonly name: string;
  readonly state: string;
  readonly gates: readonly { readonly key: string; readonly value: boolean | readonly string[] }[];
}

/** A snippet (personal or project). */
export interface Snippet {
  readonly id: number;
  readonly title: string;
  readonly description: string | null;
  readonly visibility: string;
  readonly file_name: string;
  readonly project_id: number | null;
  readonly web_url: string;
  readonly raw_url: string;
  readonly created_at: string;
  readonly author: { readonly username: string; readonly name: string };
}

/** The fields of a merge request the UI shows. */
export interface MergeRequest {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  readonly title: string;
  readonly description: string | null;
  readonly state: string;
  readonly source_branch: string;
  readonly target_branch: string;
  readonly created_at: string;
  readonly web_url: string;
  readonly author: { readonly username: string; readonly name: string } | null;
}
