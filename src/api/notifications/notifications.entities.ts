import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

/** A project webhook (GitLab's project hook shape, with svc's `alert_events` and `error_tracking_events`). */
export const ProjectHookEntity = Type.Object({
  id: Int,
  url: Str,
  name: Str,
  description: Str,
  project_id: Int,
  push_events: Bool,
  /** Push events only for the branches it matches (null or blank: every branch). */
  push_events_branch_filter: Nullable(Str),
  /** `wildcard` (default) or `all_branches`. */
  branch_filter_strategy: Str,
  tag_push_events: Bool,
  merge_requests_events: Bool,
  /** System hooks' flag: a project hook never has it (GitLab shows it false). */
  repository_update_events: Bool,
  issues_events: Bool,
  confidential_issues_events: Bool,
  note_events: Bool,
  /** Null until set (GitLab's column has no default). */
  confidential_note_events: Nullable(Bool),
  job_events: Bool,
  pipeline_events: Bool,
  wiki_page_events: Bool,
  deployment_events: Bool,
  feature_flag_events: Bool,
  releases_events: Bool,
  milestone_events: Bool,
  emoji_events: Bool,
  resource_access_token_events: Bool,
  resource_deploy_token_events: Bool,
  vulnerability_events: Bool,
  alert_events: Bool,
  error_tracking_events: Bool,
  enable_ssl_verification: Bool,
  /**
   * GitLab's `alert_status`: `executable`, `temporarily_disabled` (until `disabled_until`) after failing a few times
   * in a row, or `disabled` after failing too often.
   */
  alert_status: Str,
  disabled_until: Nullable(Str),
  /** Why the hook was disabled (svc); null while it is executable. */
  disabled_reason: Nullable(Str),
  created_at: Str,
});

/** The fields `POST/PUT /projects/:id/hooks` take (the token is write-only, sent as X-Svc-Token). */
export const ProjectHookInput = Type.Object({
  url: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
  enable_ssl_verification: Type.Optional(Type.Boolean()),
  alert_events: Type.Optional(Type.Boolean()),
  error_tracking_events: Type.Optional(Type.Boolean()),
  push_events: Type.Optional(Type.Boolean()),
  push_events_branch_filter: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
  branch_filter_strategy: Type.Optional(Type.String()),
  tag_push_events: Type.Optional(Type.Boolean()),
  merge_requests_events: Type.Optional(Type.Boolean()),
  issues_events: Type.Optional(Type.Boolean()),
  confidential_issues_events: Type.Optional(Type.Boolean()),
  note_events: Type.Optional(Type.Boolean()),
  confidential_note_events: Type.Optional(Type.Boolean()),
  job_events: Type.Optional(Type.Boolean()),
  pipeline_events: Type.Optional(Type.Boolean()),
  wiki_page_events: Type.Optional(Type.Boolean()),
  deployment_events: Type.Optional(Type.Boolean()),
  feature_flag_events: Type.Optional(Type.Boolean()),
  releases_events: Type.Optional(Type.Boolean()),
  milestone_events: Type.Optional(Type.Boolean()),
  emoji_events: Type.Optional(Type.Boolean()),
  resource_access_token_events: Type.Optional(Type.Boolean()),
  resource_deploy_token_events: Type.Optional(Type.Boolean()),
  vulnerability_events: Type.Optional(Type.Boolean()),
});

/** One recent delivery of a hook (GitLab's hook events, with svc's state and error). */
export const HookDeliveryEntity = Type.Object({
  id: Int,
  trigger: Str,
  object_kind: Str,
  event_type: Str,
  status: Str,
  response_status: Nullable(Int),
  execution_duration: Nullable(Type.Number()),
  error: Nullable(Str),
  attempts: Int,
  request_data: Type.Unknown(),
  created_at: Str,
  finished_at: Nullable(Str),
});

/** An error notification rule (svc). */
export const ErrorNotificationRuleEntity = Type.Object({
  id: Int,
  project_id: Int,
  trigger: Str,
  threshold_count: Nullable(Int),
  threshold_minutes: Nullable(Int),
  recipient_ids: Type.Array(Int),
  webhook: Bool,
  action_interval_minutes: Int,
  created_at: Str,
  updated_at: Str,
});

export const ErrorNotificationRuleInput = Type.Object({
  trigger: Type.Optional(Type.String()),
  threshold_count: Type.Optional(Nullable(Type.Integer())),
  threshold_minutes: Type.Optional(Nullable(Type.Integer())),
  recipient_ids: Type.Optional(Type.Array(Type.Integer())),
  webhook: Type.Optional(Type.Boolean()),
  action_interval_minutes: Type.Optional(Type.Integer()),
});

/** A recorded notification e-mail, for the admin (the body is not shown). */
export const NotificationEmailEntity = Type.Object({
  id: Int,
  project_id: Int,
  user_id: Nullable(Int),
  recipient: Str,
  subject: Str,
  status: Str,
  reason: Nullable(Str),
  attempts: Int,
  created_at: Str,
  sent_at: Nullable(Str),
});
