/**
 * What a generic (HTTP Endpoint) payload says about its own state, read from the fields monitoring tools send by
 * default: whether it is a recovery, and the tool's own identifier of the alert (which a recovery carries too).
 * Only top-level keys are looked at, in a fixed order, so recognising a payload costs a few property reads.
 */

type JsonObject = { readonly [key: string]: unknown };

/** A recognised tool's reading of a payload. */
export interface ToolReading {
  readonly tool: 'Datadog' | 'New Relic' | 'Zabbix';
  /** The tool says the alert recovered. */
  readonly resolves: boolean;
  /** The tool's identifier of the alert (one firing episode), used as the fingerprint when none is sent. */
  readonly identity: string | null;
  /** A title when the tool's payload has no `title` field (New Relic's legacy webhook). */
  readonly title?: string | null;
}

const text = (v: unknown): string | null =>
  typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : typeof v === 'number' ? String(v) : null;

/** The first present identifier among `keys`, prefixed by the tool so ids of two tools never meet. */
function identity(payload: JsonObject, prefix: string, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = text(payload[k]);
    if (v !== null) return `${prefix}:${k}:${v}`;
  }
  return null;
}

/**
 * Datadog's webhook template variables (`$ALERT_TRANSITION`: Triggered, Re-Triggered, Warn, No Data, Renotify,
 * Recovered; `$ALERT_CYCLE_KEY` links the events from trigger to recovery), New Relic's legacy webhook
 * (`current_state`: open, acknowledged, closed; `incident_id`) and its workflow webhook's default template
 * (`state`: CREATED, ACTIVATED, ACKNOWLEDGED, CLOSED; `id` is the issue id, with `issueUrl`), and a Zabbix webhook
 * media type's `{EVENT.VALUE}` (1 problem, 0 recovery; `{EVENT.ID}` is the problem's id in both messages).
 */
export function readTool(payload: JsonObject): ToolReading | null {
  if ('alert_transition' in payload) {
    const transition = text(payload.alert_transition);
    return {
      tool: 'Datadog',
      resolves: transition?.toLowerCase() === 'recovered',
      identity: identity(payload, 'datadog', ['alert_cycle_key', 'aggreg_key', 'alert_id']),
    };
  }
  if ('current_state' in payload) {
    return {
      tool: 'New Relic',
      resolves: text(payload.current_state)?.toLowerCase() === 'closed',
      identity: identity(payload, 'newrelic', ['incident_id']),
      title: text(payload.condition_name) ?? text(payload.details),
    };
  }
  if ('issueUrl' in payload && 'state' in payload) {
    return {
      tool: 'New Relic',
      resolves: text(payload.state)?.toLowerCase() === 'closed',
      identity: identity(payload, 'newrelic', ['issueId', 'id']),
    };
  }
  if ('event_value' in payload) {
    return {
      tool: 'Zabbix',
      resolves: text(payload.event_value) === '0',
      identity: identity(payload, 'zabbix', ['event_id']),
    };
  }
  return null;
}

/** Grafana Alerting's webhook: the Alertmanager format plus `orgId` (and per-alert links and values). */
export function isGrafanaPayload(payload: JsonObject): boolean {
  return typeof payload.orgId === 'number' && Array.isArray(payload.alerts);
}

/** Alertmanager's webhook (keys it always sends), which a generic endpoint reads as one untitled alert. */
export function isAlertmanagerPayload(payload: JsonObject): boolean {
  return (
    Array.isArray(payload.alerts) &&
    typeof payload.groupKey === 'string' &&
    'receiver' in payload &&
    'version' in payload &&
    !isGrafanaPayload(payload)
  );
}

/** A mapped status value that means resolved: compared without case and surrounding space. */
export function isResolvedValue(value: unknown, resolvedValues: readonly string[]): boolean {
  const v = text(value);
  if (v === null) return false;
  const lower = v.toLowerCase();
  return resolvedValues.some((r) => r.trim().toLowerCase() === lower);
}
