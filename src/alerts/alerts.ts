import { createHash } from 'node:crypto';
import type { User } from '../users/users.js';
import { isResolvedValue, readTool } from './monitoring-tools.js';

/** Alert domain: types, the payload parsers (generic, metrics-alerting, custom mapping) and fingerprints. */

export type IntegrationType = 'http' | 'prometheus' | 'oncall_link' | 'heartbeat';
export const INTEGRATION_TYPES: readonly IntegrationType[] = [
  'http',
  'prometheus',
  'oncall_link',
  'heartbeat',
];

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info' | 'unknown';
export type AlertStatus = 'triggered' | 'acknowledged' | 'resolved' | 'ignored';
export const ALERT_STATUSES: readonly AlertStatus[] = ['triggered', 'acknowledged', 'resolved', 'ignored'];

/** Alert fields a custom mapping may target, with the types each accepts (GitLab's alert_fields). */
export const MAPPABLE_FIELDS: Readonly<Record<string, readonly MappingType[]>> = {
  title: ['string'],
  description: ['string'],
  start_time: ['datetime'],
  end_time: ['datetime'],
  service: ['string'],
  monitoring_tool: ['string'],
  hosts: ['string', 'array'],
  severity: ['string'],
  fingerprint: ['string', 'array'],
  svc_environment_name: ['string'],
  // svc's: the field whose value says the alert recovered (with the values that mean so, `resolved_values`).
  status: ['string'],
};
export type MappingType = 'string' | 'datetime' | 'array';

/** One mapped field: a path of keys and array indices into the payload. */
export interface MappingEntry {
  readonly path: readonly (string | number)[];
  readonly type: MappingType;
  readonly label?: string | null;
  /** `status` only: the values of the field that mean the alert recovered (compared without case). */
  readonly resolved_values?: readonly string[];
}
export type PayloadMapping = Readonly<Record<string, MappingEntry>>;

export interface Integration {
  readonly id: number;
  readonly projectId: number;
  readonly name: string;
  readonly type: IntegrationType;
  readonly active: boolean;
  readonly endpointIdentifier: string;
  readonly apiUrl: string | null;
  readonly payloadExample: unknown;
  readonly payloadAttributeMapping: PayloadMapping;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** What intake noticed about the payloads it received, each once, with when it was first seen. */
  readonly recordedWarnings: readonly RecordedWarning[];
}

/** Codes of what intake can notice about an integration's payloads. */
export type IntegrationWarningCode = 'alertmanager_payload';
export interface RecordedWarning {
  readonly code: IntegrationWarningCode;
  readonly at: string;
}

export interface Alert {
  readonly id: number;
  readonly projectId: number;
  readonly iid: number;
  /** The integration it came through (null: svc's own, or the integration was deleted). */
  readonly integrationId: number | null;
  readonly title: string;
  readonly description: string | null;
  readonly severity: Severity;
  readonly status: AlertStatus;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly events: number;
  readonly fingerprint: string | null;
  readonly hosts: readonly string[];
  readonly service: string | null;
  readonly monitoringTool: string | null;
  readonly environment: string | null;
  readonly runbook: string | null;
  readonly payload: unknown;
  readonly incidentIid: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Users assigned to the alert (GitLab's alert assignees), by username. */
  readonly assignees: readonly User[];
}

export interface AlertNote {
  readonly id: number;
  readonly authorId: number | null;
  readonly body: string;
  readonly createdAt: string;
  /** Written by svc (status changes, assignments, intake); false for a comment someone wrote. */
  readonly system: boolean;
}

/** An alert as read from one payload (or one item of a metrics-alerting payload), before storage. */
export interface ParsedAlert {
  readonly title: string;
  readonly description: string | null;
  readonly severity: Severity;
  readonly startedAt: string;
  /** Set when the payload resolves the alert. */
  readonly endedAt: string | null;
  readonly resolves: boolean;
  readonly fingerprint: string | null;
  readonly hosts: readonly string[];
  readonly service: string | null;
  readonly monitoringTool: string | null;
  readonly environment: string | null;
  readonly runbook: string | null;
  readonly incidentMarkdown: string | null;
  /** Metrics-alerting only: the metric query (`g0.expr` of generatorURL) and its y-axis label. */
  readonly metric: { readonly query: string; readonly yLabel: string | null } | null;
  readonly payload: unknown;
}

/** A payload that cannot be processed: 422 with this message. */
export class PayloadShapeError extends Error {}

/** A metrics-alerting payload with more items than one request may carry: 413 with this message. */
export class TooManyAlertsError extends PayloadShapeError {}

/** Nesting depth allowed in alert payloads (GitLab's DeepSize limit). */
export const MAX_PAYLOAD_DEPTH = 100;

/** Payload text that is no acceptable JSON (empty, nested too deep, not JSON): 400 with this message. */
export class PayloadTextError extends Error {}

/** Alerts accepted per metrics-alerting payload by default (GitLab's PROCESS_MAX_ALERTS). */
export const DEFAULT_MAX_ALERTS = 100;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Blank as GitLab's `present?`: null, empty or whitespace string, empty array or object. */
export function isBlank(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

const truncate = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 3)}...` : s);
const str = (v: unknown): string | null =>
  isBlank(v) ? null : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * Times svc stores: years 0001 to 9999. Both databases and ISO-8601 text (which SQLite stores and sorts) hold
 * these; JavaScript's wider range (to year 275760, or an Invalid Date beyond) does not fit them.
 */
export const MIN_TIME_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const MAX_TIME_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Epoch milliseconds of a time string or (with `allowEpochMs`) a number; null if unparseable. */
function timeMs(v: unknown, allowEpochMs: boolean): number | null {
  if (typeof v === 'number') return allowEpochMs && Number.isFinite(v) ? v : null;
  if (typeof v !== 'string' || v.trim() === '') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}

const inTimeRange = (ms: number): boolean => ms >= MIN_TIME_MS && ms <= MAX_TIME_MS;

/**
 * Epoch numbers below this are seconds, above it milliseconds: 1e11 seconds is the year 5138, 1e11 milliseconds
 * is March 1973, so neither reading of a real alert time is mistaken for the other.
 */
const EPOCH_SECONDS_BELOW = 1e11;
/** Epoch times as text (`"1406662672000"`, Datadog's `$DATE`): nine digits or more, so a year never matches. */
const EPOCH_TEXT = /^-?\d{9,}(?:\.\d+)?$/;

/** Epoch milliseconds of a payload time: a time string, or epoch seconds or milliseconds (number or digits). */
function payloadTimeMs(v: unknown): number | null {
  let n: number | null = null;
  if (typeof v === 'number') n = Number.isFinite(v) ? v : null;
  else if (typeof v === 'string' && EPOCH_TEXT.test(v.trim())) n = Number(v.trim());
  else return timeMs(v, false);
  if (n === null) return null;
  return Math.abs(n) < EPOCH_SECONDS_BELOW ? n * 1000 : n;
}

/** Parses a time string (ISO 8601 and the like) or epoch milliseconds; null if unparseable or out of range. */
export function parseTime(v: unknown, allowEpochMs = false): string | null {
  const ms = timeMs(v, allowEpochMs);
  return ms === null || !inTimeRange(ms) ? null : new Date(ms).toISOString();
}

/**
 * A time field of a payload. Unparseable values count as absent (GitLab's `parse_time` gives nil); a value that
 * is a time but outside years 0001 to 9999 (`end_time: 1e20`) is refused with a PayloadShapeError naming it.
 */
function payloadTime(v: unknown, field: string): string | null {
  const ms = payloadTimeMs(v);
  // Go's zero time (`0001-01-01T00:00:00Z`, Alertmanager's endsAt of a firing alert) means "no time".
  if (ms === null || ms === MIN_TIME_MS) return null;
  if (!inTimeRange(ms)) {
    throw new PayloadShapeError(`${field} is out of range: times must lie in the years 0001 to 9999`);
  }
  return new Date(ms).toISOString();
}

// Severities

const GENERIC_SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];

/** Spec, generic payload: case-insensitive critical, high, medium, low, info, unknown; default critical. */
export function genericSeverity(v: unknown): Severity {
  const s = typeof v === 'string' ? v.toLowerCase() : '';
  return GENERIC_SEVERITIES.includes(s as Severity) ? (s as Severity) : 'critical';
}

/** Spec, metrics-alerting severity table (case-insensitive); anything else is critical. */
const PROMETHEUS_SEVERITY: Readonly<Record<string, Severity>> = Object.fromEntries(
  (
    [
      ['critical', ['critical', 's1', 'p1', 'emergency', 'fatal']],
      ['high', ['high', 's2', 'p2', 'major', 'page']],
      ['medium', ['medium', 's3', 'p3', 'error', 'alert']],
      ['low', ['low', 's4', 'p4', 'warn', 'warning']],
      ['info', ['info', 's5', 'p5', 'debug', 'information', 'notice']],
    ] as const
  ).flatMap(([severity, values]) => values.map((v) => [v, severity])),
);

export function prometheusSeverity(v: unknown): Severity {
  return (typeof v === 'string' && PROMETHEUS_SEVERITY[v.toLowerCase()]) || 'critical';
}

// Fingerprints

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** Canonical JSON: object keys sorted, so key order never changes a fingerprint. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * An explicit fingerprint: a string (or number) hashed as is; an array flattened, its elements joined without a
 * separator (GitLab: `["a","b"]` equals `"ab"`); an object by its canonical JSON. Blank gives none.
 */
export function explicitFingerprint(v: unknown): string | null {
  if (isBlank(v)) return null;
  if (Array.isArray(v)) {
    const flat = (v as unknown[])
      .flat(Number.POSITIVE_INFINITY)
      .map((e) => (typeof e === 'string' ? e : canonical(e)));
    return flat.length === 0 ? null : sha1(flat.join(''));
  }
  if (isObject(v)) return sha1(canonical(v));
  return sha1(String(v));
}

/** Spec: with `generic_alert_fingerprinting`, the fingerprint of the payload without start_time, end_time, hosts. */
export function automaticFingerprint(payload: JsonObject): string | null {
  const rest = Object.fromEntries(
    Object.entries(payload).filter(([k]) => k !== 'start_time' && k !== 'end_time' && k !== 'hosts'),
  );
  if (Object.values(rest).every(isBlank)) return null;
  return sha1(canonical(rest));
}

// Payload paths (custom mapping)

/** Reads a path of keys and indices from a payload. */
export function readPath(payload: unknown, path: readonly (string | number)[]): unknown {
  let cur: unknown = payload;
  for (const key of path) {
    if (Array.isArray(cur) && typeof key === 'number') cur = cur[key];
    else if (isObject(cur) && typeof key === 'string') cur = cur[key];
    else return undefined;
  }
  return cur;
}

/** Every leaf path of a sample payload, with its label (`a/b[0]/c`) and a sample value, for the mapping UI. */
export function payloadFields(
  payload: unknown,
): { path: (string | number)[]; label: string; type: MappingType; example: unknown }[] {
  const out: { path: (string | number)[]; label: string; type: MappingType; example: unknown }[] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (out.length >= 1000) return;
    if (isObject(v) && Object.keys(v).length > 0) {
      for (const [k, child] of Object.entries(v)) walk(child, [...path, k]);
      return;
    }
    if (path.length === 0) return;
    const label = path.reduce<string>(
      (acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}/${k}` : k),
      '',
    );
    const type: MappingType = Array.isArray(v)
      ? 'array'
      : (typeof v === 'string' && parseTime(v) !== null && /\d{4}-\d{2}-\d{2}/.test(v)) || looksLikeEpoch(v)
        ? 'datetime'
        : 'string';
    out.push({ path, label, type, example: v });
    if (Array.isArray(v)) {
      v.forEach((child, i) => {
        if (isObject(child)) walk(child, [...path, i]);
      });
    }
  };
  walk(payload, []);
  return out;
}

/**
 * A sample value that reads as an epoch time of the years 2001 to 2286 (seconds, or milliseconds like New Relic's
 * `createdAt`), as a number or digits, so the mapping UI offers it for the time fields.
 */
function looksLikeEpoch(v: unknown): boolean {
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'string' && /^\d{10}(?:\d{3})?$/.test(v)
        ? Number(v)
        : Number.NaN;
  return (n >= 1e9 && n < 1e10) || (n >= 1e12 && n < 1e13);
}

/** Validates a mapping (GitLab's JSON schema plus the field/type table); returns problems by field. */
export function validateMapping(mapping: unknown): string[] {
  if (!isObject(mapping)) return ['must be an object of alert field to {path, type, label}'];
  const problems: string[] = [];
  for (const [field, entry] of Object.entries(mapping)) {
    const types = MAPPABLE_FIELDS[field];
    if (!types) {
      problems.push(
        `${field} is not a mappable alert field (one of ${Object.keys(MAPPABLE_FIELDS).join(', ')})`,
      );
      continue;
    }
    if (!isObject(entry) || !Array.isArray(entry.path) || entry.path.length === 0) {
      problems.push(`${field}.path must be a non-empty array of keys and indices`);
      continue;
    }
    if (
      !entry.path.every(
        (k) => typeof k === 'string' || (typeof k === 'number' && Number.isInteger(k) && k >= 0),
      )
    ) {
      problems.push(`${field}.path may hold only strings and array indices`);
    }
    if (typeof entry.type !== 'string' || !types.includes(entry.type as MappingType)) {
      problems.push(`${field}.type must be one of ${types.join(', ')}`);
    }
    const keys =
      field === 'status' ? ['path', 'type', 'label', 'resolved_values'] : ['path', 'type', 'label'];
    const extra = Object.keys(entry).filter((k) => !keys.includes(k));
    if (extra.length > 0) problems.push(`${field} has unknown keys: ${extra.join(', ')}`);
    if (field === 'status') problems.push(...resolvedValuesProblems(entry.resolved_values));
    if (entry.label !== undefined && entry.label !== null && typeof entry.label !== 'string') {
      problems.push(`${field}.label must be a string`);
    }
  }
  return problems;
}

/** `status.resolved_values`: 1 to 50 non-blank strings of at most 255 characters. */
function resolvedValuesProblems(v: unknown): string[] {
  if (
    !Array.isArray(v) ||
    v.length === 0 ||
    v.length > 50 ||
    !v.every((e) => typeof e === 'string' && e.trim() !== '' && e.length <= 255)
  ) {
    return [
      'status.resolved_values must list 1 to 50 values (non-blank strings of at most 255 characters) that mean resolved',
    ];
  }
  return [];
}

// Parsers

/** Hosts: a string or an array, flattened; total length at most 255 (cut without ellipsis, as GitLab). */
function hosts(v: unknown): string[] {
  if (isBlank(v)) return [];
  const list = (Array.isArray(v) ? (v as unknown[]).flat(Number.POSITIVE_INFINITY) : [v])
    .filter((h) => !isBlank(h))
    .map((h) => (typeof h === 'string' ? h : JSON.stringify(h)));
  const out: string[] = [];
  let left = 255;
  for (const h of list) {
    if (left <= 0) break;
    out.push(h.slice(0, left));
    left -= h.length;
  }
  return out;
}

/**
 * Parses a generic (HTTP Endpoint) payload. With a mapping, mapped fields are read by path and a missing or
 * blank mapped value falls back to the default top-level field. `autoFingerprint`: Premium and the flag.
 */
export function parseGeneric(
  payload: unknown,
  opts: { mapping: PayloadMapping | null; autoFingerprint: boolean; now: Date },
): ParsedAlert {
  if (!isObject(payload)) throw new PayloadShapeError('The payload must be a JSON object');
  const get = (field: string, fallbackKey = field): unknown => {
    const m = opts.mapping?.[field];
    if (m) {
      const v = readPath(payload, m.path);
      if (!isBlank(v)) return v;
    }
    return payload[fallbackKey];
  };
  const tool = readTool(payload);
  const endTime = payloadTime(get('end_time'), 'end_time');
  const resolves = endTime !== null || statusResolves(payload, opts.mapping, tool?.resolves ?? false);
  const explicit = explicitFingerprint(get('fingerprint')) ?? explicitFingerprint(tool?.identity);
  return {
    title: truncate(str(get('title'))?.trim() || tool?.title || 'New: Alert', 200),
    description: mapNull(str(get('description')), (d) => truncate(d, 1000)),
    severity: genericSeverity(get('severity')),
    startedAt: payloadTime(get('start_time'), 'start_time') ?? opts.now.toISOString(),
    endedAt: resolves ? (endTime ?? opts.now.toISOString()) : null,
    resolves,
    fingerprint: explicit ?? (opts.autoFingerprint ? automaticFingerprint(payload) : null),
    hosts: hosts(get('hosts')),
    service: mapNull(str(get('service')), (s) => truncate(s, 100)),
    monitoringTool: mapNull(str(get('monitoring_tool')) ?? tool?.tool ?? null, (s) => truncate(s, 100)),
    environment: str(get('svc_environment_name')),
    // Prometheus' common annotation name besides the spec's.
    runbook: str(payload.runbook) ?? str(payload.runbook_url),
    incidentMarkdown: str(payload.svc_incident_markdown),
    metric: null,
    payload,
  };
}

const mapNull = <T, U>(v: T | null, f: (v: T) => U): U | null => (v === null ? null : f(v));

/**
 * Whether a generic payload's status says it recovered: the mapped status field against its resolved values when
 * the payload has it; otherwise a top-level `status` of `resolved` (any case) or the sending tool's own recovery
 * field (see readTool).
 */
function statusResolves(payload: JsonObject, mapping: PayloadMapping | null, toolResolves: boolean): boolean {
  const m = mapping?.status;
  if (m) {
    const v = readPath(payload, m.path);
    if (!isBlank(v)) return isResolvedValue(v, m.resolved_values ?? []);
  }
  const status = payload.status;
  return (typeof status === 'string' && status.trim().toLowerCase() === 'resolved') || toolResolves;
}

/** The nine required top-level attributes of the metrics-alerting (Alertmanager) webhook format. */
export const PROMETHEUS_REQUIRED = [
  'alerts',
  'commonAnnotations',
  'commonLabels',
  'externalURL',
  'groupKey',
  'groupLabels',
  'receiver',
  'status',
  'version',
] as const;

/** The `g0.expr` query parameter of a generatorURL (spec; the example payload spells it generatorURL). */
export function generatorQuery(url: unknown): string | null {
  if (typeof url !== 'string' || url === '') return null;
  try {
    return new URL(url).searchParams.get('g0.expr');
  } catch {
    return null;
  }
}

/**
 * Parses a metrics-alerting payload into one alert per item; throws PayloadShapeError naming what is wrong with the
 * payload as a whole. An item that cannot be an alert (no title, no `startsAt`, a time out of range) is skipped
 * and described through `skip`, as GitLab skips invalid items and creates the others; when no item is valid, or
 * without `skip`, the first problem is thrown.
 */
export function parsePrometheus(
  payload: unknown,
  opts: {
    mapping: PayloadMapping | null;
    now: Date;
    maxAlerts?: number;
    skip?: (problem: string) => void;
    /** Grafana Alerting's webhook (see isGrafanaPayload): the rule title before the summary, tool Grafana. */
    grafana?: boolean;
  },
): ParsedAlert[] {
  if (!isObject(payload))
    throw new PayloadShapeError('The payload must be a JSON object in the Alertmanager webhook format');
  const missing = PROMETHEUS_REQUIRED.filter((k) => !(k in payload));
  if (missing.length > 0) {
    throw new PayloadShapeError(`The Alertmanager payload is missing ${missing.join(', ')}`);
  }
  if (!Array.isArray(payload.alerts)) throw new PayloadShapeError('alerts must be an array');
  // Checked before any item is read: a flood of items is refused at once, never processed.
  const maxAlerts = opts.maxAlerts ?? DEFAULT_MAX_ALERTS;
  if (payload.alerts.length > maxAlerts) {
    throw new TooManyAlertsError(
      `The payload has ${payload.alerts.length} alerts; at most ${maxAlerts} are accepted per request ` +
        `(Alertmanager: set max_alerts: ${maxAlerts} in the webhook_config)`,
    );
  }
  const problems: PayloadShapeError[] = [];
  const alerts = payload.alerts.flatMap((item, index) => {
    try {
      return [prometheusItem(item, index, opts)];
    } catch (err) {
      if (!(err instanceof PayloadShapeError) || !opts.skip) throw err;
      problems.push(err);
      return [];
    }
  });
  // With nothing valid, nothing would be stored: the sender is told why (422) rather than answered 200 [].
  if (alerts.length === 0 && problems[0]) throw problems[0];
  for (const p of problems) opts.skip?.(p.message);
  return alerts;
}

/** One item of a metrics-alerting payload as an alert; PayloadShapeError when it cannot be one. */
function prometheusItem(
  item: unknown,
  index: number,
  opts: { mapping: PayloadMapping | null; now: Date; grafana?: boolean },
): ParsedAlert {
  if (!isObject(item)) throw new PayloadShapeError(`alerts[${index}] must be an object`);
  const annotations = isObject(item.annotations) ? item.annotations : {};
  const labels = isObject(item.labels) ? item.labels : {};
  const mapped = (field: string): unknown => {
    const m = opts.mapping?.[field];
    if (!m) return undefined;
    const v = readPath(item, m.path);
    return isBlank(v) ? undefined : v;
  };
  // A Grafana-managed rule's title is its alertname; its summary is a templated sentence that changes with values.
  const titleOrder = opts.grafana
    ? [annotations.title, labels.alertname, annotations.summary]
    : [annotations.title, annotations.summary, labels.alertname];
  const titleSource = mapped('title') ?? titleOrder.find((v) => !isBlank(v));
  const title = str(titleSource);
  if (title === null) {
    throw new PayloadShapeError(
      `alerts[${index}] needs annotations/title, annotations/summary or labels/alertname`,
    );
  }
  if (typeof item.startsAt !== 'string' || item.startsAt === '') {
    throw new PayloadShapeError(`alerts[${index}] needs startsAt`);
  }
  const query = generatorQuery(item.generatorURL ?? item.generatorUrl);
  const mappedStatus = mapped('status');
  const resolves =
    mappedStatus !== undefined
      ? isResolvedValue(mappedStatus, opts.mapping?.status?.resolved_values ?? [])
      : item.status === 'resolved';
  const startedAt = payloadTime(item.startsAt, `alerts[${index}].startsAt`);
  // A firing item's endsAt is only Alertmanager's expected end (or Go's zero time): it is not read.
  const endedAt = resolves ? payloadTime(item.endsAt, `alerts[${index}].endsAt`) : null;
  const explicit = explicitFingerprint(mapped('fingerprint'));
  return {
    title: truncate(title.trim(), 200),
    description: mapNull(str(mapped('description') ?? annotations.description), (d) => truncate(d, 1000)),
    severity: prometheusSeverity(mapped('severity') ?? labels.severity),
    startedAt: startedAt ?? opts.now.toISOString(),
    endedAt: resolves ? (endedAt ?? opts.now.toISOString()) : null,
    resolves,
    fingerprint: explicit ?? prometheusIdentity(item.startsAt, title, query, item.fingerprint),
    hosts: hosts(mapped('hosts')),
    service: str(mapped('service')),
    monitoringTool: str(mapped('monitoring_tool')) ?? (opts.grafana ? 'Grafana' : 'Prometheus'),
    environment: str(mapped('svc_environment_name') ?? labels.svc_environment_name),
    runbook: str(annotations.runbook) ?? str(annotations.runbook_url),
    incidentMarkdown: str(annotations.svc_incident_markdown),
    metric: query === null ? null : { query, yLabel: yLabel(item) },
    payload: item,
  };
}

/**
 * The identity of a metrics-alerting alert within one firing episode. GitLab hashes startsAt, title and query;
 * Alertmanager also sends its own `fingerprint` (a hash of the label set), which stays the same when a resolve
 * notification blanks `generatorURL`, so it replaces title and query when present.
 */
export function prometheusIdentity(
  startsAt: string,
  title: string,
  query: string | null,
  amFingerprint: unknown,
): string {
  return typeof amFingerprint === 'string' && amFingerprint !== ''
    ? sha1(`${startsAt}/alertmanager:${amFingerprint}`)
    : sha1(`${startsAt}/${title}/${query ?? ''}`);
}

/** The y-axis label of a metrics-alerting alert (spec: svc_y_label, then the title sources). */
export function yLabel(item: unknown): string | null {
  if (!isObject(item)) return null;
  const a = isObject(item.annotations) ? item.annotations : {};
  const l = isObject(item.labels) ? item.labels : {};
  return str([a.svc_y_label, a.title, a.summary, l.alertname].find((v) => !isBlank(v)));
}

/**
 * Checks JSON text without building it: nesting depth of objects and arrays (strings skipped). Returns the
 * maximum depth reached, stopping early past `limit`.
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Parses payload text: JSON within MAX_PAYLOAD_DEPTH, else a PayloadTextError saying why. */
export function parsePayloadText(text: string): unknown {
  if (jsonDepth(text, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) throw payloadTooDeep();
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new PayloadTextError(`The payload is not valid JSON: ${(err as Error).message}`);
  }
}

/** The refusal of a payload nested deeper than MAX_PAYLOAD_DEPTH. */
export const payloadTooDeep = (): PayloadTextError =>
  new PayloadTextError(`The payload is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`);

/**
 * What an incident created later from a stored alert adds to its description (spec: the payload's
 * `svc_incident_markdown`, and the metric query): read again from the stored payload, which is the Alertmanager
 * item (annotations, generatorURL) or the generic payload (top-level attributes).
 */
export function storedIncidentExtras(payload: unknown): Pick<ParsedAlert, 'incidentMarkdown' | 'metric'> {
  if (!isObject(payload)) return { incidentMarkdown: null, metric: null };
  if (isObject(payload.annotations) && typeof payload.startsAt === 'string') {
    const query = generatorQuery(payload.generatorURL ?? payload.generatorUrl);
    return {
      incidentMarkdown: str(payload.annotations.svc_incident_markdown),
      metric: query === null ? null : { query, yLabel: yLabel(payload) },
    };
  }
  return { incidentMarkdown: str(payload.svc_incident_markdown), metric: null };
}
