import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

/** Timestamps: ISO-8601 text on SQLite, timestamptz on PostgreSQL (read back as Date); written as ISO strings. */
type Timestamp = ColumnType<string | Date, string, string>;
type NullableTimestamp = ColumnType<string | Date | null, string | null, string | null>;
/** Booleans: INTEGER 0/1 on SQLite, boolean on PostgreSQL; written as 0/1 (both accept it). */
type Bool = ColumnType<number | boolean, number, number>;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  password_digest: string | null;
  admin: Bool;
  state: string;
  private_profile: Bool;
  bio: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  failed_attempts: ColumnType<number, number | undefined, number>;
  locked_at: NullableTimestamp;
  /** A bot user's project ('project') or group ('namespace'); null for people. */
  bot_source_type: ColumnType<string | null, string | null | undefined, string | null>;
  bot_source_id: ColumnType<number | null, number | null | undefined, number | null>;
  projects_limit: ColumnType<number, number | undefined, number>;
  /** The uploaded avatar's file name (src/avatars/); null: none, an identicon is shown. */
  avatar: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  scopes: string;
  expires_at: string | null;
  revoked: Bool;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  impersonation: ColumnType<number | boolean, number | undefined, number>;
}

export interface SessionsTable {
  id: Generated<number>;
  token_digest: string;
  csrf_token: string;
  user_id: number;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface NamespacesTable {
  id: Generated<number>;
  kind: string;
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
  owner_id: number | null;
  visibility: string;
  description: string;
  repository_storage: string | null;
  repository_read_only: ColumnType<number | boolean, number | undefined, number>;
  request_access_enabled: ColumnType<number | boolean, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The avatar's file name: the group's own, or a user namespace's owner's; null: none. */
  avatar: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ProjectsTable {
  id: Generated<number>;
  namespace_id: number;
  name: string;
  path: string;
  description: string;
  visibility: string;
  default_branch: string;
  monitor_enabled: Bool;
  repository_storage: string;
  repository_read_only: ColumnType<number | boolean, number | undefined, number>;
  creator_id: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_activity_at: Timestamp;
  merge_method: ColumnType<string, string | undefined, string>;
  request_access_enabled: ColumnType<number | boolean, number | undefined, number>;
  remove_source_branch_after_merge: ColumnType<number | boolean, number | undefined, number>;
  only_allow_merge_if_all_discussions_are_resolved: ColumnType<number | boolean, number | undefined, number>;
  only_allow_merge_if_pipeline_succeeds: ColumnType<number | boolean, number | undefined, number>;
  /** JSON: `*_access_level` values by feature (`issues`, `wiki`, ...); a missing key is `enabled`. */
  feature_access_levels: ColumnType<string, string | undefined, string>;
  avatar: ColumnType<string | null, string | null | undefined, string | null>;
  /** Whether the repository has no branch; null: not known yet (read from the repository when first shown). */
  empty_repo: ColumnType<number | boolean | null, number | null | undefined, number | null>;
  /** The README at the root of the default branch, if any. */
  readme_path: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MembersTable {
  id: Generated<number>;
  source_type: string;
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: Timestamp;
}

export interface SnippetsTable {
  id: Generated<number>;
  project_id: number | null;
  author_id: number;
  title: string;
  file_name: string;
  description: string;
  content: string;
  visibility: string;
  repository_storage: string;
  repository_read_only: ColumnType<number | boolean, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApplicationSettingsTable {
  key: string;
  value: string;
}

export interface FeatureGatesTable {
  id: Generated<number>;
  name: string;
  /** `null` for the instance-wide boolean gate; otherwise a project actor. */
  project_id: number | null;
  enabled: Bool;
  created_at: Timestamp;
}

export interface InternalIdsTable {
  project_id: number;
  usage: string;
  last_value: number;
}

export interface AlertIntegrationsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  type: string;
  active: Bool;
  endpoint_identifier: string;
  token_encrypted: string;
  api_url: string | null;
  payload_example: string;
  payload_attribute_mapping: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** JSON `[{code, at}]`: what intake noticed about its payloads (migration 0040); null: nothing. */
  warnings: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The heartbeat of an alert integration (migration 0042). */
export interface AlertHeartbeatsTable {
  integration_id: number;
  project_id: number;
  interval_seconds: number;
  grace_seconds: number;
  alertname: string | null;
  state: string;
  last_seen_at: Timestamp | null;
  deadline_at: Timestamp | null;
  updated_at: Timestamp;
}

/** A Sentry cron monitor of a project (migration 0042). */
export interface CronMonitorsTable {
  id: Generated<number>;
  project_id: number;
  slug: string;
  schedule_type: string | null;
  schedule: string | null;
  schedule_unit: string | null;
  checkin_margin: number | null;
  max_runtime: number | null;
  timezone: string | null;
  status: string;
  last_checkin_at: Timestamp | null;
  deadline_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One check-in of a cron monitor (migration 0042). */
export interface CronCheckinsTable {
  id: Generated<number>;
  monitor_id: number;
  check_in_id: string;
  status: string;
  environment: string | null;
  duration: number | null;
  timeout_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AlertsTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  integration_id: number | null;
  title: string;
  description: string | null;
  severity: string;
  status: string;
  started_at: Timestamp;
  ended_at: NullableTimestamp;
  events: number;
  fingerprint: string | null;
  hosts: string;
  service: string | null;
  monitoring_tool: string | null;
  environment: string | null;
  runbook: string | null;
  payload: string;
  incident_iid: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AlertNotesTable {
  id: Generated<number>;
  alert_id: number;
  author_id: number | null;
  body: string;
  created_at: Timestamp;
  system: Generated<number | boolean>;
}

/** Comments and system notes of merge requests (and, later, issues): GitLab's `notes`. */
export interface NotesTable {
  id: Generated<number>;
  noteable_type: string;
  noteable_id: number;
  project_id: number;
  author_id: number | null;
  body: string;
  system: Generated<number | boolean>;
  internal: Generated<number | boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AlertEventsTable {
  id: Generated<number>;
  alert_id: number;
  occurred_at: Timestamp;
}

/** Alerts per project and status, kept by triggers on `alerts` (migration 0020): the status tabs' counts. */
export interface AlertStatusCountsTable {
  project_id: number;
  status: string;
  n: number;
}

export interface AlertAssigneesTable {
  alert_id: number;
  user_id: number;
  created_at: Timestamp;
}

export interface ProjectAlertSettingsTable {
  project_id: number;
  create_incident: Bool;
  auto_close_incident: Bool;
  send_email: ColumnType<number | boolean, number | undefined, number>;
  auto_resolve_alerts: ColumnType<number | boolean, number | undefined, number>;
}

export interface IssuesTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  description: string;
  issue_type: string;
  state: string;
  author_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  closed_at: NullableTimestamp;
  severity: ColumnType<string, string | undefined, string>;
  escalation_status: string | null;
  closed_by_id: number | null;
  /** The escalation policy an incident was paged with; null when never paged. */
  escalation_policy_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface IssueAssigneesTable {
  issue_id: number;
  user_id: number;
}

export interface IssueLabelsTable {
  issue_id: number;
  name: string;
}

/** The incident timeline (GitLab's `incident_management_timeline_events`). */
export interface IncidentTimelineEventsTable {
  id: Generated<number>;
  project_id: number;
  issue_id: number;
  author_id: number | null;
  updated_by_id: number | null;
  promoted_from_note_id: number | null;
  note: string;
  action: string;
  occurred_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IncidentTimelineEventTagsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  lower_name: string;
  created_at: Timestamp;
}

export interface IncidentTimelineEventTagLinksTable {
  timeline_event_id: number;
  tag_id: number;
}

export interface ErrorTrackingSettingsTable {
  project_id: number;
  enabled: Bool;
  integrated: Bool;
  api_url: string | null;
  token_encrypted: string | null;
  project_name: string | null;
  organization_name: string | null;
  updated_at: Timestamp;
  /** Largest attachment kept, in bytes (migration 0046). */
  max_attachment_size: Generated<number>;
}

export interface ErrorTrackingClientKeysTable {
  id: Generated<number>;
  project_id: number;
  active: Bool;
  public_key: string;
  created_at: Timestamp;
}

export interface ErrorTrackingErrorsTable {
  id: Generated<number>;
  project_id: number;
  fingerprint: string;
  type: string;
  message: string;
  culprit: string;
  platform: string;
  status: string;
  events_count: number;
  users_count: number;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  first_release: string | null;
  last_release: string | null;
  environment: string | null;
  tags: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  regressed_at: ColumnType<string | Date | null, string | null | undefined, string | null>;
  /** The grouping version the error was created with (grouping.ts); set by migration 0043. */
  grouping_version: Generated<string>;
  /** Triage (migration 0045): who is on it, how it was resolved, until when it is ignored. */
  assignee_id: ColumnType<number | null, number | null | undefined, number | null>;
  resolution_type: ColumnType<string | null, string | null | undefined, string | null>;
  resolved_in_release: ColumnType<string | null, string | null | undefined, string | null>;
  resolution_release_seen_at: ColumnType<string | Date | null, string | null | undefined, string | null>;
  ignore_until: ColumnType<string | Date | null, string | null | undefined, string | null>;
  ignore_count: ColumnType<number | null, number | null | undefined, number | null>;
  ignore_events_base: ColumnType<number | null, number | null | undefined, number | null>;
  ignore_user_count: ColumnType<number | null, number | null | undefined, number | null>;
  ignore_users_base: ColumnType<number | null, number | null | undefined, number | null>;
}

/** What happened to an error, and its comments (migration 0045). */
export interface ErrorTrackingActivitiesTable {
  id: Generated<number>;
  project_id: number;
  error_id: number;
  kind: string;
  author_id: number | null;
  body: string | null;
  data: Generated<string>;
  created_at: Timestamp;
}

/** Grouping hashes and the error each one leads to (migration 0043). */
export interface ErrorTrackingErrorHashesTable {
  id: Generated<number>;
  project_id: number;
  hash: string;
  error_id: number;
  grouping_version: string;
  created_at: Timestamp;
}

export interface ErrorTrackingEventsTable {
  id: Generated<number>;
  error_id: number;
  /** Set by migration 0009 (null only in rows written before it); unique with event_id. */
  project_id: number | null;
  event_id: string;
  level: string;
  environment: string | null;
  release: string | null;
  message: string;
  user_key: string | null;
  occurred_at: Timestamp;
  payload: string;
  created_at: Timestamp;
  /** The grouping hash that brought the event to its error (migration 0043; unmerge moves events by it). */
  grouping_hash: string | null;
}

/** User feedback: envelope `feedback` and `user_report` items, the error page form (migration 0046). */
export interface ErrorTrackingFeedbackTable {
  id: Generated<number>;
  project_id: number;
  /** The event the feedback is about (32 hex digits), when it names one. */
  event_id: string | null;
  source: string;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  created_at: Timestamp;
}

/** An event's attachment, its bytes as base64 (migration 0046). */
export interface ErrorTrackingAttachmentsTable {
  id: Generated<number>;
  project_id: number;
  event_id: string;
  filename: string;
  content_type: string;
  attachment_type: string;
  size: number;
  content: string;
  created_at: Timestamp;
}

/** Envelope items svc does not keep, counted per type (migration 0046; bigint reads as a string on pg). */
export interface ErrorTrackingDroppedItemsTable {
  project_id: number;
  item_type: string;
  count: ColumnType<string | number, number, number>;
}

export interface ErrorTrackingSessionsTable {
  project_id: number;
  release: string;
  environment: string;
  started: number;
  errored: number;
  crashed: number;
}

/** A fixed rate-limit window shared by every process (epoch milliseconds; bigint reads as a string on pg). */
export interface RateLimitWindowsTable {
  key: string;
  ends_at: ColumnType<number | string, number, number>;
  count: number;
}

/** A push in progress on some process, kept alive by its heartbeat (epoch milliseconds). */
export interface GitPushesTable {
  id: Generated<number>;
  container: string;
  owner: string;
  heartbeat_at: ColumnType<number | string, number, number>;
}

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** The lane whose workers run the job (src/jobs/queue.ts: `JobLane`). */
  lane: Generated<string>;
  payload: string;
  unique_key: string | null;
  state: string;
  run_at: Timestamp;
  attempts: number;
  locked_until: NullableTimestamp;
  locked_by: string | null;
  last_error: string | null;
  created_at: Timestamp;
}

export interface RepositoryStorageMovesTable {
  id: Generated<number>;
  container_type: string;
  container_id: number;
  state: string;
  source_storage_name: string;
  destination_storage_name: string;
  error_message: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GeoSitesTable {
  id: Generated<number>;
  name: string;
  url: string;
  internal_url: string | null;
  primary: Bool;
  enabled: Bool;
  files_max_capacity: number;
  repos_max_capacity: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GeoResyncsTable {
  site_id: number;
  container_type: string;
  container_id: number;
  reason: string;
  created_at: Timestamp;
}

export interface AuditEventsTable {
  id: Generated<number>;
  author_id: number | null;
  entity_type: string;
  entity_id: number;
  event_name: string;
  details: string;
  ip_address: string | null;
  created_at: Timestamp;
}

export interface AuditEventDestinationsTable {
  id: Generated<number>;
  destination_url: string;
  verification_token: string;
  created_at: Timestamp;
}

export interface RunnersTable {
  id: Generated<number>;
  runner_type: string;
  group_id: number | null;
  description: string | null;
  name: string | null;
  token_digest: string;
  active: Bool;
  locked: Bool;
  run_untagged: Bool;
  tag_list: string;
  access_level: string;
  maximum_timeout: number | null;
  maintenance_note: string | null;
  contacted_at: NullableTimestamp;
  ip_address: string | null;
  creator_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RunnerProjectsTable {
  runner_id: number;
  project_id: number;
}

export interface RunnerRegistrationTokensTable {
  scope: string;
  /** The SHA-256 digest (hex) of the registration token, never the token (migration 0008). */
  token: string;
}

export interface MergeRequestsTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  description: string;
  source_branch: string;
  target_branch: string;
  state: string;
  author_id: number | null;
  merge_user_id: number | null;
  merged_at: NullableTimestamp;
  closed_at: NullableTimestamp;
  closed_by_id: number | null;
  merge_commit_sha: string | null;
  force_remove_source_branch: Bool | null;
  should_remove_source_branch: Bool | null;
  diff_base_sha: string | null;
  diff_head_sha: string | null;
  approval_rules_overwritten: ColumnType<number | boolean, number | undefined, number>;
  /** Why the last rebase failed (GitLab's `merge_error`); null after a rebase that succeeded. */
  merge_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** The rebase job in progress (GitLab's `rebase_jid`); null when none runs. */
  rebase_jid: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Old full paths of projects and namespaces after a transfer or rename (GitLab's `redirect_routes`). */
export interface RedirectRoutesTable {
  id: Generated<number>;
  source_type: string;
  source_id: number;
  path: string;
  created_at: Timestamp;
}

export interface ApprovalRulesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  approvals_required: number;
  user_ids: string;
  group_ids: string;
  created_at: Timestamp;
}

export interface ProjectApprovalSettingsTable {
  project_id: number;
  approvals_before_merge: number;
  reset_approvals_on_push: Bool;
  disable_overriding_approvers_per_merge_request: Bool;
  merge_requests_author_approval: Bool;
  merge_requests_disable_committers_approval: Bool;
  require_password_to_approve: Bool;
}

export interface ManagedLicensesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  approval_status: string;
}

/** The Kysely database type: one entry per table. */
export interface MergeRequestApprovalsTable {
  id: Generated<number>;
  merge_request_id: number;
  user_id: number;
  created_at: Timestamp;
}

export interface MergeRequestDiffsTable {
  id: Generated<number>;
  merge_request_id: number;
  number: number;
  base_commit_sha: string;
  start_commit_sha: string;
  head_commit_sha: string;
  real_size: number;
  patch_id_sha: string | null;
  created_at: Timestamp;
}

export interface MergeRequestApprovalRulesTable {
  id: Generated<number>;
  merge_request_id: number;
  name: string;
  approvals_required: number;
  user_ids: string;
  group_ids: string;
  approval_project_rule_id: number | null;
  created_at: Timestamp;
}

export interface NotificationEmailsTable {
  id: Generated<number>;
  project_id: number;
  user_id: number | null;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string;
  dedupe_key: string;
  status: string;
  reason: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
}

export interface ProjectHooksTable {
  id: Generated<number>;
  project_id: number;
  url: string;
  name: Generated<string>;
  description: Generated<string>;
  token_encrypted: string | null;
  enable_ssl_verification: Bool;
  alert_events: Bool;
  error_tracking_events: Bool;
  push_events: Bool;
  tag_push_events: Bool;
  merge_requests_events: Bool;
  issues_events: Bool;
  confidential_issues_events: Bool;
  note_events: Bool;
  confidential_note_events: ColumnType<number | boolean | null, number | null, number | null>;
  job_events: Bool;
  pipeline_events: Bool;
  wiki_page_events: Bool;
  deployment_events: Bool;
  releases_events: Bool;
  feature_flag_events: Bool;
  milestone_events: Bool;
  emoji_events: Bool;
  resource_access_token_events: Bool;
  resource_deploy_token_events: Bool;
  vulnerability_events: Bool;
  push_events_branch_filter: string | null;
  branch_filter_strategy: string;
  failures: Generated<number>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  disabled_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface HookDeliveriesTable {
  id: Generated<number>;
  hook_id: number;
  object_kind: string;
  event_type: string;
  payload: string;
  dedupe_key: string;
  status: string;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface ErrorNotificationRulesTable {
  id: Generated<number>;
  project_id: number;
  trigger: string;
  threshold_count: number | null;
  threshold_minutes: number | null;
  recipient_ids: string;
  webhook: Bool;
  action_interval_minutes: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ErrorRuleFiringsTable {
  rule_id: number;
  error_id: number;
  event_key: string;
  fired_at: Timestamp;
}

export interface OncallSchedulesTable {
  id: Generated<number>;
  /** The owner: a project or a group (exactly one; migration 0039). */
  project_id: number | null;
  group_id: ColumnType<number | null, number | null | undefined, number | null>;
  iid: number;
  name: string;
  description: string | null;
  timezone: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OncallRotationsTable {
  id: Generated<number>;
  schedule_id: number;
  name: string;
  starts_at: Timestamp;
  ends_at: NullableTimestamp;
  length: number;
  length_unit: string;
  active_period_start: string | null;
  active_period_end: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OncallParticipantsTable {
  id: Generated<number>;
  rotation_id: number;
  user_id: number;
  position: number;
}

export interface OncallOverridesTable {
  id: Generated<number>;
  schedule_id: number;
  user_id: number;
  starts_at: Timestamp;
  ends_at: Timestamp;
  created_by_id: number | null;
  created_at: Timestamp;
}

export interface AlertSilencesTable {
  id: Generated<number>;
  project_id: number;
  matchers: string;
  starts_at: Timestamp;
  ends_at: Timestamp;
  created_by_id: number | null;
  comment: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MaintenanceWindowsTable {
  id: Generated<number>;
  project_id: number;
  /** Null: the whole project. */
  integration_id: number | null;
  starts_at: Timestamp;
  ends_at: Timestamp;
  created_by_id: number | null;
  comment: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EscalationPoliciesTable {
  id: Generated<number>;
  /** The owner: a project or a group (exactly one; migration 0039). */
  project_id: number | null;
  group_id: ColumnType<number | null, number | null | undefined, number | null>;
  name: string;
  description: string | null;
  /** How many more times the rules run while the alert stays triggered (0..9). */
  repeat: Generated<number>;
  /** Minutes an acknowledgement holds before the alert is triggered again; null: for ever. */
  ack_timeout_minutes: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EscalationRulesTable {
  id: Generated<number>;
  policy_id: number;
  position: number;
  elapsed_time_seconds: number;
  status: string;
  oncall_schedule_id: number | null;
  user_id: number | null;
  chat_integration_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ChatIntegrationsTable {
  id: Generated<number>;
  project_id: number;
  slug: string;
  active: Bool;
  secret_encrypted: string;
  properties: string;
  alert_events: Bool;
  incident_events: Bool;
  error_tracking_events: Bool;
  page_events: Bool;
  failures: Generated<number>;
  disabled_until: NullableTimestamp;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatDeliveriesTable {
  id: Generated<number>;
  integration_id: number;
  event: string;
  action: string;
  payload: string;
  dedupe_key: string;
  status: string;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
}

/** One-use acknowledge links of pages: the token's SHA-256 digest, for one alert or incident, until it expires. */
export interface AcknowledgeTokensTable {
  id: Generated<number>;
  token_digest: string;
  project_id: number;
  target_type: string;
  target_id: number;
  user_id: number | null;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

/** A project's Sentry release (migration 0044): what `sentry-cli releases` makes. */
export interface SentryReleasesTable {
  id: Generated<number>;
  project_id: number;
  version: string;
  url: string | null;
  created_at: Timestamp;
  date_released: NullableTimestamp;
}

export interface SentryReleaseCommitsTable {
  id: Generated<number>;
  release_id: number;
  /** 0 is the newest commit (the release's head). */
  position: number;
  repository: string;
  sha: string;
  message: string | null;
  author_name: string | null;
  author_email: string | null;
  timestamp: NullableTimestamp;
}

/** An artifact bundle `sentry-cli sourcemaps upload` assembled for a project. */
export interface SentryArtifactBundlesTable {
  id: Generated<number>;
  project_id: number;
  /** SHA-1 of the whole bundle, as the CLI names it. */
  checksum: string;
  /** The bundle's own debug id (its manifest's attribute). */
  bundle_id: string | null;
  release: string | null;
  dist: string | null;
  file_count: number;
  created_at: Timestamp;
}

/** One file of an artifact bundle: a minified source or a source map, with its text. */
export interface SentryArtifactFilesTable {
  id: Generated<number>;
  bundle_id: number;
  project_id: number;
  /** `~/path` or a full URL, as the CLI names it. */
  url: string;
  /** `minified_source`, `source_map`, `source`. */
  file_type: string;
  debug_id: string | null;
  /** The `sourcemap` header of a minified file: its map's reference. */
  sourcemap: string | null;
  content: string;
}

/** An uploaded chunk awaiting assembly (base64), per uploading user. */
export interface SentryUploadChunksTable {
  user_id: number;
  checksum: string;
  content: string;
  created_at: Timestamp;
}

export interface Database {
  acknowledge_tokens: AcknowledgeTokensTable;
  notification_emails: NotificationEmailsTable;
  project_hooks: ProjectHooksTable;
  hook_deliveries: HookDeliveriesTable;
  oncall_schedules: OncallSchedulesTable;
  oncall_rotations: OncallRotationsTable;
  oncall_participants: OncallParticipantsTable;
  oncall_overrides: OncallOverridesTable;
  alert_silences: AlertSilencesTable;
  maintenance_windows: MaintenanceWindowsTable;
  escalation_policies: EscalationPoliciesTable;
  escalation_rules: EscalationRulesTable;
  chat_integrations: ChatIntegrationsTable;
  chat_deliveries: ChatDeliveriesTable;
  error_notification_rules: ErrorNotificationRulesTable;
  error_rule_firings: ErrorRuleFiringsTable;
  merge_request_approvals: MergeRequestApprovalsTable;
  merge_request_diffs: MergeRequestDiffsTable;
  merge_request_approval_rules: MergeRequestApprovalRulesTable;
  notes: NotesTable;
  users: UsersTable;
  personal_access_tokens: PersonalAccessTokensTable;
  sessions: SessionsTable;
  namespaces: NamespacesTable;
  projects: ProjectsTable;
  members: MembersTable;
  snippets: SnippetsTable;
  application_settings: ApplicationSettingsTable;
  feature_gates: FeatureGatesTable;
  internal_ids: InternalIdsTable;
  alert_integrations: AlertIntegrationsTable;
  alerts: AlertsTable;
  alert_notes: AlertNotesTable;
  alert_events: AlertEventsTable;
  alert_assignees: AlertAssigneesTable;
  alert_status_counts: AlertStatusCountsTable;
  project_alert_settings: ProjectAlertSettingsTable;
  issues: IssuesTable;
  issue_assignees: IssueAssigneesTable;
  issue_labels: IssueLabelsTable;
  incident_timeline_events: IncidentTimelineEventsTable;
  incident_timeline_event_tags: IncidentTimelineEventTagsTable;
  incident_timeline_event_tag_links: IncidentTimelineEventTagLinksTable;
  error_tracking_settings: ErrorTrackingSettingsTable;
  error_tracking_client_keys: ErrorTrackingClientKeysTable;
  error_tracking_errors: ErrorTrackingErrorsTable;
  error_tracking_events: ErrorTrackingEventsTable;
  error_tracking_error_hashes: ErrorTrackingErrorHashesTable;
  error_tracking_activities: ErrorTrackingActivitiesTable;
  error_tracking_sessions: ErrorTrackingSessionsTable;
  error_tracking_feedback: ErrorTrackingFeedbackTable;
  error_tracking_attachments: ErrorTrackingAttachmentsTable;
  error_tracking_dropped_items: ErrorTrackingDroppedItemsTable;
  jobs: JobsTable;
  repository_storage_moves: RepositoryStorageMovesTable;
  geo_sites: GeoSitesTable;
  geo_resyncs: GeoResyncsTable;
  audit_events: AuditEventsTable;
  audit_event_destinations: AuditEventDestinationsTable;
  runners: RunnersTable;
  runner_projects: RunnerProjectsTable;
  runner_registration_tokens: RunnerRegistrationTokensTable;
  merge_requests: MergeRequestsTable;
  approval_rules: ApprovalRulesTable;
  project_approval_settings: ProjectApprovalSettingsTable;
  managed_licenses: ManagedLicensesTable;
  rate_limit_windows: RateLimitWindowsTable;
  git_pushes: GitPushesTable;
  redirect_routes: RedirectRoutesTable;
  alert_heartbeats: AlertHeartbeatsTable;
  cron_monitors: CronMonitorsTable;
  cron_checkins: CronCheckinsTable;
  sentry_releases: SentryReleasesTable;
  sentry_release_commits: SentryReleaseCommitsTable;
  sentry_artifact_bundles: SentryArtifactBundlesTable;
  sentry_artifact_files: SentryArtifactFilesTable;
  sentry_upload_chunks: SentryUploadChunksTable;
}

/** Where a query runs: the database or one of its transactions (`Db` is an open database, db/db.ts). */
export type Queryable = Kysely<Database> | Transaction<Database>;
