import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

/** GitLab's event flags of an integration that svc never sends (pipelines, pushes ...): always false. */
export const GITLAB_ONLY_FLAGS = [
  'commit_events',
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'deployment_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
  'job_events',
  'vulnerability_events',
] as const;

const fields = {
  id: Int,
  title: Str,
  slug: Str,
  created_at: Str,
  updated_at: Str,
  active: Bool,
  alert_events: Bool,
  incident_events: Bool,
  /** svc's: new errors and regressions. */
  error_tracking_events: Bool,
  /** svc's: escalation pages (who is paged). */
  page_events: Bool,
  ...Object.fromEntries(GITLAB_ONLY_FLAGS.map((f) => [f, Bool])),
  comment_on_event_enabled: Bool,
  inherited: Bool,
  /** svc's, as a hook's: `executable`, `temporarily_disabled` (until `disabled_until`) or `disabled`. */
  alert_status: Str,
  disabled_until: Nullable(Str),
  disabled_reason: Nullable(Str),
} as const;

/** A project integration in a list (GitLab's `ProjectIntegrationBasic`, with svc's flags and state). */
export const ChatIntegrationBasicEntity = Type.Object(fields);

/** One project integration (GitLab's `ProjectIntegration`): its non-secret settings under `properties`. */
export const ChatIntegrationEntity = Type.Object({
  ...fields,
  properties: Type.Object({
    username: Type.Optional(Nullable(Str)),
    channel: Type.Optional(Nullable(Str)),
    room: Type.Optional(Nullable(Str)),
    thread: Type.Optional(Nullable(Int)),
    notify_only_default_branch: Bool,
    branches_to_be_notified: Str,
  }),
});

/** What `PUT /projects/:id/integrations/:slug` takes (the webhook and the token are write-only). */
export const ChatIntegrationInput = Type.Object({
  webhook: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  channel: Type.Optional(Type.String()),
  room: Type.Optional(Type.String()),
  thread: Type.Optional(Nullable(Type.Integer())),
  notify_only_default_branch: Type.Optional(Type.Boolean()),
  branches_to_be_notified: Type.Optional(Type.String()),
  active: Type.Optional(Type.Boolean()),
  alert_events: Type.Optional(Type.Boolean()),
  incident_events: Type.Optional(Type.Boolean()),
  error_tracking_events: Type.Optional(Type.Boolean()),
  page_events: Type.Optional(Type.Boolean()),
});

/** One message sent (or being sent) to a chat service (svc's delivery log). */
export const ChatDeliveryEntity = Type.Object({
  id: Int,
  event: Str,
  action: Str,
  status: Str,
  response_status: Nullable(Int),
  execution_duration: Nullable(Type.Number()),
  error: Nullable(Str),
  attempts: Int,
  /** The body the service received. */
  request_data: Type.Unknown(),
  created_at: Str,
  finished_at: Nullable(Str),
});
