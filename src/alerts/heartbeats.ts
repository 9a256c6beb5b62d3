import type { ParsedAlert } from './alerts.js';

/** Heartbeats: an integration that must be called every interval; silence past the grace period is an alert. */

/** waiting: never called yet (nothing is expected); up: called in time; down: missed, its alert is open. */
export type HeartbeatState = 'waiting' | 'up' | 'down';

/** What a Maintainer sets: how often calls come, how late one may be, and (Prometheus) which alert is the call. */
export interface HeartbeatConfig {
  readonly intervalSeconds: number;
  readonly graceSeconds: number;
  /** Prometheus integrations: the alertname whose arrival counts as the call (Alertmanager's Watchdog). */
  readonly alertname: string | null;
}

export interface Heartbeat extends HeartbeatConfig {
  readonly integrationId: number;
  readonly projectId: number;
  readonly state: HeartbeatState;
  readonly lastSeenAt: string | null;
  /** When the next call is due at the latest (the last call plus interval plus grace); null while waiting. */
  readonly deadlineAt: string | null;
}

/** Bounds of the settings: at least 10 seconds apart, at most 30 days; grace up to 30 days. */
export const HEARTBEAT_MIN_INTERVAL = 10;
export const HEARTBEAT_MAX_SECONDS = 30 * 86_400;
/** Alertmanager's always-firing alert in kube-prometheus and most Prometheus setups. */
export const DEFAULT_WATCHDOG_ALERTNAME = 'Watchdog';

/** The deadline after a call at `at`. */
export function heartbeatDeadline(
  at: Date,
  c: Pick<HeartbeatConfig, 'intervalSeconds' | 'graceSeconds'>,
): Date {
  return new Date(at.getTime() + (c.intervalSeconds + c.graceSeconds) * 1000);
}

/** The fingerprint of a heartbeat's missed alert: one open alert per integration, resolved by the next call. */
export const heartbeatFingerprint = (integrationId: number) => `svc-heartbeat:${integrationId}`;

/**
 * An alert svc raises itself (a missed heartbeat, a failing cron monitor), or its recovery: a ParsedAlert as if
 * a monitoring tool had sent it, so that it takes the intake's one path (incident, notifications, escalation,
 * silences).
 */
export function raisedAlert(a: {
  title: string;
  description: string | null;
  fingerprint: string;
  monitoringTool: string;
  severity?: ParsedAlert['severity'];
  service?: string | null;
  environment?: string | null;
  resolves: boolean;
  at: Date;
  payload: Record<string, unknown>;
}): ParsedAlert {
  const at = a.at.toISOString();
  return {
    title: a.title,
    description: a.description,
    severity: a.severity ?? 'critical',
    startedAt: at,
    endedAt: a.resolves ? at : null,
    resolves: a.resolves,
    fingerprint: a.fingerprint,
    hosts: [],
    service: a.service ?? null,
    monitoringTool: a.monitoringTool,
    environment: a.environment ?? null,
    runbook: null,
    incidentMarkdown: null,
    metric: null,
    payload: a.payload,
  };
}
