import type { Static } from 'typebox';
import type { Alert, AlertNote } from '../../alerts/alerts.js';
import type { IntegrationView } from '../../alerts/integrations.service.js';
import type { Project } from '../../projects/projects.js';
import type { Bucket } from '../../time-buckets.js';
import type { User } from '../../users/users.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  AlertEntity,
  AlertNoteEntity,
  AlertSettingsEntity,
  IntegrationEntity,
  OccurrencesEntity,
} from './alerts.entities.js';

/** The notify URL of an integration (none for the on-call link, which only links out). */
export function integrationUrl(project: Project, i: IntegrationView, v: View): string | null {
  if (i.type === 'oncall_link') return null;
  // A heartbeat is called with GET or POST (a cron job's curl); its URL is fixed-depth, by project id.
  if (i.type === 'heartbeat')
    return `${v.externalUrl}/-/alerts/heartbeat/${project.id}/${i.endpointIdentifier}`;
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
): Static<typeof IntegrationEntity> {
  return {
    id: i.id,
    name: i.name,
    type: i.type,
    active: i.effectiveActive,
    api_url: i.apiUrl,
    payload_example: JSON.stringify(i.payloadExample, null, 2),
    payload_attribute_mapping: i.payloadAttributeMapping as Static<
      typeof IntegrationEntity
    >['payload_attribute_mapping'],
    url: integrationUrl(project, i, v),
    ...(withKey && { authorization_key: i.authorizationKey }),
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    warnings: i.warnings.map((w) => ({ code: w.code, message: w.message, recorded_at: w.at })),
    ...(i.heartbeat && {
      heartbeat: {
        interval_seconds: i.heartbeat.intervalSeconds,
        grace_seconds: i.heartbeat.graceSeconds,
        alertname: i.heartbeat.alertname,
        status: i.heartbeat.state,
        last_seen_at: i.heartbeat.lastSeenAt,
        due_at: i.heartbeat.deadlineAt,
      },
    }),
  };
}

export function alert(a: Alert, v: View): Static<typeof AlertEntity> {
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
    assignees: a.assignees.map((u) => userBasic(u, v)),
  };
}

export function alertNote(n: AlertNote, author: User | null): Static<typeof AlertNoteEntity> {
  return {
    id: n.id,
    body: n.body,
    system: n.system,
    author: author
      ? { id: author.id, username: author.username, name: author.name }
      : { id: null, username: 'alert-bot', name: 'Alert Bot' },
    created_at: n.createdAt,
  };
}

/**
 * A project's alert settings: whether alerts open incidents, whether resolving closes them, and whether closing an
 * incident resolves its alerts.
 */
export function alertSettings(s: {
  readonly createIncident: boolean;
  readonly autoCloseIncident: boolean;
  readonly sendEmail: boolean;
  readonly autoResolveAlerts: boolean;
}): Static<typeof AlertSettingsEntity> {
  return {
    create_incident: s.createIncident,
    auto_close_incident: s.autoCloseIncident,
    send_email: s.sendEmail,
    auto_resolve_alerts: s.autoResolveAlerts,
  };
}

/** Occurrences over time, bucket by bucket. */
export function occurrences(o: {
  readonly period: string;
  readonly interval: string;
  readonly buckets: readonly Bucket[];
}): Static<typeof OccurrencesEntity> {
  return {
    stats_period: o.period,
    interval: o.interval,
    buckets: o.buckets.map((b) => ({ start: b.start, count: b.count })),
  };
}
