import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { type TSchema, Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { Alert, AlertNote } from '../alerts/alerts.js';
import type { IntegrationView } from '../alerts/integrations.service.js';
import type { AuditEvent } from '../audit/audit.js';
import type { ClientKey, ErrorEvent, StackTrace, TrackedError } from '../error-tracking/error-tracking.js';
import type { PolicyView, RuleView } from '../escalation/escalation.service.js';
import type { GeoSite } from '../geo/geo.js';
import type { FileDiff } from '../git/diff.js';
import type { BranchView, FileView } from '../git/repository.service.js';
import type { IssueView, TimelineEventView } from '../issues/issues.js';
import type { ApprovalState } from '../merge-requests/merge-request-approvals.service.js';
import type { MergeRequestVersion } from '../merge-requests/merge-requests.js';
import type { Commit, MergeRequestView } from '../merge-requests/merge-requests.service.js';
import type { ApprovalRule, ApprovalSettings } from '../merge-requests/project-approval-rules.js';
import type { Namespace } from '../namespaces/namespaces.js';
import {
  type ErrorRule,
  HOOK_EVENT_FLAGS,
  type HookDelivery,
  type NotificationEmail,
  type ProjectHook,
} from '../notifications/notifications.js';
import type { RotationView, ScheduleView, ShiftView } from '../oncall/oncall.service.js';
import { ACCESS_LEVEL_FEATURES, type Project } from '../projects/projects.js';
import type { Runner } from '../runners/runners.js';
import { GITLAB_DEFAULTS } from '../settings/application-settings.js';
import type { ApplicationSettings } from '../settings/settings.service.js';
import type { Snippet } from '../snippets/snippets.js';
import type { StorageMove } from '../storage-moves/storage-moves.js';
import type { User } from '../users/users.js';
import * as v4Presenters from './v4/presenters.js';
import { API_VERSIONS, type ApiVersion } from './version.js';

/**
 * Contract: every presenter's output, in v4 and v5, is valid against the response schema its routes declare,
 * with no property the schema does not name (the serialiser would drop such a field silently, so only this
 * test sees a presenter leak one, such as a field v5 removed).
 */

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** A copy of the schema in which every object allows only its named properties. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

function check(schema: TSchema, value: unknown): string[] {
  const validate = ajv.compile(closed(schema) as object);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

const at = '2026-03-01T10:00:00.000Z';
const admin: User = {
  id: 1,
  username: 'root',
  name: 'Administrator',
  email: 'root@example.com',
  admin: true,
  state: 'active',
  privateProfile: false,
  botSource: null,
  projectsLimit: 100000,
  bio: '',
  createdAt: at,
  updatedAt: at,
  avatar: null,
};
const alice: User = {
  ...admin,
  id: 2,
  username: 'alice',
  name: 'Alice',
  email: 'a@example.com',
  admin: false,
};
const hidden: User = { ...alice, id: 3, username: 'hidden', privateProfile: true };
const group: Namespace = {
  id: 10,
  kind: 'group',
  name: 'Platform',
  path: 'platform',
  fullPath: 'platform',
  parentId: null,
  ownerId: null,
  visibility: 'internal',
  description: 'The platform team',
  repositoryStorage: 'default',
  repositoryReadOnly: false,
  requestAccessEnabled: true,
  createdAt: at,
  avatar: null,
};
const project: Project = {
  id: 20,
  namespace: group,
  name: 'API',
  path: 'api',
  fullPath: 'platform/api',
  description: '',
  visibility: 'private',
  defaultBranch: 'main',
  monitorEnabled: true,
  repositoryStorage: 'default',
  repositoryReadOnly: false,
  creatorId: 1,
  createdAt: at,
  updatedAt: at,
  lastActivityAt: at,
  settings: {
    mergeMethod: 'ff',
    requestAccessEnabled: false,
    removeSourceBranchAfterMerge: true,
    onlyAllowMergeIfAllDiscussionsAreResolved: true,
    onlyAllowMergeIfPipelineSucceeds: false,
    accessLevels: Object.fromEntries(
      ACCESS_LEVEL_FEATURES.map((f) => [f, f === 'wiki' ? 'disabled' : 'enabled']),
    ) as Project['settings']['accessLevels'],
  },
  approvalsBeforeMerge: 2,
  avatar: null,
  emptyRepo: false,
  readmePath: 'README.md',
};
const snippet: Snippet = {
  id: 30,
  projectId: null,
  author: alice,
  title: 'notes',
  fileName: 'notes.md',
  description: '',
  content: '# notes',
  visibility: 'public',
  repositoryStorage: 'default',
  repositoryReadOnly: false,
  createdAt: at,
  updatedAt: at,
};
const settings: ApplicationSettings = {
  ...GITLAB_DEFAULTS,
  restricted_visibility_levels: ['public'],
  default_projects_limit: 10,
  throttle_authenticated_api_enabled: true,
  rate_limiting_response_text: 'Slow down',
  signup_enabled: true,
  repository_storages_weighted: { default: 100 },
  incident_management_notification_max_alerts: 100,
  error_tracking_rate_limit_per_minute: 0,
  error_tracking_retention_days: 90,
  sign_in_text: 'Welcome',
  help_text: 'Ask the admins',
};
const integration: IntegrationView = {
  id: 40,
  projectId: project.id,
  name: 'Production alerts',
  type: 'http',
  active: true,
  endpointIdentifier: 'abc123',
  apiUrl: null,
  payloadExample: { title: 'CPU' },
  payloadAttributeMapping: { title: { path: ['title'], type: 'string', label: 'Title' } },
  createdAt: at,
  updatedAt: at,
  authorizationKey: 'secret-key',
  effectiveActive: true,
  isDefaultPrometheus: false,
  recordedWarnings: [{ code: 'alertmanager_payload', at }],
  warnings: [{ code: 'alertmanager_payload', message: 'Looks like Alertmanager', at }],
  heartbeat: null,
};
const alert: Alert = {
  id: 50,
  projectId: project.id,
  iid: 1,
  integrationId: null,
  title: 'CPU high',
  description: null,
  severity: 'critical',
  status: 'triggered',
  startedAt: at,
  endedAt: null,
  events: 2,
  fingerprint: 'f1',
  hosts: ['db-1'],
  service: null,
  monitoringTool: 'Prometheus',
  environment: null,
  runbook: null,
  payload: { labels: { severity: 'critical' } },
  incidentIid: null,
  createdAt: at,
  updatedAt: at,
  assignees: [],
};
const note: AlertNote = { id: 60, authorId: null, body: 'Alert triggered', createdAt: at, system: true };
const buckets = [
  { start: '2024-05-01T00:00:00.000Z', count: 0 },
  { start: '2024-05-01T01:00:00.000Z', count: 3 },
];
const hook: ProjectHook = {
  id: 3,
  projectId: 1,
  url: 'https://hooks.example.com/svc',
  name: 'pager',
  description: '',
  hasToken: true,
  enableSslVerification: true,
  alertEvents: true,
  errorTrackingEvents: false,
  events: { ...HOOK_EVENT_FLAGS, merge_requests_events: true },
  confidentialNoteEvents: null,
  pushEventsBranchFilter: 'release/*',
  branchFilterStrategy: 'wildcard',
  failures: 0,
  disabledReason: null,
  disabledAt: null,
  disabledUntil: null,
  createdAt: at,
  updatedAt: at,
};
const delivery: HookDelivery = {
  id: 9,
  hookId: 3,
  objectKind: 'alert',
  eventType: 'new',
  payload: { object_kind: 'alert' },
  status: 'success',
  responseStatus: 200,
  durationMs: 12,
  error: null,
  attempts: 1,
  createdAt: at,
  finishedAt: at,
};
const rule: ErrorRule = {
  id: 4,
  projectId: 1,
  trigger: 'new',
  thresholdCount: null,
  thresholdMinutes: null,
  recipientIds: [2],
  webhook: true,
  actionIntervalMinutes: 30,
  createdAt: at,
  updatedAt: at,
};
const email: NotificationEmail = {
  id: 5,
  projectId: 1,
  userId: 2,
  recipient: 'alice@example.com',
  subject: 'group/project | Alert triggered: CPU',
  text: 'text',
  html: '<p>html</p>',
  status: 'sent',
  reason: null,
  attempts: 1,
  createdAt: at,
  sentAt: at,
};
const issue: IssueView = {
  id: 70,
  projectId: project.id,
  iid: 1,
  title: 'Incident: CPU high',
  description: '',
  issueType: 'incident',
  state: 'opened',
  authorId: null,
  createdAt: at,
  updatedAt: at,
  closedAt: null,
  closedById: null,
  severity: 'high',
  escalationStatus: 'triggered',
  assigneeIds: [alice.id],
  labels: ['database', 'sev 2'],
  escalationPolicyId: 5,
  escalationPolicy: { id: 5, name: 'Night shift' },
  projectPath: 'acme/shop',
  author: null,
  assignees: [alice],
  closedBy: null,
  userNotesCount: 2,
};
const timelineEvent: TimelineEventView = {
  id: 71,
  projectId: project.id,
  issueId: issue.id,
  incidentIid: issue.iid,
  authorId: alice.id,
  updatedById: null,
  promotedFromNoteId: 5,
  note: 'Database failover started',
  action: 'comment',
  occurredAt: at,
  createdAt: at,
  updatedAt: at,
  tags: [{ id: 1, projectId: project.id, name: 'Start time' }],
  author: alice,
  updatedBy: null,
};
const trackedError: TrackedError = {
  id: 80,
  projectId: project.id,
  type: 'TypeError',
  message: 'x is undefined',
  culprit: 'app.js',
  platform: 'javascript',
  status: 'unresolved',
  count: 3,
  userCount: 1,
  firstSeen: at,
  lastSeen: at,
  firstRelease: null,
  lastRelease: '1.2.0',
  environment: 'production',
  tags: { browser: 'Firefox' },
};
const errorEvent: ErrorEvent = {
  id: 81,
  errorId: 80,
  eventId: '0123456789abcdef0123456789abcdef',
  level: 'error',
  environment: null,
  release: null,
  message: 'x is undefined',
  userKey: null,
  occurredAt: at,
  payload: { user: { id: '7' } },
};
const stackTrace: StackTrace = {
  errorId: 80,
  dateReceived: at,
  frames: [
    {
      filename: 'app.js',
      absPath: '/srv/app.js',
      function: 'main',
      module: null,
      lineNo: 10,
      colNo: 4,
      inApp: true,
      context: [[10, 'x.y()']],
    },
    {
      filename: 'src/app.ts',
      absPath: 'https://example.com/src/app.ts',
      function: 'render',
      module: null,
      lineNo: 42,
      colNo: 7,
      inApp: true,
      context: [[42, 'render();']],
      minified: {
        filename: 'app.min.js',
        absPath: 'https://example.com/app.min.js',
        function: 'r',
        module: null,
        lineNo: 1,
        colNo: 1234,
        inApp: true,
        context: [],
      },
    },
  ],
};
const clientKey: ClientKey = {
  id: 90,
  projectId: project.id,
  active: true,
  publicKey: 'abcdef',
  createdAt: at,
};
const move = (containerType: StorageMove['containerType']): StorageMove => ({
  id: 100,
  containerType,
  containerId: 1,
  state: 'finished',
  sourceStorageName: 'default',
  destinationStorageName: 'second',
  errorMessage: null,
  createdAt: at,
  updatedAt: at,
});
const runner = (active: boolean, contactedAt: string | null): Runner => ({
  id: 110,
  runnerType: 'project_type',
  groupId: null,
  projectIds: [project.id],
  description: 'linux runner',
  name: null,
  active,
  locked: false,
  runUntagged: true,
  tagList: ['linux'],
  accessLevel: 'not_protected',
  maximumTimeout: null,
  maintenanceNote: null,
  contactedAt,
  ipAddress: '10.0.0.5',
  creatorId: 1,
  createdAt: at,
});
const mergeRequest = (state: MergeRequestView['state']): MergeRequestView => ({
  id: 120,
  projectId: project.id,
  iid: 1,
  title: 'Add the cache',
  description: '',
  sourceBranch: 'cache',
  targetBranch: 'main',
  state,
  draft: false,
  mergeError: null,
  rebaseInProgress: false,
  authorId: 2,
  mergeUserId: state === 'merged' ? 1 : null,
  mergedAt: state === 'merged' ? at : null,
  closedAt: null,
  closedById: null,
  mergeCommitSha: state === 'merged' ? 'c'.repeat(40) : null,
  forceRemoveSourceBranch: null,
  shouldRemoveSourceBranch: null,
  mergedDiff: null,
  createdAt: at,
  updatedAt: at,
  project,
  detailedMergeStatus: state === 'opened' ? 'mergeable' : 'not_open',
  mergeStatus: state === 'opened' ? 'can_be_merged' : 'unchecked',
  diffRefs:
    state === 'closed'
      ? null
      : { baseSha: 'a'.repeat(40), startSha: 'a'.repeat(40), headSha: 'b'.repeat(40) },
  author: alice,
  mergeUser: state === 'merged' ? admin : null,
  closedBy: null,
});
const fileDiff: FileDiff = {
  old_path: 'a.txt',
  new_path: 'a.txt',
  a_mode: '100644',
  b_mode: '100644',
  new_file: false,
  renamed_file: false,
  deleted_file: false,
  generated_file: false,
  diff: '@@ -1 +1 @@\n-a\n+b\n',
};
const version: MergeRequestVersion = {
  id: 7,
  mergeRequestId: 3,
  number: 1,
  baseSha: 'b'.repeat(40),
  startSha: 'b'.repeat(40),
  headSha: 'c'.repeat(40),
  realSize: 1,
  patchIdSha: 'd'.repeat(40),
  createdAt: '2026-01-01T00:00:00.000Z',
};
const commit: Commit = {
  id: 'c'.repeat(40),
  parentIds: ['a'.repeat(40)],
  title: 'Add the cache',
  message: 'Add the cache\n',
  authorName: 'Alice',
  authorEmail: 'a@example.com',
  authoredDate: at,
  committerName: 'Alice',
  committerEmail: 'a@example.com',
  committedDate: at,
};
const fileView: FileView = {
  blob: { id: 'b'.repeat(40), path: 'docs/a.md', name: 'a.md', mode: '100644', size: 2 },
  content: Buffer.from('a\n'),
  contentSha256: 'e'.repeat(64),
  ref: 'main',
  commitId: commit.id,
  lastCommitId: commit.id,
};
const branchView: BranchView = {
  name: 'main',
  commit,
  merged: false,
  protected: true,
  developersCanPush: false,
  developersCanMerge: false,
  canPush: false,
  default: true,
};
const approvalSettings: ApprovalSettings = {
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
};
const geoSite: GeoSite = {
  id: 130,
  name: 'secondary',
  url: 'https://geo.example/',
  internalUrl: null,
  primary: false,
  enabled: true,
  filesMaxCapacity: 10,
  reposMaxCapacity: 25,
  createdAt: at,
};
const auditEvent: AuditEvent = {
  id: 140,
  authorId: 1,
  entityType: 'Project',
  entityId: project.id,
  eventName: 'repository_download_operation',
  details: { custom_message: 'Repository Download Started' },
  ipAddress: '127.0.0.1',
  createdAt: at,
};

const url = 'https://svc.example';
const asAdmin = { externalUrl: url, viewer: admin };
const asAlice = { externalUrl: url, viewer: alice };
const anonymous = { externalUrl: url, viewer: null };
const escalationRule: RuleView = {
  id: 4,
  position: 0,
  elapsedTimeSeconds: 300,
  status: 'acknowledged',
  schedule: { id: 2, iid: 1, name: 'Primary' },
  userId: null,
  user: null,
};
const escalationPolicy: PolicyView = {
  id: 3,
  projectId: 1,
  groupId: null,
  name: 'Page the team',
  description: 'Night and day',
  rules: [escalationRule, { ...escalationRule, id: 5, schedule: null, userId: alice.id, user: alice }],
  repeat: 2,
  ackTimeoutMinutes: 30,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
const now = new Date('2026-03-01T11:00:00.000Z');

/** Each presenter's outputs (every shape it can take) and the schema its routes declare for them. */
function cases(api: ApiVersion): Record<string, { schema: TSchema; outputs: unknown[] }> {
  const P = api.present;
  const E = api.entities;
  const runners = [runner(true, null), runner(true, at), runner(false, '2026-01-01T00:00:00.000Z')];
  const runnerViews = [
    { now, blankIpAddress: false },
    { now, blankIpAddress: true },
  ];
  return {
    userBasic: { schema: E.UserBasic, outputs: [P.userBasic(alice, anonymous)] },
    userPublic: {
      schema: E.UserPublic,
      outputs: [P.userPublic(alice, anonymous), P.userPublic(hidden, asAlice), P.userPublic(hidden, asAdmin)],
    },
    userDetail: { schema: E.UserDetail, outputs: [P.userDetail(alice, asAlice)] },
    user: {
      schema: E.UserAny,
      outputs: [P.user(alice, asAdmin), P.user(alice, asAlice), P.user(hidden, anonymous)],
    },
    token: {
      schema: E.Token,
      outputs: [
        P.token(
          {
            id: 1,
            userId: 2,
            name: 't',
            scopes: ['api'],
            expiresAt: null,
            revoked: false,
            impersonation: false,
            createdAt: at,
            lastUsedAt: null,
          },
          now,
        ),
        P.token(
          {
            id: 2,
            userId: 2,
            name: 'new',
            scopes: ['read_api'],
            expiresAt: '2026-02-01',
            revoked: false,
            impersonation: false,
            createdAt: at,
            lastUsedAt: at,
            token: 'glpat-x',
          },
          now,
        ),
      ],
    },
    namespace: {
      schema: E.NamespaceEntity,
      outputs: [
        P.namespace(group, anonymous),
        P.namespace({ ...group, kind: 'user', fullPath: 'alice' }, anonymous),
      ],
    },
    group: { schema: E.GroupEntity, outputs: [P.group(group, anonymous)] },
    publicGroup: { schema: E.PublicGroupEntity, outputs: [P.publicGroup(group, anonymous)] },
    projectStorage: { schema: E.ProjectStorageEntity, outputs: [P.projectStorage(project)] },
    license: {
      schema: E.LicenseEntity,
      outputs: [P.license('premium', at, 3), P.license('ultimate', at, 0)],
    },
    impersonationToken: {
      schema: E.ImpersonationToken,
      outputs: [
        P.impersonationToken(
          {
            id: 3,
            userId: 2,
            name: 'support',
            scopes: ['api'],
            expiresAt: null,
            revoked: false,
            impersonation: true,
            createdAt: at,
            lastUsedAt: null,
            token: 'svcpat-x',
          },
          now,
        ),
      ],
    },
    resourceAccessToken: {
      schema: E.ResourceAccessToken,
      outputs: [
        P.resourceAccessToken(
          {
            id: 4,
            userId: 5,
            name: 'ci',
            scopes: ['read_api'],
            expiresAt: '2026-04-01',
            revoked: false,
            impersonation: false,
            createdAt: at,
            lastUsedAt: null,
            accessLevel: 30,
            resourceType: 'project',
            resourceId: project.id,
          },
          now,
        ),
        P.resourceAccessToken(
          {
            id: 5,
            userId: 6,
            name: 'ci',
            scopes: ['api'],
            expiresAt: null,
            revoked: false,
            impersonation: false,
            createdAt: at,
            lastUsedAt: null,
            accessLevel: 50,
            resourceType: 'group',
            resourceId: group.id,
            token: 'svcpat-y',
          },
          now,
        ),
      ],
    },
    project: { schema: E.ProjectEntity, outputs: [P.project(project, asAlice), P.project(project, asAdmin)] },
    projectWithAccess: {
      schema: E.ProjectEntity,
      outputs: [
        P.projectWithAccess(project, asAlice, { project: 40, group: null }),
        P.projectWithAccess(project, asAdmin, { project: null, group: 50 }),
      ],
    },
    member: {
      schema: E.MemberEntity,
      outputs: [
        P.member({ user: alice, accessLevel: 40, expiresAt: null, createdAt: at, createdById: 1 }, asAlice),
      ],
    },
    snippet: {
      schema: E.SnippetEntity,
      outputs: [P.snippet(snippet, anonymous), P.snippet({ ...snippet, projectId: project.id }, asAdmin)],
    },
    settings: {
      schema: E.SettingsEntity,
      outputs: [P.settings(settings, false), P.settings(settings, true)],
    },
    feature: {
      schema: E.FeatureEntity,
      outputs: [
        P.feature({ name: 'f', enabled: true, projectIds: [], disabledProjectIds: [], createdAt: at }),
        P.feature({
          name: 'g',
          enabled: null,
          projectIds: [project.id],
          disabledProjectIds: [],
          createdAt: at,
        }),
      ],
    },
    integration: {
      schema: E.IntegrationEntity,
      outputs: [
        P.integration(project, integration, asAlice, true),
        P.integration(
          project,
          { ...integration, type: 'prometheus', isDefaultPrometheus: true },
          asAlice,
          false,
        ),
      ],
    },
    alert: {
      schema: E.AlertEntity,
      outputs: [
        P.alert(alert, anonymous),
        P.alert({ ...alert, assignees: [alice], incidentIid: 3 }, asAlice),
      ],
    },
    alertNote: {
      schema: E.AlertNoteEntity,
      outputs: [
        P.alertNote(note, null),
        P.alertNote({ ...note, authorId: 2 }, alice),
        P.alertNote({ ...note, authorId: 2, body: 'Looking into it', system: false }, alice),
      ],
    },
    occurrences: {
      schema: E.OccurrencesEntity,
      outputs: [P.occurrences({ period: '24h', interval: 'hour', buckets })],
    },
    errorStats: {
      schema: E.ErrorStatsEntity,
      outputs: [P.errorStats({ errorId: 7, period: '30d', interval: 'day', buckets })],
    },
    errorEventDetail: {
      schema: E.ErrorEventDetailEntity,
      outputs: [
        P.errorEventDetail({ event: errorEvent, previous: null, next: null, frames: [] }),
        P.errorEventDetail({
          event: errorEvent,
          previous: 'a'.repeat(32),
          next: 'b'.repeat(32),
          frames: stackTrace.frames,
        }),
      ],
    },
    alertSettings: {
      schema: E.AlertSettingsEntity,
      outputs: [
        P.alertSettings({
          createIncident: true,
          autoCloseIncident: false,
          sendEmail: true,
          autoResolveAlerts: true,
        }),
      ],
    },
    issue: {
      schema: E.IssueEntity,
      outputs: [
        P.issue(issue, anonymous),
        P.issue(
          {
            ...issue,
            issueType: 'issue',
            severity: 'unknown',
            escalationStatus: null,
            state: 'closed',
            closedAt: at,
            closedById: alice.id,
            closedBy: alice,
            author: alice,
          },
          anonymous,
        ),
      ],
    },
    timelineEvent: {
      schema: E.TimelineEventEntity,
      outputs: [
        P.timelineEvent(timelineEvent, anonymous),
        P.timelineEvent(
          {
            ...timelineEvent,
            action: 'status',
            promotedFromNoteId: null,
            tags: [],
            author: null,
            authorId: null,
          },
          anonymous,
        ),
      ],
    },
    timelineEventTag: {
      schema: E.TimelineEventTagEntity,
      outputs: [P.timelineEventTag({ id: 1, projectId: project.id, name: 'Impact detected' })],
    },
    projectHook: {
      schema: E.ProjectHookEntity,
      outputs: [
        P.projectHook(hook),
        P.projectHook({ ...hook, disabledReason: 'disabled after 8 failed deliveries', disabledAt: at }),
      ],
    },
    hookDelivery: {
      schema: E.HookDeliveryEntity,
      outputs: [
        P.hookDelivery(delivery),
        P.hookDelivery({
          ...delivery,
          status: 'failed',
          responseStatus: null,
          durationMs: null,
          error: 'refused',
        }),
      ],
    },
    errorNotificationRule: {
      schema: E.ErrorNotificationRuleEntity,
      outputs: [
        P.errorNotificationRule(rule),
        P.errorNotificationRule({ ...rule, trigger: 'threshold', thresholdCount: 10, thresholdMinutes: 5 }),
      ],
    },
    escalationRule: {
      schema: E.EscalationRuleEntity,
      outputs: [P.escalationRule(escalationRule, anonymous)],
    },
    escalationPolicy: {
      schema: E.EscalationPolicyEntity,
      outputs: [
        P.escalationPolicy(escalationPolicy, anonymous),
        P.escalationPolicy({ ...escalationPolicy, description: null, rules: [] }, anonymous),
      ],
    },
    alertEscalation: {
      schema: E.AlertEscalationEntity,
      outputs: [
        P.alertEscalation(
          {
            ruleId: 4,
            elapsedTimeSeconds: 0,
            status: 'acknowledged',
            schedule: null,
            user: alice,
            dueAt: at,
            state: 'paged',
            pages: [{ round: 0, cycle: null, user: alice, at, emailStatus: 'sent' }],
          },
          anonymous,
        ),
        P.alertEscalation(
          {
            ruleId: 5,
            elapsedTimeSeconds: null,
            status: null,
            schedule: { iid: 1, name: 'Primary' },
            user: null,
            dueAt: null,
            state: 'skipped',
            pages: [],
          },
          anonymous,
        ),
      ],
    },
    notificationEmail: {
      schema: E.NotificationEmailEntity,
      outputs: [
        P.notificationEmail(email),
        P.notificationEmail({
          ...email,
          status: 'undeliverable',
          reason: 'SMTP is not configured',
          sentAt: null,
        }),
      ],
    },
    errorTrackingSettings: {
      schema: E.ErrorTrackingSettingsEntity,
      outputs: [
        P.errorTrackingSettings(
          {
            enabled: true,
            integrated: true,
            apiUrl: null,
            hasToken: false,
            projectName: null,
            organizationName: null,
            maxAttachmentSize: 1048576,
          },
          true,
          { transaction: 3, replay_event: 1 },
        ),
        P.errorTrackingSettings(
          {
            enabled: true,
            integrated: false,
            apiUrl: 'https://sentry.example/api/0/projects/org/api/',
            hasToken: true,
            projectName: 'api',
            organizationName: 'org',
            maxAttachmentSize: 1048576,
          },
          false,
        ),
      ],
    },
    clientKey: { schema: E.ClientKeyEntity, outputs: [P.clientKey(project, clientKey, url)] },
    trackedError: {
      schema: E.ErrorEntity,
      outputs: [
        P.trackedError(trackedError, { externalUrl: url }),
        P.trackedError(
          {
            ...trackedError,
            title: 'Sentry title',
            externalUrl: 'https://sentry.example/organizations/o/issues/80/',
          },
          { externalUrl: url },
        ),
        P.trackedError(
          {
            ...trackedError,
            status: 'resolved',
            assigneeId: alice.id,
            resolution: { type: 'in_next_release', release: '1.2.0', releaseSeenAt: at },
          },
          { externalUrl: url, assignees: new Map([[alice.id, alice]]) },
        ),
        P.trackedError(
          {
            ...trackedError,
            status: 'ignored',
            ignore: { until: at, count: 10, eventsBase: 3, userCount: null, usersBase: null },
          },
          { externalUrl: url },
        ),
      ],
    },
    errorActivity: {
      schema: E.ErrorActivityEntity,
      outputs: [
        P.errorActivity(
          {
            id: 1,
            errorId: 80,
            kind: 'note',
            authorId: alice.id,
            author: alice,
            body: 'Seen after **the deploy**',
            data: {},
            createdAt: at,
          },
          { externalUrl: url },
        ),
        P.errorActivity(
          {
            id: 2,
            errorId: 80,
            kind: 'set_regression',
            authorId: null,
            author: null,
            body: null,
            data: { release: '1.3.0' },
            createdAt: at,
          },
          { externalUrl: url },
        ),
      ],
    },
    errorDetail: {
      schema: E.ErrorDetailEntity,
      outputs: [
        P.errorDetail({ project, error: trackedError, suspects: [] }, asAlice),
        P.errorDetail(
          {
            project,
            error: trackedError,
            suspects: [
              {
                commit,
                path: 'src/app.js',
                line: 12,
                author: alice,
                authorOnCall: [oncallSchedule.schedule],
                mergeRequest: { mr: mergeRequest('merged'), author: alice, approvedBy: [admin] },
              },
              { commit, path: 'a.js', line: 1, author: null, authorOnCall: [], mergeRequest: null },
            ],
          },
          asAlice,
        ),
      ],
    },
    errorEvent: { schema: E.ErrorEventEntity, outputs: [P.errorEvent(errorEvent)] },
    errorFeedback: {
      schema: E.ErrorFeedbackEntity,
      outputs: [
        P.errorFeedback({
          id: 1,
          eventId: 'a'.repeat(32),
          source: 'feedback',
          name: 'Jane',
          email: 'jane@example.com',
          comments: 'It broke when I saved',
          url: 'https://app.example/settings',
          createdAt: '2026-01-01T00:00:00.000Z',
        }),
        P.errorFeedback({
          id: 2,
          eventId: null,
          source: 'error_page',
          name: '',
          email: '',
          comments: 'no event',
          url: null,
          createdAt: '2026-01-01T00:00:00.000Z',
        }),
      ],
    },
    errorAttachment: {
      schema: E.ErrorAttachmentEntity,
      outputs: [
        P.errorAttachment({
          id: 1,
          eventId: 'a'.repeat(32),
          filename: 'log.txt',
          contentType: 'text/plain',
          attachmentType: 'event.attachment',
          size: 12,
          createdAt: '2026-01-01T00:00:00.000Z',
        }),
      ],
    },
    stackTrace: { schema: E.StackTraceEntity, outputs: [P.stackTrace(stackTrace)] },
    externalProjects: {
      schema: E.ExternalProjectsEntity,
      outputs: [
        P.externalProjects([
          {
            id: '1',
            name: 'API',
            slug: 'api',
            status: 'active',
            organizationName: 'Org',
            organizationSlug: 'org',
            organizationId: '9',
          },
        ]),
      ],
    },
    storageMove: {
      schema: E.StorageMoveEntity,
      outputs: [
        P.storageMove(move('project'), project, asAdmin),
        P.storageMove(move('project'), null, asAdmin),
        P.storageMove(move('snippet'), snippet, asAdmin),
        P.storageMove(move('group'), group, asAdmin),
      ],
    },
    runner: {
      schema: E.RunnerEntity,
      outputs: runners.flatMap((r) => runnerViews.map((v) => P.runner(r, v))),
    },
    runnerDetails: {
      schema: E.RunnerDetailsEntity,
      outputs: runners.flatMap((r) =>
        runnerViews.map((v) => P.runnerDetails(r, v, [project], [group], asAlice)),
      ),
    },
    mergeRequest: {
      schema: E.MergeRequestEntity,
      outputs: (['opened', 'merged', 'closed'] as const).map((s) => P.mergeRequest(mergeRequest(s), asAlice)),
    },
    diff: { schema: E.DiffEntity, outputs: [P.diff(fileDiff)] },
    mergeRequestChanges: {
      schema: E.MergeRequestChangesEntity,
      outputs: [P.mergeRequestChanges(mergeRequest('opened'), [fileDiff], asAlice)],
    },
    commit: { schema: E.CommitEntity, outputs: [P.commit(commit, project, anonymous)] },
    treeObject: {
      schema: E.TreeObjectEntity,
      outputs: [
        P.treeObject({ id: 'a'.repeat(40), name: 'src', type: 'tree', path: 'src', mode: '040000' }),
        P.treeObject({ id: 'b'.repeat(40), name: 'a.sh', type: 'blob', path: 'src/a.sh', mode: '100755' }),
      ],
    },
    repositoryFile: { schema: E.RepositoryFileEntity, outputs: [P.repositoryFile(fileView)] },
    repositoryBlob: {
      schema: E.RepositoryBlobEntity,
      outputs: [P.repositoryBlob({ id: 'b'.repeat(40), size: 2, content: Buffer.from('a\n') })],
    },
    branch: {
      schema: E.BranchEntity,
      outputs: [
        P.branch(branchView, project, anonymous),
        P.branch({ ...branchView, name: 'a/b' }, project, asAlice),
      ],
    },
    commitDetail: {
      schema: E.CommitDetailEntity,
      outputs: [
        P.commitDetail(commit, { additions: 1, deletions: 2, total: 3 }, project, anonymous),
        P.commitDetail(commit, null, project, anonymous),
      ],
    },
    compare: {
      schema: E.CompareEntity,
      outputs: [
        P.compare(
          { commits: [commit], diffs: [fileDiff], same: false, fromSha: 'a'.repeat(40), toSha: commit.id },
          project,
          anonymous,
        ),
        P.compare(
          { commits: [], diffs: [], same: true, fromSha: commit.id, toSha: commit.id },
          project,
          anonymous,
        ),
      ],
    },
    mergeRequestVersion: {
      schema: E.MergeRequestVersionEntity,
      outputs: [
        P.mergeRequestVersion(version),
        P.mergeRequestVersion({ ...version, realSize: 0, patchIdSha: null }),
      ],
    },
    mergeRequestVersionFull: {
      schema: E.MergeRequestVersionFullEntity,
      outputs: [
        P.mergeRequestVersionFull({ project, version, commits: [commit], diffs: [fileDiff] }, anonymous),
      ],
    },
    approvalSettings: { schema: E.ApprovalSettingsEntity, outputs: [P.approvalSettings(approvalSettings)] },
    approvalRule: {
      schema: E.ApprovalRuleEntity,
      outputs: [
        P.approvalRule(
          { id: 1, name: 'Security', approvalsRequired: 1, users: [alice], groups: [group] },
          asAlice,
        ),
      ],
    },
    mergeRequestApprovals: {
      schema: E.MergeRequestApprovalsEntity,
      outputs: [P.mergeRequestApprovals(approvalState, asAlice), P.mergeRequestApprovals(noRules, asAlice)],
    },
    mergeRequestApprovalRule: {
      schema: E.MergeRequestApprovalRuleEntity,
      outputs: [
        P.mergeRequestApprovalRule(approvalState.rules[0]!, asAlice),
        ...ownRules.rules.map((r) => P.mergeRequestApprovalRule(r, asAlice)),
      ],
    },
    mergeRequestApprovalState: {
      schema: E.MergeRequestApprovalStateEntity,
      outputs: [
        P.mergeRequestApprovalState(approvalState, asAlice),
        P.mergeRequestApprovalState(noRules, asAlice),
        P.mergeRequestApprovalState(ownRules, asAlice),
      ],
    },
    note: {
      schema: E.NoteEntity,
      outputs: [
        P.note(
          {
            id: 7,
            noteableType: 'MergeRequest',
            noteableId: 3,
            noteableIid: 1,
            projectId: 1,
            authorId: alice.id,
            author: alice,
            body: 'reset approvals from @bob by pushing to the branch',
            system: true,
            internal: false,
            createdAt: '2025-01-01T00:00:00.000Z',
            updatedAt: '2025-01-01T00:00:00.000Z',
          },
          asAlice,
        ),
        P.note(
          {
            id: 8,
            noteableType: 'MergeRequest',
            noteableId: 3,
            noteableIid: 1,
            projectId: 1,
            authorId: null,
            author: null,
            body: 'added 1 commit',
            system: true,
            internal: false,
            createdAt: '2025-01-01T00:00:00.000Z',
            updatedAt: '2025-01-01T00:00:00.000Z',
          },
          asAlice,
        ),
      ],
    },
    managedLicense: {
      schema: E.ManagedLicenseEntity,
      outputs: [P.managedLicense({ id: 1, name: 'MIT', approval_status: 'allowed' })],
    },
    geoSite: {
      schema: E.GeoSiteEntity,
      outputs: [P.geoSite(geoSite, url, `${url}/api/v${api.version}/geo_sites/130`)],
    },
    geoSiteStatus: {
      schema: E.GeoSiteStatusEntity,
      outputs: [
        P.geoSiteStatus({ siteId: 130, healthy: true, repositoriesPendingResync: 0, pendingResyncs: [] }),
        P.geoSiteStatus({
          siteId: 130,
          healthy: false,
          repositoriesPendingResync: 1,
          pendingResyncs: [{ containerType: 'project', containerId: 20, reason: 'moved', createdAt: at }],
        }),
      ],
    },
    auditEvent: {
      schema: E.AuditEventEntity,
      outputs: [P.auditEvent(auditEvent), P.auditEvent({ ...auditEvent, id: null })],
    },
    oncallSchedule: {
      schema: E.OncallScheduleEntity,
      outputs: [
        P.oncallSchedule(oncallSchedule, asAlice),
        P.oncallSchedule({ ...oncallSchedule, rotations: [] }, anonymous),
      ],
    },
    oncallRotation: {
      schema: E.OncallRotationEntity,
      outputs: oncallSchedule.rotations.map((r) => P.oncallRotation(r, asAlice)),
    },
    oncallShift: {
      schema: E.OncallShiftEntity,
      outputs: [
        P.oncallShift(oncallShift, asAlice),
        P.oncallShift({ ...oncallShift, rotation: null, override: { id: 3 } }, asAlice),
      ],
    },
    oncallOverride: {
      schema: E.OncallOverrideEntity,
      outputs: [
        P.oncallOverride(
          {
            override: {
              id: 3,
              scheduleId: 1,
              userId: alice.id,
              startsAt: at,
              endsAt: new Date(Date.parse(at) + 3_600_000).toISOString(),
              createdById: alice.id,
              createdAt: at,
            },
            user: alice,
            timezone: 'Europe/Berlin',
          },
          asAlice,
        ),
      ],
    },
    oncallUsers: {
      schema: Type.Array(E.OncallUserEntity),
      outputs: [P.oncallUsers([oncallShift, { ...oncallShift, rotation: oncallRotations[1]! }], asAlice)],
    },
    auditDestination: {
      schema: E.AuditDestinationEntity,
      outputs: [
        P.auditDestination({ id: 1, destinationUrl: 'https://siem.example/', verificationToken: 'tok' }),
      ],
    },
  };
}

/** Exported functions of a version's presenters that are helpers, not presenters of an entity. */
const HELPERS = new Set(['integrationUrl', 'repositoryFileMeta']);

describe.each(
  API_VERSIONS.map((api) => [api.version, api] as const),
)('API v%i presenters', (_version, api) => {
  const table = cases(api);

  it('has a contract case for every presenter', () => {
    const presenters = Object.keys(api.present).filter((name) => !HELPERS.has(name));
    expect(presenters.filter((name) => !(name in table))).toEqual([]);
  });

  it.each(Object.keys(table))('%s: every output matches its schema, with no unnamed property', (name) => {
    const { schema, outputs } = table[name]!;
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) expect(check(schema, output)).toEqual([]);
  });
});

const oncallRotations: RotationView[] = [
  {
    id: 1,
    scheduleId: 1,
    name: 'Primary',
    startsAt: at,
    endsAt: null,
    length: 1,
    lengthUnit: 'weeks',
    activePeriod: null,
    participants: [{ user: alice, position: 0 }],
    timezone: 'Europe/Berlin',
    createdAt: at,
    updatedAt: at,
  },
  {
    id: 2,
    scheduleId: 1,
    name: 'Office hours',
    startsAt: at,
    endsAt: '2026-06-01T00:00:00.000Z',
    length: 2,
    lengthUnit: 'days',
    activePeriod: { startTime: '09:00', endTime: '17:00' },
    participants: [
      { user: alice, position: 0 },
      { user: admin, position: 1 },
    ],
    timezone: 'Europe/Berlin',
    createdAt: at,
    updatedAt: at,
  },
];
const oncallSchedule: ScheduleView = {
  schedule: {
    id: 1,
    projectId: 20,
    groupId: null,
    iid: 1,
    name: 'Ops',
    description: null,
    timezone: 'Europe/Berlin',
    createdAt: at,
    updatedAt: at,
  },
  rotations: oncallRotations,
};
const oncallShift: ShiftView = {
  rotation: oncallRotations[0]!,
  override: null,
  user: alice,
  startsAt: Date.parse(at),
  endsAt: Date.parse(at) + 604_800_000,
  timezone: 'Europe/Berlin',
};

const securityRule: ApprovalRule = {
  id: 1,
  name: 'Security',
  approvalsRequired: 1,
  users: [alice],
  groups: [group],
};
const approvalState: ApprovalState = {
  mergeRequest: mergeRequest('opened'),
  approvedBy: [{ user: alice, approvedAt: at }],
  approvalsRequired: 1,
  approvalsLeft: 0,
  approved: true,
  rules: [{ rule: securityRule, eligible: [alice], approvedBy: [alice], approved: true }],
  userHasApproved: true,
  userCanApprove: false,
  requirePasswordToApprove: false,
  rulesOverwritten: false,
};
/** A merge request's own rules: one copied from a project rule and changed, one of its own. */
const ownRules: ApprovalState = {
  ...approvalState,
  rulesOverwritten: true,
  rules: [
    {
      ...approvalState.rules[0]!,
      rule: { ...securityRule, source: { approvalsRequired: 2, overridden: true } },
    },
    { ...approvalState.rules[0]!, rule: { ...securityRule, id: 2, name: 'Mine', source: null } },
  ],
};
const noRules: ApprovalState = {
  ...approvalState,
  approvedBy: [],
  approvalsLeft: 1,
  approved: false,
  rules: [],
};

describe('the contract check itself', () => {
  it('refuses a property the schema does not name, and a missing required one', () => {
    const E = API_VERSIONS[1]!.entities;
    const v4Runner = v4Presenters.runner(runner(true, at), { now, blankIpAddress: false });
    // A v4 runner where v5's is expected: `active` and `ip_address` are what v5 removed.
    expect(check(E.RunnerEntity, v4Runner).join('\n')).toMatch(/additionalProperty":"(active|ip_address)"/);
    const { merged_by: _m, ...withoutMergedBy } = v4Presenters.mergeRequest(mergeRequest('merged'), asAlice);
    expect(check(API_VERSIONS[0]!.entities.MergeRequestEntity, withoutMergedBy).join('\n')).toMatch(
      /missingProperty":"merged_by"/,
    );
  });

  it('v5 runner status values exclude paused', () => {
    const paused = v4Presenters.runner(runner(false, at), { now, blankIpAddress: false });
    const { active: _a, ip_address: _i, ...rest } = paused;
    expect(paused.status).toBe('paused');
    expect(check(API_VERSIONS[1]!.entities.RunnerEntity, rest)).not.toEqual([]);
  });
});
