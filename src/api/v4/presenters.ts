import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Alert, AlertNote } from '../../alerts/alerts.js';
import type { IntegrationView } from '../../alerts/integrations.service.js';
import type {
  ClientKey,
  ErrorEvent,
  ErrorTrackingSettings,
  StackTrace,
  TrackedError,
} from '../../error-tracking/error-tracking.js';
import { errorTitle } from '../../error-tracking/events.js';
import type { Namespace } from '../../groups/namespaces.js';
import type { Issue } from '../../issues/issues.js';
import type { Member } from '../../members/members.js';
import type { ApprovalRule, ApprovalSettings, ManagedLicense } from '../../merge-requests/approvals.js';
import type { FileDiff } from '../../merge-requests/diff.js';
import type { Commit, MergeRequestView } from '../../merge-requests/merge-requests.service.js';
import type { Project } from '../../projects/projects.js';
import { isOnline, legacyStatus, type Runner } from '../../runners/runners.js';
import type { FeatureGates } from '../../settings/settings.repository.js';
import type { ApplicationSettings } from '../../settings/settings.service.js';
import type { Snippet } from '../../snippets/snippets.js';
import type { StorageMove } from '../../storage-moves/storage-moves.js';
import type { PersonalAccessToken, User } from '../../users/users.js';
import type * as E from './entities.js';

/** What a presenter needs besides the model: the base URL and who is looking. */
export interface View {
  readonly externalUrl: string;
  readonly viewer: User | null;
}

const isAdmin = (v: View) => v.viewer?.admin === true;

/** UserBasic: the short user object embedded in other entities. */
export function userBasic(u: User, v: View): Static<typeof E.UserBasic> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    locked: false,
    avatar_url: null,
    web_url: `${v.externalUrl}/${u.username}`,
  };
}

/** User: public profile; a private profile shows only the basic fields to others (GitLab). */
export function userPublic(u: User, v: View): Static<typeof E.UserPublic> {
  const basic = userBasic(u, v);
  if (u.privateProfile && v.viewer?.id !== u.id && !isAdmin(v)) return basic;
  return { ...basic, created_at: u.createdAt, bio: u.bio, public_email: '' };
}

/** The user as seen by itself (`GET /user`) or by an admin. */
export function userDetail(u: User, v: View): Static<typeof E.UserDetail> {
  return {
    ...userBasic(u, v),
    created_at: u.createdAt,
    bio: u.bio,
    public_email: '',
    email: u.email,
    is_admin: u.admin,
    private_profile: u.privateProfile,
    can_create_group: true,
    can_create_project: true,
    two_factor_enabled: false,
    external: false,
  };
}

/** Users in lists: admins and the user itself get the detailed entity. */
export function user(u: User, v: View): Static<typeof E.UserPublic> | Static<typeof E.UserDetail> {
  return isAdmin(v) || v.viewer?.id === u.id ? userDetail(u, v) : userPublic(u, v);
}

export function token(t: PersonalAccessToken & { token?: string }, now: Date): Static<typeof E.Token> {
  const expired = t.expiresAt !== null && now.toISOString().slice(0, 10) >= t.expiresAt;
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: t.createdAt,
    description: '',
    scopes: [...t.scopes],
    user_id: t.userId,
    last_used_at: t.lastUsedAt,
    active: !t.revoked && !expired,
    expires_at: t.expiresAt,
    ...(t.token !== undefined && { token: t.token }),
  };
}

export function namespace(n: Namespace, v: View): Static<typeof E.NamespaceEntity> {
  return {
    id: n.id,
    name: n.name,
    path: n.path,
    kind: n.kind,
    full_path: n.fullPath,
    parent_id: n.parentId,
    avatar_url: null,
    web_url: n.kind === 'group' ? `${v.externalUrl}/groups/${n.fullPath}` : `${v.externalUrl}/${n.fullPath}`,
  };
}

export function project(p: Project, v: View): Static<typeof E.ProjectEntity> {
  const web = `${v.externalUrl}/${p.fullPath}`;
  const host = new URL(v.externalUrl).hostname;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${p.namespace.name} / ${p.name}`,
    path: p.path,
    path_with_namespace: p.fullPath,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    default_branch: p.defaultBranch,
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${host}:${p.fullPath}.git`,
    http_url_to_repo: `${web}.git`,
    web_url: web,
    readme_url: null,
    avatar_url: null,
    forks_count: 0,
    star_count: 0,
    last_activity_at: p.lastActivityAt,
    namespace: namespace(p.namespace, v),
    visibility: p.visibility,
    creator_id: p.creatorId,
    monitor_access_level: p.monitorEnabled ? 'enabled' : 'disabled',
    // Spec: repository_storage is visible to administrators only.
    ...(isAdmin(v) && { repository_storage: p.repositoryStorage }),
  };
}

export function group(g: Namespace, v: View): Static<typeof E.GroupEntity> {
  return {
    id: g.id,
    web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    full_name: g.fullPath.split('/').join(' / '),
    full_path: g.fullPath,
    parent_id: g.parentId,
    created_at: g.createdAt,
    avatar_url: null,
  };
}

export function member(m: Member, v: View): Static<typeof E.MemberEntity> {
  return {
    ...userBasic(m.user, v),
    access_level: m.accessLevel,
    created_at: m.createdAt,
    expires_at: m.expiresAt,
  };
}

export function snippet(s: Snippet, v: View): Static<typeof E.SnippetEntity> {
  const web =
    s.projectId === null
      ? `${v.externalUrl}/-/snippets/${s.id}`
      : `${v.externalUrl}/-/project_snippets/${s.id}`;
  const raw =
    s.projectId === null
      ? `${v.externalUrl}/api/v4/snippets/${s.id}/raw`
      : `${v.externalUrl}/api/v4/projects/${s.projectId}/snippets/${s.id}/raw`;
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    visibility: s.visibility,
    author: userBasic(s.author, v),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    project_id: s.projectId,
    web_url: web,
    raw_url: raw,
    file_name: s.fileName,
    files: [{ path: s.fileName, raw_url: raw }],
    ...(isAdmin(v) && { repository_storage: s.repositoryStorage }),
  };
}

/** Application settings; `sign_in_text` and `help_text` only while they exist (removed in 17.0). */
export function settings(s: ApplicationSettings, removedTexts: boolean): Static<typeof E.SettingsEntity> {
  const { sign_in_text, help_text, ...rest } = s;
  return { id: 1, ...rest, ...(!removedTexts && { sign_in_text, help_text }) };
}

export function feature(f: FeatureGates): Static<typeof E.FeatureEntity> {
  const gates: Static<typeof E.FeatureEntity>['gates'] = [{ key: 'boolean', value: f.enabled === true }];
  if (f.projectIds.length > 0)
    gates.push({ key: 'actors', value: f.projectIds.map((id) => `Project:${id}`) });
  const state = f.enabled === true ? 'on' : f.projectIds.length > 0 ? 'conditional' : 'off';
  return { name: f.name, state, gates };
}

/** The notify URL of an integration (none for the on-call link, which only links out). */
export function integrationUrl(project: Project, i: IntegrationView, v: View): string | null {
  if (i.type === 'oncall_link') return null;
  if (i.isDefaultPrometheus) return `${v.externalUrl}/${project.fullPath}/prometheus/alerts/notify.json`;
  const slug =
    i.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'http-endpoint';
  return `${v.externalUrl}/${project.fullPath}/alerts/notify/${slug}/${i.endpointIdentifier}.json`;
}

export function integration(
  project: Project,
  i: IntegrationView,
  v: View,
  withKey: boolean,
): Static<typeof E.IntegrationEntity> {
  return {
    id: i.id,
    name: i.name,
    type: i.type,
    active: i.effectiveActive,
    api_url: i.apiUrl,
    payload_example: JSON.stringify(i.payloadExample, null, 2),
    payload_attribute_mapping: i.payloadAttributeMapping as Static<
      typeof E.IntegrationEntity
    >['payload_attribute_mapping'],
    url: integrationUrl(project, i, v),
    ...(withKey && { authorization_key: i.authorizationKey }),
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
}

export function alert(a: Alert, v: View): Static<typeof E.AlertEntity> {
  return {
    iid: a.iid,
    title: a.title,
    description: a.description,
    severity: a.severity,
    status: a.status,
    started_at: a.startedAt,
    ended_at: a.endedAt,
    event_count: a.events,
    fingerprint: a.fingerprint,
    hosts: [...a.hosts],
    service: a.service,
    monitoring_tool: a.monitoringTool,
    environment: a.environment,
    runbook: a.runbook,
    payload: a.payload,
    incident: a.incidentIid,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    web_url: `${v.externalUrl}/-/ui/projects/${a.projectId}/alerts/${a.iid}`,
  };
}

export function alertNote(n: AlertNote, author: User | null): Static<typeof E.AlertNoteEntity> {
  return {
    id: n.id,
    body: n.body,
    system: true,
    author: author
      ? { id: author.id, username: author.username, name: author.name }
      : { id: null, username: 'alert-bot', name: 'Alert Bot' },
    created_at: n.createdAt,
  };
}

export function issue(i: Issue, v: View): Static<typeof E.IssueEntity> {
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.projectId,
    title: i.title,
    description: i.description,
    state: i.state,
    issue_type: i.issueType,
    type: i.issueType.toUpperCase(),
    labels: [],
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    closed_at: i.closedAt,
    web_url: `${v.externalUrl}/-/ui/projects/${i.projectId}/issues/${i.iid}`,
  };
}

/** GitLab's error tracking setting entity; `integrated` is false while the backend is unavailable (GitLab). */
export function errorTrackingSettings(
  s: ErrorTrackingSettings,
  integratedAvailable: boolean,
): Static<typeof E.ErrorTrackingSettingsEntity> {
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
): Static<typeof E.ClientKeyEntity> {
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

export function trackedError(e: TrackedError): Static<typeof E.ErrorEntity> {
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
    first_release: e.firstRelease,
    last_release: e.lastRelease,
    environment: e.environment,
    tags: { ...e.tags },
  };
}

export function errorEvent(e: ErrorEvent): Static<typeof E.ErrorEventEntity> {
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

export function stackTrace(t: StackTrace): Static<typeof E.StackTraceEntity> {
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

/** A storage move with its container's summary (GitLab: ProjectIdentity, snippet or group). */
export function storageMove(
  m: StorageMove,
  container: Project | Snippet | Namespace | null,
  v: View,
): Static<typeof E.StorageMoveEntity> {
  const base = {
    id: m.id,
    created_at: m.createdAt,
    state: m.state,
    source_storage_name: m.sourceStorageName,
    destination_storage_name: m.destinationStorageName,
    error_message: m.errorMessage,
  };
  if (m.containerType === 'project') {
    const p = container as Project | null;
    return {
      ...base,
      project: p && {
        id: p.id,
        description: p.description,
        name: p.name,
        name_with_namespace: `${p.namespace.name} / ${p.name}`,
        path: p.path,
        path_with_namespace: p.fullPath,
        created_at: p.createdAt,
      },
    };
  }
  if (m.containerType === 'snippet') {
    const s = container as Snippet | null;
    const shown = s && snippet(s, v);
    return {
      ...base,
      snippet: shown && {
        id: shown.id,
        title: shown.title,
        description: shown.description,
        visibility: shown.visibility,
        created_at: shown.created_at,
        web_url: shown.web_url,
      },
    };
  }
  const g = container as Namespace | null;
  return {
    ...base,
    group: g && {
      id: g.id,
      name: g.name,
      full_path: g.fullPath,
      web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    },
  };
}

/** What runner presenters need besides the runner: the time, and whether ip_address is blanked (17.0). */
export interface RunnerView {
  readonly now: Date;
  readonly blankIpAddress: boolean;
}

/** v4 Runner: `active` and `paused`, the legacy status (with `paused`), `ip_address` ("" from 17.0, spec). */
export function runner(r: Runner, v: RunnerView): Static<typeof E.RunnerEntity> {
  return {
    id: r.id,
    description: r.description,
    ip_address: v.blankIpAddress ? '' : r.ipAddress,
    active: r.active,
    paused: !r.active,
    is_shared: r.runnerType === 'instance_type',
    runner_type: r.runnerType,
    name: r.name,
    online: isOnline(r, v.now),
    status: legacyStatus(r, v.now),
    created_at: r.createdAt,
  };
}

export function runnerDetails(
  r: Runner,
  v: RunnerView,
  projects: readonly Project[],
  groups: readonly Namespace[],
  view: View,
): Static<typeof E.RunnerDetailsEntity> {
  return {
    ...runner(r, v),
    tag_list: [...r.tagList],
    run_untagged: r.runUntagged,
    locked: r.locked,
    maximum_timeout: r.maximumTimeout,
    access_level: r.accessLevel,
    version: null,
    revision: null,
    platform: null,
    architecture: null,
    contacted_at: r.contactedAt,
    maintenance_note: r.maintenanceNote,
    projects: projects.map((p) => ({
      id: p.id,
      name: p.name,
      name_with_namespace: `${p.namespace.name} / ${p.name}`,
      path: p.path,
      path_with_namespace: p.fullPath,
    })),
    groups: groups.map((g) => ({
      id: g.id,
      name: g.name,
      web_url: `${view.externalUrl}/groups/${g.fullPath}`,
    })),
  };
}

/** v4 MergeRequest: both `merged_by` and `merge_user`, both `merge_status` and `detailed_merge_status`. */
export function mergeRequest(m: MergeRequestView, v: View): Static<typeof E.MergeRequestEntity> {
  const user = (u: User | null) => (u ? userBasic(u, v) : null);
  const p = m.project;
  return {
    id: m.id,
    iid: m.iid,
    project_id: m.projectId,
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    merged_by: user(m.mergeUser),
    merge_user: user(m.mergeUser),
    merged_at: m.mergedAt,
    closed_by: user(m.closedBy),
    closed_at: m.closedAt,
    target_branch: m.targetBranch,
    source_branch: m.sourceBranch,
    source_project_id: m.projectId,
    target_project_id: m.projectId,
    author: user(m.author),
    assignee: null,
    assignees: [],
    reviewers: [],
    labels: [],
    draft: m.draft,
    work_in_progress: m.draft,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: m.mergeStatus,
    detailed_merge_status: m.detailedMergeStatus,
    has_conflicts: m.mergeStatus === 'cannot_be_merged',
    sha: m.diffRefs?.headSha ?? null,
    merge_commit_sha: m.mergeCommitSha,
    squash_commit_sha: null,
    squash: false,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    discussion_locked: null,
    should_remove_source_branch: m.shouldRemoveSourceBranch,
    force_remove_source_branch: m.forceRemoveSourceBranch,
    blocking_discussions_resolved: true,
    reference: `!${m.iid}`,
    references: { short: `!${m.iid}`, relative: `!${m.iid}`, full: `${p.fullPath}!${m.iid}` },
    web_url: `${v.externalUrl}/${p.fullPath}/-/merge_requests/${m.iid}`,
    diff_refs: m.diffRefs && {
      base_sha: m.diffRefs.baseSha,
      head_sha: m.diffRefs.headSha,
      start_sha: m.diffRefs.startSha,
    },
  };
}

/** GitLab's Diff entity; svc never collapses or truncates a diff. */
export function diff(d: FileDiff): Static<typeof E.DiffEntity> {
  return { ...d, collapsed: false, too_large: false };
}

/** The v4-only `/changes` response: the merge request with its diffs (deprecated, gone in v5). */
export function mergeRequestChanges(
  m: MergeRequestView,
  diffs: readonly FileDiff[],
  v: View,
): Static<typeof E.MergeRequestChangesEntity> {
  return {
    ...mergeRequest(m, v),
    changes_count: String(diffs.length),
    changes: diffs.map(diff),
    overflow: false,
  };
}

/** v4 approval configuration: `approvers` and `approver_groups` always empty (GitLab, deprecated since 12.3). */
export function approvalSettings(s: ApprovalSettings): Static<typeof E.ApprovalSettingsEntity> {
  return {
    approvers: [],
    approver_groups: [],
    ...s,
    selective_code_owner_removals: false,
    require_reauthentication_to_approve: s.require_password_to_approve,
  };
}

export function approvalRule(r: ApprovalRule, v: View): Static<typeof E.ApprovalRuleEntity> {
  const users = r.users.map((u) => userBasic(u, v));
  return {
    id: r.id,
    name: r.name,
    rule_type: 'regular',
    report_type: null,
    eligible_approvers: users,
    approvals_required: r.approvalsRequired,
    users,
    groups: r.groups.map((g) => ({
      id: g.id,
      name: g.name,
      path: g.path,
      full_path: g.fullPath,
      web_url: `${v.externalUrl}/groups/${g.fullPath}`,
    })),
    contains_hidden_groups: false,
    protected_branches: [],
    applies_to_all_protected_branches: true,
  };
}

export function managedLicense(l: ManagedLicense): Static<typeof E.ManagedLicenseEntity> {
  return { id: l.id, name: l.name, approval_status: l.approval_status };
}

export function commit(c: Commit, p: Project, v: View): Static<typeof E.CommitEntity> {
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    created_at: c.committedDate,
    parent_ids: [...c.parentIds],
    title: c.title,
    message: c.message,
    author_name: c.authorName,
    author_email: c.authorEmail,
    authored_date: c.authoredDate,
    committer_name: c.committerName,
    committer_email: c.committerEmail,
    committed_date: c.committedDate,
    trailers: {},
    extended_trailers: {},
    web_url: `${v.externalUrl}/${p.fullPath}/-/commit/${c.id}`,
  };
}
