import { type Static, type TSchema, Type } from 'typebox';

/** Response schemas of the v4 entities (GitLab's shapes). They drive serialisation and the OpenAPI document. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Str = Type.String();
const Int = Type.Integer();
const Bool = Type.Boolean();

export const UserBasic = Type.Object({
  id: Int,
  username: Str,
  name: Str,
  state: Str,
  locked: Bool,
  avatar_url: Nullable(Str),
  web_url: Str,
});

export const UserPublic = Type.Object({
  ...UserBasic.properties,
  created_at: Type.Optional(Str),
  bio: Type.Optional(Str),
  public_email: Type.Optional(Str),
});

export const UserDetail = Type.Object({
  ...UserPublic.properties,
  email: Str,
  is_admin: Bool,
  private_profile: Bool,
  can_create_group: Bool,
  can_create_project: Bool,
  two_factor_enabled: Bool,
  external: Bool,
});

export const Token = Type.Object({
  id: Int,
  name: Str,
  revoked: Bool,
  created_at: Str,
  description: Str,
  scopes: Type.Array(Str),
  user_id: Int,
  last_used_at: Nullable(Str),
  active: Bool,
  expires_at: Nullable(Str),
  token: Type.Optional(Str),
});

export const NamespaceEntity = Type.Object({
  id: Int,
  name: Str,
  path: Str,
  kind: Str,
  full_path: Str,
  parent_id: Nullable(Int),
  avatar_url: Nullable(Str),
  web_url: Str,
});

export const ProjectEntity = Type.Object({
  id: Int,
  description: Str,
  name: Str,
  name_with_namespace: Str,
  path: Str,
  path_with_namespace: Str,
  created_at: Str,
  updated_at: Str,
  default_branch: Str,
  tag_list: Type.Array(Str),
  topics: Type.Array(Str),
  ssh_url_to_repo: Str,
  http_url_to_repo: Str,
  web_url: Str,
  readme_url: Nullable(Str),
  avatar_url: Nullable(Str),
  forks_count: Int,
  star_count: Int,
  last_activity_at: Str,
  namespace: NamespaceEntity,
  visibility: Str,
  creator_id: Int,
  monitor_access_level: Str,
  repository_storage: Type.Optional(Str),
});

export const GroupEntity = Type.Object({
  id: Int,
  web_url: Str,
  name: Str,
  path: Str,
  description: Str,
  visibility: Str,
  full_name: Str,
  full_path: Str,
  parent_id: Nullable(Int),
  created_at: Str,
  avatar_url: Nullable(Str),
});

export const MemberEntity = Type.Object({
  ...UserBasic.properties,
  access_level: Int,
  created_at: Str,
  expires_at: Nullable(Str),
});

export const SnippetEntity = Type.Object({
  id: Int,
  title: Str,
  description: Str,
  visibility: Str,
  author: UserBasic,
  created_at: Str,
  updated_at: Str,
  project_id: Nullable(Int),
  web_url: Str,
  raw_url: Str,
  file_name: Str,
  files: Type.Array(Type.Object({ path: Str, raw_url: Str })),
  repository_storage: Type.Optional(Str),
});

export const SettingsEntity = Type.Object({
  id: Int,
  default_project_visibility: Str,
  default_group_visibility: Str,
  default_snippet_visibility: Str,
  user_defaults_to_private_profile: Bool,
  signup_enabled: Bool,
  repository_storages_weighted: Type.Record(Str, Int),
  throttle_incident_management_notification_enabled: Bool,
  throttle_incident_management_notification_per_period: Int,
  throttle_incident_management_notification_period_in_seconds: Int,
  incident_management_notification_max_alerts: Int,
  error_tracking_rate_limit_per_minute: Int,
  error_tracking_retention_days: Int,
  allow_local_requests_from_web_hooks_and_services: Bool,
  receive_max_input_size: Int,
  /** Present only before 17.0 (removed then; see the deprecation catalog). */
  sign_in_text: Type.Optional(Str),
  help_text: Type.Optional(Str),
});

export const AppearanceEntity = Type.Object({
  title: Str,
  description: Str,
  header_message: Str,
  footer_message: Str,
  message_background_color: Str,
  message_font_color: Str,
  email_header_and_footer_enabled: Bool,
});

export const FeatureEntity = Type.Object({
  name: Str,
  state: Str,
  gates: Type.Array(Type.Object({ key: Str, value: Type.Union([Bool, Type.Array(Str)]) })),
});

export const VersionEntity = Type.Object({
  version: Str,
  revision: Str,
  release: Str,
  enterprise: Bool,
  kas: Type.Object({
    enabled: Bool,
    externalUrl: Nullable(Str),
    externalK8sProxyUrl: Nullable(Str),
    version: Nullable(Str),
  }),
});

export const MessageEntity = Type.Object({ message: Str });

/** A user in lists: the detailed fields appear only for admins and the user itself. */
export const UserAny = Type.Object({
  ...UserBasic.properties,
  ...Type.Partial(Type.Object({ ...UserDetail.properties })).properties,
});

/** `private_profile` input: v4 accepts null (the instance default applies). */
export const PrivateProfileInput = Type.Union([Type.Boolean(), Type.Null()]);

export const IntegrationEntity = Type.Object({
  id: Int,
  name: Str,
  type: Str,
  active: Bool,
  api_url: Nullable(Str),
  payload_example: Str,
  payload_attribute_mapping: Type.Record(
    Str,
    Type.Object({ path: Type.Array(Type.Union([Str, Int])), type: Str, label: Type.Optional(Nullable(Str)) }),
  ),
  url: Nullable(Str),
  authorization_key: Type.Optional(Str),
  created_at: Str,
  updated_at: Str,
});

export const AlertEntity = Type.Object({
  iid: Int,
  title: Str,
  description: Nullable(Str),
  severity: Str,
  status: Str,
  started_at: Str,
  ended_at: Nullable(Str),
  event_count: Int,
  fingerprint: Nullable(Str),
  hosts: Type.Array(Str),
  service: Nullable(Str),
  monitoring_tool: Nullable(Str),
  environment: Nullable(Str),
  runbook: Nullable(Str),
  payload: Type.Unknown(),
  incident: Nullable(Int),
  created_at: Str,
  updated_at: Str,
  web_url: Str,
});

export const AlertNoteEntity = Type.Object({
  id: Int,
  body: Str,
  system: Bool,
  author: Type.Object({ id: Nullable(Int), username: Str, name: Str }),
  created_at: Str,
});

export const IssueEntity = Type.Object({
  id: Int,
  iid: Int,
  project_id: Int,
  title: Str,
  description: Str,
  state: Str,
  issue_type: Str,
  type: Str,
  labels: Type.Array(Str),
  created_at: Str,
  updated_at: Str,
  closed_at: Nullable(Str),
  web_url: Str,
});

export const IntakeEntity = Type.Array(Type.Object({ iid: Int, title: Str }));

export const ErrorTrackingSettingsEntity = Type.Object({
  active: Bool,
  project_name: Nullable(Str),
  sentry_external_url: Nullable(Str),
  api_url: Nullable(Str),
  integrated: Bool,
});

export const ClientKeyEntity = Type.Object({
  id: Int,
  active: Bool,
  public_key: Str,
  sentry_dsn: Str,
  /** The DSN with a secret part, for clients that refuse a DSN without a private key (spec, Errors table). */
  deprecated_dsn: Str,
});

export const ErrorEntity = Type.Object({
  id: Int,
  title: Str,
  type: Str,
  message: Str,
  culprit: Str,
  platform: Str,
  status: Str,
  count: Int,
  user_count: Int,
  first_seen: Str,
  last_seen: Str,
  first_release: Nullable(Str),
  last_release: Nullable(Str),
  environment: Nullable(Str),
  tags: Type.Record(Str, Str),
});

export const ErrorEventEntity = Type.Object({
  id: Int,
  event_id: Str,
  timestamp: Str,
  level: Str,
  environment: Nullable(Str),
  release: Nullable(Str),
  message: Str,
  user_key: Nullable(Str),
  user: Type.Unknown(),
});

export const StackTraceEntity = Type.Object({
  issue_id: Type.Union([Int, Str]),
  date_received: Str,
  stack_trace_entries: Type.Array(
    Type.Object({
      filename: Nullable(Str),
      abs_path: Nullable(Str),
      function: Nullable(Str),
      lineNo: Nullable(Int),
      colNo: Nullable(Int),
      context: Type.Array(Type.Tuple([Int, Str])),
    }),
  ),
});

export const StorageMoveEntity = Type.Object({
  id: Int,
  created_at: Str,
  state: Str,
  source_storage_name: Str,
  destination_storage_name: Str,
  error_message: Nullable(Str),
  project: Type.Optional(
    Nullable(
      Type.Object({
        id: Int,
        description: Str,
        name: Str,
        name_with_namespace: Str,
        path: Str,
        path_with_namespace: Str,
        created_at: Str,
      }),
    ),
  ),
  snippet: Type.Optional(
    Nullable(
      Type.Object({ id: Int, title: Str, description: Str, visibility: Str, created_at: Str, web_url: Str }),
    ),
  ),
  group: Type.Optional(Nullable(Type.Object({ id: Int, name: Str, full_path: Str, web_url: Str }))),
});

export const RunnerEntity = Type.Object({
  id: Int,
  description: Nullable(Str),
  ip_address: Type.Optional(Nullable(Str)),
  active: Type.Optional(Bool),
  paused: Bool,
  is_shared: Bool,
  runner_type: Str,
  name: Nullable(Str),
  online: Bool,
  status: Str,
  created_at: Str,
});

export const RunnerDetailsEntity = Type.Object({
  ...RunnerEntity.properties,
  tag_list: Type.Array(Str),
  run_untagged: Bool,
  locked: Bool,
  maximum_timeout: Nullable(Int),
  access_level: Str,
  version: Nullable(Str),
  revision: Nullable(Str),
  platform: Nullable(Str),
  architecture: Nullable(Str),
  contacted_at: Nullable(Str),
  maintenance_note: Nullable(Str),
  projects: Type.Array(
    Type.Object({ id: Int, name: Str, name_with_namespace: Str, path: Str, path_with_namespace: Str }),
  ),
  groups: Type.Array(Type.Object({ id: Int, name: Str, web_url: Str })),
});

/** GitLab's MergeRequest entity; `merged_by` and `merge_status` are v4 only (spec: removed in v5). */
const MergeRequestShape = Type.Object({
  id: Int,
  iid: Int,
  project_id: Int,
  title: Str,
  description: Str,
  state: Str,
  created_at: Str,
  updated_at: Str,
  merged_by: Type.Optional(Nullable(UserBasic)),
  merge_user: Nullable(UserBasic),
  merged_at: Nullable(Str),
  closed_by: Nullable(UserBasic),
  closed_at: Nullable(Str),
  target_branch: Str,
  source_branch: Str,
  source_project_id: Int,
  target_project_id: Int,
  author: Nullable(UserBasic),
  assignee: Type.Null(),
  assignees: Type.Array(UserBasic),
  reviewers: Type.Array(UserBasic),
  labels: Type.Array(Str),
  draft: Bool,
  work_in_progress: Bool,
  milestone: Type.Null(),
  merge_when_pipeline_succeeds: Bool,
  merge_status: Type.Optional(Str),
  detailed_merge_status: Str,
  has_conflicts: Bool,
  sha: Nullable(Str),
  merge_commit_sha: Nullable(Str),
  squash_commit_sha: Type.Null(),
  squash: Bool,
  user_notes_count: Int,
  upvotes: Int,
  downvotes: Int,
  discussion_locked: Nullable(Bool),
  should_remove_source_branch: Nullable(Bool),
  force_remove_source_branch: Nullable(Bool),
  blocking_discussions_resolved: Bool,
  reference: Str,
  references: Type.Object({ short: Str, relative: Str, full: Str }),
  web_url: Str,
  diff_refs: Nullable(Type.Object({ base_sha: Str, head_sha: Str, start_sha: Str })),
});
// Wrapped so that route typing does not instantiate the deep TypeBox type (TS2589); same JSON schema.
export const MergeRequestEntity = Type.Unsafe<Static<typeof MergeRequestShape>>(MergeRequestShape);

/** GitLab's Diff entity (`/diffs`, and `changes` of the v4 `/changes` endpoint). */
export const DiffEntity = Type.Object({
  diff: Str,
  collapsed: Bool,
  too_large: Bool,
  new_path: Str,
  old_path: Str,
  a_mode: Str,
  b_mode: Str,
  new_file: Bool,
  renamed_file: Bool,
  deleted_file: Bool,
  generated_file: Bool,
});

const MergeRequestChangesShape = Type.Object({
  ...MergeRequestShape.properties,
  changes_count: Str,
  changes: Type.Array(DiffEntity),
  overflow: Bool,
});
export const MergeRequestChangesEntity =
  Type.Unsafe<Static<typeof MergeRequestChangesShape>>(MergeRequestChangesShape);

/** `GET /projects/:id/approvals`; `approvers` and `approver_groups` are v4 only (always empty). */
export const ApprovalSettingsEntity = Type.Object({
  approvers: Type.Optional(Type.Array(UserBasic)),
  approver_groups: Type.Optional(Type.Array(Type.Object({ id: Int }))),
  approvals_before_merge: Int,
  reset_approvals_on_push: Bool,
  selective_code_owner_removals: Bool,
  disable_overriding_approvers_per_merge_request: Bool,
  merge_requests_author_approval: Bool,
  merge_requests_disable_committers_approval: Bool,
  require_password_to_approve: Bool,
  require_reauthentication_to_approve: Bool,
});

const GroupBasic = Type.Object({ id: Int, name: Str, path: Str, full_path: Str, web_url: Str });

export const ApprovalRuleEntity = Type.Object({
  id: Int,
  name: Str,
  rule_type: Str,
  report_type: Type.Null(),
  eligible_approvers: Type.Array(UserBasic),
  approvals_required: Int,
  users: Type.Array(UserBasic),
  groups: Type.Array(GroupBasic),
  contains_hidden_groups: Bool,
  protected_branches: Type.Array(Type.Object({})),
  applies_to_all_protected_branches: Bool,
});

export const ManagedLicenseEntity = Type.Object({ id: Int, name: Str, approval_status: Str });

/** GitLab's Commit entity. */
export const CommitEntity = Type.Object({
  id: Str,
  short_id: Str,
  created_at: Str,
  parent_ids: Type.Array(Str),
  title: Str,
  message: Str,
  author_name: Str,
  author_email: Str,
  authored_date: Str,
  committer_name: Str,
  committer_email: Str,
  committed_date: Str,
  trailers: Type.Object({}),
  extended_trailers: Type.Object({}),
  web_url: Str,
});
