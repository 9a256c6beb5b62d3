import { Type } from 'typebox';
import { OccurrencesEntity } from '../alerts/alerts.entities.js';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

export const ErrorTrackingSettingsEntity = Type.Object({
  active: Bool,
  project_name: Nullable(Str),
  sentry_external_url: Nullable(Str),
  api_url: Nullable(Str),
  integrated: Bool,
  /** Largest attachment the collector keeps, in bytes. */
  max_attachment_size: Int,
  /** Envelope items received and not kept, per item type (transaction, span, replay_event, attachment, ...). */
  dropped_items: Type.Record(Str, Int),
});

/** User feedback about an event: envelope `feedback` and `user_report` items, the error page form. */
export const ErrorFeedbackEntity = Type.Object({
  id: Int,
  event_id: Nullable(Str),
  source: Str,
  name: Str,
  email: Str,
  comments: Str,
  url: Nullable(Str),
  created_at: Str,
});

/** An event's attachment (its bytes: `GET .../attachments/:attachment_id`). */
export const ErrorAttachmentEntity = Type.Object({
  id: Int,
  event_id: Str,
  filename: Str,
  content_type: Str,
  attachment_type: Str,
  size: Int,
  created_at: Str,
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
  /** svc's own: when the error, resolved, was last seen again (a regression); null when it never was. */
  regressed_at: Nullable(Str),
  first_release: Nullable(Str),
  last_release: Nullable(Str),
  environment: Nullable(Str),
  tags: Type.Record(Str, Str),
  /** The error's page in svc's UI. */
  web_url: Str,
  /** The error's page in the external Sentry; null for the integrated backend. */
  external_url: Nullable(Str),
  /** Who is on it (integrated backend; null for none, and for an external Sentry's errors). */
  assignee: Nullable(UserBasic),
  /**
   * How it stays resolved or ignored (Sentry's statusDetails): `in_release` the named release it was resolved in,
   * `in_next_release` true with `after_release` the latest release when it was resolved; the ignore condition.
   */
  status_details: Type.Object({
    in_release: Nullable(Str),
    in_next_release: Bool,
    after_release: Nullable(Str),
    ignore_until: Nullable(Str),
    ignore_count: Nullable(Int),
    ignore_user_count: Nullable(Int),
  }),
});

/** One entry of an error's activity (Sentry's activity: a status change, an assignment, a comment, ...). */
export const ErrorActivityEntity = Type.Object({
  id: Int,
  error_id: Int,
  /** note, set_resolved, set_resolved_in_release, set_unresolved, set_ignored, unignored, set_regression, assigned, unassigned, merge, unmerge_source, unmerge_destination */
  type: Str,
  /** Who did it; null for what svc did (a regression, an ignore that lapsed). */
  user: Nullable(UserBasic),
  /** A comment's Markdown; null for other entries. */
  body: Nullable(Str),
  data: Type.Record(Str, Type.Unknown()),
  created_at: Str,
});

/**
 * A suspect commit of an error (Sentry's suspect commits, `suspectCommitType: "via stack trace"`): the commit that
 * last changed the culprit frame's line in the release of the error's latest event, in GitLab's commit shape, with
 * the merge request that merged it.
 */
export const SuspectCommitEntity = Type.Object({
  id: Str,
  short_id: Str,
  title: Str,
  message: Str,
  author_name: Str,
  author_email: Str,
  authored_date: Str,
  committed_date: Str,
  web_url: Str,
  suspect_commit_type: Str,
  /** The culprit frame's file, as a path of the repository, and its line. */
  file_path: Str,
  line: Int,
  /** The svc user the commit is by (its author's e-mail, else the merge request's author); null when unknown. */
  author: Nullable(UserBasic),
  /** The on-call schedules that have `author` on call now for the project; empty when not on call. */
  author_on_call: Type.Array(Type.Object({ iid: Int, name: Str, group_id: Nullable(Int) })),
  merge_request: Nullable(
    Type.Object({
      iid: Int,
      title: Str,
      web_url: Str,
      merged_at: Nullable(Str),
      author: Nullable(UserBasic),
      approved_by: Type.Array(UserBasic),
    }),
  ),
});

/**
 * One error (`GET .../errors/:error_id`): the list's entity and its suspect commits, only for callers who may read
 * the project's code (empty otherwise, and when none is found).
 */
export const ErrorDetailEntity = Type.Object({
  ...ErrorEntity.properties,
  suspect_commits: Type.Array(SuspectCommitEntity),
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

/** Errors of a project per status, with `all` (`GET .../errors/counts`). */
export const ErrorCountsEntity = Type.Record(Str, Int);

/** Session counts of one release in one environment (`GET .../error_tracking/sessions`). */
export const ErrorSessionsEntity = Type.Object({
  release: Str,
  environment: Str,
  started: Int,
  errored: Int,
  crashed: Int,
});

/** Events of one error over time (`GET .../errors/:error_id/stats`, and the list's sparklines). */
export const ErrorStatsEntity = Type.Object({ error_id: Int, ...OccurrencesEntity.properties });

const StackFrameFields = {
  filename: Nullable(Str),
  abs_path: Nullable(Str),
  function: Nullable(Str),
  lineNo: Nullable(Int),
  colNo: Nullable(Int),
  context: Type.Array(Type.Tuple([Int, Str])),
};

/**
 * One frame: the original position when an uploaded source map resolved it (then `minified` is the frame as the
 * SDK sent it), else the frame as sent and `minified` null.
 */
export const StackTraceEntryEntity = Type.Object({
  ...StackFrameFields,
  minified: Nullable(Type.Object(StackFrameFields)),
});

export const StackTraceEntity = Type.Object({
  issue_id: Type.Union([Int, Str]),
  date_received: Str,
  stack_trace_entries: Type.Array(StackTraceEntryEntity),
});

/**
 * One event with its stored payload (breadcrumbs, contexts, request, frames with `vars`), its neighbours, and the
 * main exception's frames as the stack trace shows them (resolved through uploaded source maps).
 */
export const ErrorEventDetailEntity = Type.Object({
  ...ErrorEventEntity.properties,
  error_id: Int,
  payload: Type.Unknown(),
  previous_event_id: Nullable(Str),
  next_event_id: Nullable(Str),
  stack_trace_entries: Type.Array(StackTraceEntryEntity),
});

/** The Connect action's answer (GitLab's UI JSON endpoint `/<project>/-/error_tracking/projects.json`). */
export const ExternalProjectsEntity = Type.Object({
  projects: Type.Array(
    Type.Object({
      id: Nullable(Str),
      name: Str,
      slug: Str,
      status: Nullable(Str),
      organization_name: Str,
      organization_slug: Str,
      organization_id: Nullable(Str),
    }),
  ),
});

/** A grouping hash of an error (`GET .../errors/:error_id/hashes`): what unmerge moves. */
export const ErrorHashEntity = Type.Object({
  hash: Str,
  grouping_version: Str,
  created_at: Str,
  events_count: Int,
});

/** The answer to a merge: the error that took the others, and the ids of those merged into it (now gone). */
export const ErrorMergeEntity = Type.Object({
  error: ErrorEntity,
  merged_error_ids: Type.Array(Int),
});
