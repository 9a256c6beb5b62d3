import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import type {
  ClientKey,
  ErrorEvent,
  ErrorTrackingSettings,
  StackTrace,
  TrackedError,
} from '../../error-tracking/error-tracking.js';
import type { ExternalProject } from '../../error-tracking/error-tracking.service.js';
import { errorTitle } from '../../error-tracking/events.js';
import type { Project } from '../../projects/projects.js';
import type { Bucket } from '../../time-buckets.js';
import { occurrences } from '../alerts/alerts.presenters.js';
import type { View } from '../common/common.presenters.js';
import type {
  ClientKeyEntity,
  ErrorEntity,
  ErrorEventDetailEntity,
  ErrorEventEntity,
  ErrorStatsEntity,
  ErrorTrackingSettingsEntity,
  ExternalProjectsEntity,
  StackTraceEntity,
} from './error-tracking.entities.js';

/** GitLab's error tracking setting entity; `integrated` is false while the backend is unavailable (GitLab). */
export function errorTrackingSettings(
  s: ErrorTrackingSettings,
  integratedAvailable: boolean,
): Static<typeof ErrorTrackingSettingsEntity> {
  return {
    active: s.enabled,
    project_name: s.projectName,
    sentry_external_url: s.apiUrl ? s.apiUrl.replace('api/0/projects/', '') : null,
    api_url: s.apiUrl,
    integrated: s.integrated && integratedAvailable,
  };
}

/** DSN: `<scheme>://<public_key>@<host>[:port]/api/v4/error_tracking/collector/<project_id>`. */
export function clientKey(
  project: Project,
  k: ClientKey,
  externalUrl: string,
): Static<typeof ClientKeyEntity> {
  const u = new URL(externalUrl);
  const path = u.pathname.replace(/\/$/, '');
  const rest = `${u.host}${path}/api/v4/error_tracking/collector/${project.id}`;
  // The secret part is derived from the public key: the collector ignores `sentry_secret`, as Sentry does.
  const secret = createHash('sha256').update(`secret:${k.publicKey}`).digest('hex').slice(0, 32);
  return {
    id: k.id,
    active: k.active,
    public_key: k.publicKey,
    sentry_dsn: `${u.protocol}//${k.publicKey}@${rest}`,
    deprecated_dsn: `${u.protocol}//${k.publicKey}:${secret}@${rest}`,
  };
}

export function trackedError(e: TrackedError, v: Pick<View, 'externalUrl'>): Static<typeof ErrorEntity> {
  return {
    id: e.id,
    title: e.title ?? errorTitle(e.type, e.message),
    type: e.type,
    message: e.message,
    culprit: e.culprit,
    platform: e.platform,
    status: e.status,
    count: e.count,
    user_count: e.userCount,
    first_seen: e.firstSeen,
    last_seen: e.lastSeen,
    regressed_at: e.regressedAt ?? null,
    first_release: e.firstRelease,
    last_release: e.lastRelease,
    environment: e.environment,
    tags: { ...e.tags },
    web_url: `${v.externalUrl}/-/ui/projects/${e.projectId}/errors/${e.id}`,
    external_url: e.externalUrl ?? null,
  };
}

export function errorEvent(e: ErrorEvent): Static<typeof ErrorEventEntity> {
  return {
    id: e.id,
    event_id: e.eventId,
    timestamp: e.occurredAt,
    level: e.level,
    environment: e.environment,
    release: e.release,
    message: e.message,
    user_key: e.userKey,
    user: e.payload.user ?? null,
  };
}

export function stackTrace(t: StackTrace): Static<typeof StackTraceEntity> {
  return {
    issue_id: t.errorId,
    date_received: t.dateReceived,
    stack_trace_entries: t.frames.map((f) => ({
      filename: f.filename,
      abs_path: f.absPath,
      function: f.function,
      lineNo: f.lineNo,
      colNo: f.colNo,
      context: f.context.map(([n, code]) => [n, code] as [number, string]),
    })),
  };
}

/** The Connect action's list of the external backend's projects. */
export function externalProjects(
  projects: readonly ExternalProject[],
): Static<typeof ExternalProjectsEntity> {
  return {
    projects: projects.map((p) => ({
      id: p.id,
      name: p.name,
      slug: p.slug,
      status: p.status,
      organization_name: p.organizationName,
      organization_slug: p.organizationSlug,
      organization_id: p.organizationId,
    })),
  };
}

/** Events of one error over time. */
export function errorStats(s: {
  readonly errorId: number;
  readonly period: string;
  readonly interval: string;
  readonly buckets: readonly Bucket[];
}): Static<typeof ErrorStatsEntity> {
  return { error_id: s.errorId, ...occurrences(s) };
}

/** One event in full: the list's fields, the stored payload, and the ids of the events before and after it. */
export function errorEventDetail(d: {
  readonly event: ErrorEvent;
  readonly previous: string | null;
  readonly next: string | null;
}): Static<typeof ErrorEventDetailEntity> {
  return {
    ...errorEvent(d.event),
    error_id: d.event.errorId,
    payload: d.event.payload,
    previous_event_id: d.previous,
    next_event_id: d.next,
  };
}
