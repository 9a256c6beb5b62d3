import { Type } from 'typebox';
import { OccurrencesEntity } from '../alerts/alerts.entities.js';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';

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

/** One event with its stored payload (breadcrumbs, contexts, request, frames with `vars`) and its neighbours. */
export const ErrorEventDetailEntity = Type.Object({
  ...ErrorEventEntity.properties,
  error_id: Int,
  payload: Type.Unknown(),
  previous_event_id: Nullable(Str),
  next_event_id: Nullable(Str),
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
