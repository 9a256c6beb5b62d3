import type { AlertStatus, IntegrationType } from './types';

/** Alert statuses in GitLab's order, with the words the UI shows. */
export const STATUS_LABELS: Readonly<Record<AlertStatus, string>> = {
  triggered: 'Triggered',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

export const ALERT_STATUSES = Object.keys(STATUS_LABELS) as AlertStatus[];

const SEVERITY_LABELS: Readonly<Record<string, string>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
  unknown: 'Unknown',
};

/** Integration types with the words the UI shows. */
export const INTEGRATION_TYPE_LABELS: Readonly<Record<IntegrationType, string>> = {
  http: 'HTTP endpoint',
  prometheus: 'Prometheus',
  oncall_link: 'On-call tool link',
  heartbeat: 'Heartbeat',
};

export const INTEGRATION_TYPES = Object.keys(INTEGRATION_TYPE_LABELS) as IntegrationType[];

/** The readable word for a severity; an unexpected value is shown as it came. */
function severityLabel(severity: string): string {
  return SEVERITY_LABELS[severity] ?? severity;
}

/** A coloured severity word (the word itself carries the meaning; colour only helps scanning). */
export function SeverityBadge({ severity }: { readonly severity: string }) {
  const known = severity in SEVERITY_LABELS ? severity : 'unknown';
  return <span className={`severity severity-${known}`}>{severityLabel(severity)}</span>;
}

/** The status as a small badge; the entity's status is any string, an unexpected one shows as it came. */
export function StatusBadge({ status }: { readonly status: string }) {
  return <span className={`status status-${status}`}>{STATUS_LABELS[status as AlertStatus] ?? status}</span>;
}
