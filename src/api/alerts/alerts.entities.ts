import { Type } from 'typebox';
import { Bool, Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/** svc's: a heartbeat integration's (or a Prometheus integration's Watchdog) settings and state. */
export const HeartbeatEntity = Type.Object({
  interval_seconds: Int,
  grace_seconds: Int,
  /** Prometheus integrations: the alertname whose arrival is the call. */
  alertname: Nullable(Str),
  /** waiting (never called), up, down (missed: its alert is open). */
  status: Str,
  last_seen_at: Nullable(Str),
  due_at: Nullable(Str),
});

export const IntegrationEntity = Type.Object({
  id: Int,
  name: Str,
  type: Str,
  active: Bool,
  api_url: Nullable(Str),
  payload_example: Str,
  payload_attribute_mapping: Type.Record(
    Str,
    Type.Object({
      path: Type.Array(Type.Union([Str, Int])),
      type: Str,
      label: Type.Optional(Nullable(Str)),
      /** svc's, `status` only: the values that mean the alert recovered. */
      resolved_values: Type.Optional(Type.Array(Str)),
    }),
  ),
  url: Nullable(Str),
  authorization_key: Type.Optional(Str),
  created_at: Str,
  updated_at: Str,
  /**
   * svc's: what the owner should know about how alerts arrive (`alertmanager_payload`: intake saw an Alertmanager
   * payload, with `recorded_at`; `no_fingerprint`: repeats cannot be grouped on this tier, `recorded_at` null).
   */
  warnings: Type.Array(Type.Object({ code: Str, message: Str, recorded_at: Nullable(Str) })),
  /** svc's: only on integrations with a heartbeat. */
  heartbeat: Type.Optional(HeartbeatEntity),
});

export const AlertEntity = Type.Object({
  iid: Int,
  /**
   * svc's: what silences the alert now (list and get only): the id of each active silence that matches it, then
   * an object for each active maintenance window over its project or integration.
   */
  silenced_by: Type.Optional(
    Type.Array(
      Type.Union([
        Int,
        Type.Object({
          type: Type.Literal('maintenance_window'),
          id: Int,
          integration_id: Nullable(Int),
          ends_at: Str,
        }),
      ]),
    ),
  ),
  title: Str,
  description: Nullable(Str),
  severity: Str,
  status: Str,
  started_at: Str,
  ended_at: Nullable(Str),
  event_count: Int,
  fingerprint: Nullable(Str),
  hosts: Type.Array(Str),
  service: Nullable(Str),
  monitoring_tool: Nullable(Str),
  environment: Nullable(Str),
  runbook: Nullable(Str),
  payload: Type.Unknown(),
  incident: Nullable(Int),
  created_at: Str,
  updated_at: Str,
  web_url: Str,
  /** GitLab's alert assignees (one at most, as GitLab keeps only the first). */
  assignees: Type.Array(UserBasic),
});

export const AlertNoteEntity = Type.Object({
  id: Int,
  body: Str,
  system: Bool,
  author: Type.Object({ id: Nullable(Int), username: Str, name: Str }),
  created_at: Str,
});

export const IntakeEntity = Type.Array(Type.Object({ iid: Int, title: Str }));

/** A project's alert settings (`/alert_management/settings`). */
export const AlertSettingsEntity = Type.Object({
  create_incident: Bool,
  auto_close_incident: Bool,
  /** GitLab's `send_email`: e-mail the Owners and Maintainers about each new alert (and a paged alert's recovery). */
  send_email: Bool,
  /**
   * svc's: closing an incident resolves its alerts (and ends their escalation). GitLab always does; on by default,
   * off keeps the alerts as they are.
   */
  auto_resolve_alerts: Bool,
});

/** Alerts of a project per status, with `open` and `all` (`GET .../alerts/counts`). */
export const AlertCountsEntity = Type.Record(Str, Int);

/** One key path of an integration's sample payload (`GET .../integrations/:id/payload_fields`). */
export const PayloadFieldEntity = Type.Object({
  path: Type.Array(Type.Union([Str, Int])),
  label: Str,
  type: Str,
  example: Type.Unknown(),
});

/** Occurrences over time (`GET .../alerts/:iid/stats`): UTC-aligned buckets, oldest first, counted in SQL. */
export const OccurrencesEntity = Type.Object({
  stats_period: Str,
  interval: Str,
  buckets: Type.Array(Type.Object({ start: Str, count: Int })),
});
