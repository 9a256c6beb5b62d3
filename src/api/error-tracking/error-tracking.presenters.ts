import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import type {
  ClientKey,
  ErrorActivity,
  ErrorEvent,
  ErrorTrackingSettings,
  StackTrace,
  TrackedError,
} from '../../error-tracking/error-tracking.js';
import type { ExternalProject } from '../../error-tracking/error-tracking.service.js';
import { errorTitle, type Frame } from '../../error-tracking/events.js';
import type { Attachment, Feedback } from '../../error-tracking/reports.js';
import type { ResolvedFrame } from '../../error-tracking/symbolication.js';
import type { Project } from '../../projects/projects.js';
import type { SuspectCommit } from '../../suspect-commits/suspect-commits.js';
import type { Bucket } from '../../time-buckets.js';
import type { User } from '../../users/users.js';
import { occurrences } from '../alerts/alerts.presenters.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  ClientKeyEntity,
  ErrorActivityEntity,
  ErrorAttachmentEntity,
  ErrorDetailEntity,
  ErrorEntity,
  ErrorEventDetailEntity,
  ErrorEventEntity,
  ErrorFeedbackEntity,
  ErrorStatsEntity,
  ErrorTrackingSettingsEntity,
  ExternalProjectsEntity,
  StackTraceEntity,
  StackTraceEntryEntity,
  SuspectCommitEntity,
} from './error-tracking.entities.js';

/** GitLab's error tracking setting entity; `integrated` is false while the backend is unavailable (GitLab). */
export function errorTrackingSettings(
  s: ErrorTrackingSettings,
  integratedAvailable: boolean,
  droppedItems: Readonly<Record<string, number>> = {},
): Static<typeof ErrorTrackingSettingsEntity> {
  return {
    active: s.enabled,
    project_name: s.projectName,
    sentry_external_url: s.apiUrl ? s.apiUrl.replace('api/0/projects/', '') : null,
    api_url: s.apiUrl,
    integrated: s.integrated && integratedAvailable,
    max_attachment_size: s.maxAttachmentSize,
    dropped_items: { ...droppedItems },
  };
}

export function errorFeedback(f: Feedback): Static<typeof ErrorFeedbackEntity> {
  return {
    id: f.id,
    event_id: f.eventId,
    source: f.source,
    name: f.name,
    email: f.email,
    comments: f.comments,
    url: f.url,
    created_at: f.createdAt,
  };
}

export function errorAttachment(a: Attachment): Static<typeof ErrorAttachmentEntity> {
  return {
    id: a.id,
    event_id: a.eventId,
    filename: a.filename,
    content_type: a.contentType,
    attachment_type: a.attachmentType,
    size: a.size,
    created_at: a.createdAt,
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

/** An error; `assignees` holds its assignee when it has one (the caller reads a page's assignees at once). */
export function trackedError(
  e: TrackedError,
  v: Pick<View, 'externalUrl'> & { readonly assignees?: ReadonlyMap<number, User> },
): Static<typeof ErrorEntity> {
  const assignee = e.assigneeId == null ? undefined : v.assignees?.get(e.assigneeId);
  const r = e.resolution ?? null;
  const i = e.ignore ?? null;
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
    assignee: assignee ? userBasic(assignee, { externalUrl: v.externalUrl, viewer: null }) : null,
    status_details: {
      in_release: r?.type === 'in_release' ? r.release : null,
      in_next_release: r?.type === 'in_next_release',
      after_release: r?.type === 'in_next_release' ? r.release : null,
      ignore_until: i?.until ?? null,
      ignore_count: i?.count ?? null,
      ignore_user_count: i?.userCount ?? null,
    },
  };
}

/** One entry of an error's activity, with its author. */
export function errorActivity(
  a: ErrorActivity & { readonly author: User | null },
  v: Pick<View, 'externalUrl'>,
): Static<typeof ErrorActivityEntity> {
  return {
    id: a.id,
    error_id: a.errorId,
    type: a.kind,
    user: a.author ? userBasic(a.author, { externalUrl: v.externalUrl, viewer: null }) : null,
    body: a.body,
    data: { ...a.data },
    created_at: a.createdAt,
  };
}

/** One error with its suspect commits. */
export function errorDetail(
  r: { project: Project; error: TrackedError; suspects: readonly SuspectCommit[] },
  v: View & { readonly assignees?: ReadonlyMap<number, User> },
): Static<typeof ErrorDetailEntity> {
  return {
    ...trackedError(r.error, v),
    suspect_commits: r.suspects.map((s) => suspectCommit(r.project, s, v)),
  };
}

function suspectCommit(p: Project, s: SuspectCommit, v: View): Static<typeof SuspectCommitEntity> {
  const c = s.commit;
  const m = s.mergeRequest;
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    title: c.title,
    message: c.message,
    author_name: c.authorName,
    author_email: c.authorEmail,
    authored_date: c.authoredDate,
    committed_date: c.committedDate,
    web_url: `${v.externalUrl}/${p.fullPath}/-/commit/${c.id}`,
    suspect_commit_type: 'via stack trace',
    file_path: s.path,
    line: s.line,
    author: s.author ? userBasic(s.author, v) : null,
    author_on_call: s.authorOnCall.map((o) => ({ iid: o.iid, name: o.name, group_id: o.groupId })),
    merge_request: m && {
      iid: m.mr.iid,
      title: m.mr.title,
      web_url: `${v.externalUrl}/${p.fullPath}/-/merge_requests/${m.mr.iid}`,
      merged_at: m.mr.mergedAt,
      author: m.author ? userBasic(m.author, v) : null,
      approved_by: m.approvedBy.map((u) => userBasic(u, v)),
    },
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
    stack_trace_entries: t.frames.map(stackTraceEntry),
  };
}

function frameFields(f: Frame) {
  return {
    filename: f.filename,
    abs_path: f.absPath,
    function: f.function,
    lineNo: f.lineNo,
    colNo: f.colNo,
    context: f.context.map(([n, code]) => [n, code] as [number, string]),
  };
}

function stackTraceEntry(f: ResolvedFrame): Static<typeof StackTraceEntryEntity> {
  return { ...frameFields(f), minified: f.minified ? frameFields(f.minified) : null };
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
  readonly frames: readonly ResolvedFrame[];
}): Static<typeof ErrorEventDetailEntity> {
  return {
    ...errorEvent(d.event),
    error_id: d.event.errorId,
    payload: d.event.payload,
    previous_event_id: d.previous,
    next_event_id: d.next,
    stack_trace_entries: d.frames.map(stackTraceEntry),
  };
}
