import type { Clock } from '../clock.js';
import { LocalRateCounter, type RateCounter } from '../cluster/rate-counter.js';
import { safeEqual } from '../crypto.js';
import { badRequest, forbidden, notFound, tooManyRequests, unauthorized } from '../errors.js';
import type { Ingest, IngestUnit, Pause } from '../ingest/ingest.js';
import type { IssuesService } from '../issues/issues.service.js';
import { AccessLevel } from '../members/members.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import { TtlCache } from '../ttl-cache.js';
import type { User } from '../users/users.js';
import {
  MAX_PAYLOAD_DEPTH,
  type ParsedAlert,
  PayloadTextError,
  parseGeneric,
  parsePayloadText,
  parsePrometheus,
  payloadTooDeep,
} from './alerts.js';
import type { AlertsRepository } from './alerts.repository.js';
import type { HeartbeatsService } from './heartbeats.service.js';
import { incidentDescription } from './incident.js';
import type { IntegrationsService, IntegrationView } from './integrations.service.js';
import { isAlertmanagerPayload, isGrafanaPayload } from './monitoring-tools.js';

const ALERT_BOT = null;

/** What the notify endpoints answer: one element per alert created, incremented or resolved. */
export interface IntakeResult {
  readonly iid: number;
  readonly title: string;
}

/**
 * Writes one parsed alert (or its recovery) of a project in the caller's transaction, by the intake's state
 * table: what svc raises itself (missed heartbeats, cron monitors) takes the same path as a payload.
 */
export type AlertWrite = (
  unit: IngestUnit,
  projectId: number,
  integrationId: number | null,
  parsed: ParsedAlert,
  source: string,
) => Promise<IntakeResult | null>;

/** A payload's outcome: the alerts it created, incremented or resolved, and the items skipped as invalid. */
export interface IntakeOutcome {
  readonly alerts: IntakeResult[];
  readonly skipped: readonly string[];
}

/**
 * How long a notify URL's project and integration are reused without reading the database. Changes made through
 * this process (key reset, deactivation, deletion, project changes) clear the cache at once; with several
 * processes on one PostgreSQL database, another process's change applies within this time.
 */
const RESOLVE_CACHE_MS = 1000;
/** The longest notify path that cache keeps (longer ones are looked up every time). */
const RESOLVE_CACHE_MAX_KEY = 512;

type Resolved = { project: Project; integration: IntegrationView | null } | null;

/**
 * A project's alert settings changed (`send_email`: whether anything listens to its alerts). Who is told about a
 * new or resolved alert is not here: intake and status changes write an `alert.changed` outbox event, and the
 * composition root registers its handlers (notifications, escalation, search index; src/ingest/outbox.ts).
 */
export interface AlertNotifier {
  settingsChanged(): Promise<void>;
}

/** Alert intake: authenticates a notify request, parses the payload and applies the spec's alert state table. */
export class IntakeService {
  private readonly resolved: TtlCache<string, Resolved>;

  constructor(
    private readonly repo: AlertsRepository,
    private readonly issues: Pick<IssuesService, 'createIncidentFor' | 'closeIncident'>,
    private readonly integrations: IntegrationsService,
    private readonly projects: ProjectsService,
    private readonly settings: SettingsService,
    private readonly access: Pick<Access, 'hasTier'>,
    private readonly clock: Clock,
    /**
     * The intake core: concurrent notify requests share one transaction (see `receive`), retried on a lost
     * unique-index race; the outbox events written in it are dispatched after commit.
     */
    private readonly writes: Ingest,
    /** Notifications per integration, counted after authentication (see `authenticate`); shared by processes. */
    private readonly rates: RateCounter = new LocalRateCounter(clock),
    cacheTtlMs = RESOLVE_CACHE_MS,
    /** Calls to heartbeat integrations and Watchdog alerts move their heartbeat's deadline. */
    private readonly heartbeats: Pick<HeartbeatsService, 'beat'> | null = null,
  ) {
    this.resolved = new TtlCache(clock, cacheTtlMs);
    const clear = () => this.invalidate();
    integrations.onChange(clear);
    projects.onChange(clear);
  }

  /** Forgets every cached notify URL (a project or integration changed, here or in another process). */
  invalidate(): void {
    this.resolved.clear();
  }

  /** The project and integration a notify URL names (cached briefly; see RESOLVE_CACHE_MS). */
  private resolve(projectPath: string, identifier: string | null): Promise<Resolved> {
    const key = `${projectPath}\n${identifier ?? ''}`;
    const lookup = async (): Promise<Resolved> => {
      const project = await this.projects.findForIntake(projectPath);
      if (!project) return null;
      const integration = await this.integrations.forIntake(project, identifier);
      return { project, integration };
    };
    // Bounded memory: unknown paths are cached too (they cost a lookup each), so long keys must not fill the
    // cache (a flood of distinct paths only makes it start over).
    if (key.length > RESOLVE_CACHE_MAX_KEY) return lookup();
    return this.resolved.get(key, lookup);
  }

  /**
   * One notify request: authenticates it and counts it against the throttle (see `authenticate`), then parses
   * the body (400 when it is empty, nested too deep or not JSON) and stores its alerts (see `receive`).
   */
  async notify(req: {
    readonly projectPath: string;
    readonly identifier: string | null;
    readonly key: string | null;
    readonly body: string;
    /** The heartbeat URL: only a heartbeat integration answers there (404 for the others). */
    readonly heartbeatOnly?: boolean;
  }): Promise<IntakeOutcome & { readonly integrationId: number }> {
    const { project, integration } = await this.authenticate(req.projectPath, req.identifier, req.key);
    if (req.heartbeatOnly && integration.type !== 'heartbeat') throw notFound('Heartbeat');
    // A heartbeat's call is its arrival; whatever it carries (often nothing: `curl -X POST`) is not read.
    if (integration.type === 'heartbeat')
      return { alerts: await this.beat(project, integration), skipped: [], integrationId: integration.id };
    if (req.body.trim() === '') throw new PayloadTextError('The payload is empty');
    const outcome = await this.receive(project, integration, parsePayloadText(req.body));
    return { ...outcome, integrationId: integration.id };
  }

  /**
   * Resolves the integration of a notify URL and checks its key: unknown project 404, unknown or inactive
   * integration 403, missing or wrong key 401 (compared in constant time). Then, when the admin turned the
   * notification throttle on, counts the request against the integration (429 with Retry-After beyond): only
   * requests with the right key count, so strangers cannot lock out the sender, and every spelling of the URL
   * (name segment, `.json`, case, numeric project id) shares the integration's one counter.
   */
  private async authenticate(
    projectPath: string,
    identifier: string | null,
    key: string | null,
  ): Promise<{ project: Project; integration: IntegrationView }> {
    const resolved = await this.resolve(projectPath, identifier);
    if (!resolved) throw notFound('Project');
    const { project, integration } = resolved;
    if (!integration?.effectiveActive) throw forbidden();
    if (key === null || !safeEqual(key, integration.authorizationKey)) throw unauthorized();
    await this.checkThrottle(integration);
    return { project, integration };
  }

  private async checkThrottle(integration: IntegrationView): Promise<void> {
    const settings = await this.settings.get();
    if (!settings.throttle_incident_management_notification_enabled) return;
    const wait = await this.rates.hit(
      `alert-notify:${integration.id}`,
      1,
      settings.throttle_incident_management_notification_per_period,
      settings.throttle_incident_management_notification_period_in_seconds,
    );
    if (wait > 0) throw tooManyRequests(wait, 'Retry later');
  }

  /**
   * Sends a test alert through an integration (at least Developer): the payload is processed as if the monitoring
   * tool had sent it. Text bodies are parsed here (400 when not JSON); JSON bodies arrive parsed.
   */
  async test(
    actor: User | null,
    idOrPath: string,
    integrationId: number,
    body: unknown,
  ): Promise<IntakeResult[]> {
    const project = await this.integrations.project(actor, idOrPath, AccessLevel.Developer);
    const integration = await this.integrations.view(project, integrationId);
    if (integration.type === 'oncall_link') throw badRequest('The on-call tool link does not take alerts');
    if (!integration.effectiveActive) throw forbidden('The integration is not active');
    if (integration.type === 'heartbeat') return this.beat(project, integration);
    const payload = typeof body === 'string' ? parsePayloadText(body) : body;
    if (payload === undefined || payload === null) throw badRequest('The test payload is empty');
    if (valueDepth(payload, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) throw payloadTooDeep();
    return (await this.receive(project, integration, payload)).alerts;
  }

  /** A call to a heartbeat integration: the alerts it resolved (a heartbeat that was missed comes back). */
  private async beat(project: Project, integration: IntegrationView): Promise<IntakeResult[]> {
    const heartbeats = this.heartbeats;
    if (!heartbeats) return [];
    const r = await this.writes.submit((unit) =>
      heartbeats.beat(unit, project.id, integration.id, integration.name),
    );
    return r ? [{ iid: r.iid, title: r.title }] : [];
  }

  /** See AlertWrite. */
  readonly apply: AlertWrite = (unit, projectId, integrationId, parsed, source) =>
    this.processOne(unit, { id: projectId }, integrationId, parsed, source);

  /**
   * Parses and stores a payload for an integration; a PayloadShapeError (422) for the wrong shape, a
   * TooManyAlertsError (413) for more alerts than the `incident_management_notification_max_alerts` setting
   * allows. Nothing is stored on error. Items of an Alertmanager payload that cannot be alerts are skipped, the
   * others stored (as GitLab).
   */
  private async receive(
    project: Project,
    integration: IntegrationView,
    payload: unknown,
  ): Promise<IntakeOutcome> {
    const now = this.clock.now();
    const mapping =
      this.access.hasTier('alert_field_mapping') &&
      Object.keys(integration.payloadAttributeMapping).length > 0
        ? integration.payloadAttributeMapping
        : null;
    let parsed: ParsedAlert[];
    const skipped: string[] = [];
    const object = typeof payload === 'object' && payload !== null && !Array.isArray(payload);
    const grafana = object && isGrafanaPayload(payload as Record<string, unknown>);
    // Grafana's webhook on either integration: one alert per entry, as the metrics-alerting format.
    if (integration.type === 'prometheus' || grafana) {
      const maxAlerts = (await this.settings.get()).incident_management_notification_max_alerts;
      parsed = parsePrometheus(payload, {
        mapping,
        now,
        maxAlerts,
        skip: (problem) => skipped.push(problem),
        grafana,
      });
    } else {
      // Stored as one alert, as GitLab does; the owner is told (once) to use a Prometheus integration.
      if (object && isAlertmanagerPayload(payload as Record<string, unknown>)) {
        await this.integrations.recordWarning(integration, 'alertmanager_payload');
      }
      // Spec: automatic grouping needs Premium or Ultimate and the flag (on unless an admin turns it off).
      const autoFingerprint =
        this.access.hasTier('alert_auto_grouping') &&
        (await this.settings.isEnabled('generic_alert_fingerprinting', project.id, true));
      parsed = [parseGeneric(payload, { mapping, autoFingerprint, now })];
    }
    const source = integration.type === 'prometheus' ? integration.name || 'Prometheus' : null;
    // The Watchdog (an always-firing alert marked as the integration's heartbeat) is a call, not an alert: stored,
    // it would stay open for ever and page whoever its escalation names.
    const watchdog = integration.heartbeat?.alertname ?? null;
    let beats = false;
    if (watchdog !== null && this.heartbeats) {
      const isWatchdog = (p: ParsedAlert) => alertnameOf(p.payload) === watchdog;
      beats = parsed.some((p) => isWatchdog(p) && !p.resolves);
      parsed = parsed.filter((p) => !isWatchdog(p));
    }
    const heartbeats = beats ? this.heartbeats : null;
    // Group commit: the items of requests that arrive together are written in one transaction, and each request
    // is answered once it committed (a 200 means every alert of it is stored; an error stores none of it).
    return this.writes.submit(async (unit, pause) => {
      const resolved = heartbeats
        ? await heartbeats.beat(unit, project.id, integration.id, integration.name)
        : null;
      const out = await this.write(unit, pause, project, integration, parsed, source, skipped);
      return resolved
        ? { ...out, alerts: [{ iid: resolved.iid, title: resolved.title }, ...out.alerts] }
        : out;
    });
  }

  /** The one place an accepted payload is written: its items in order, inside the caller's transaction. */
  private async write(
    unit: IngestUnit,
    pause: Pause,
    project: Project,
    integration: IntegrationView,
    parsed: readonly ParsedAlert[],
    source: string | null,
    skipped: readonly string[],
  ): Promise<IntakeOutcome> {
    const out: IntakeResult[] = [];
    for (const p of parsed) {
      await pause();
      const r = await this.processOne(
        unit,
        project,
        integration.id,
        p,
        p.monitoringTool ?? source ?? integration.name,
      );
      if (r) out.push({ iid: r.iid, title: r.title });
    }
    return { alerts: out, skipped };
  }

  private async processOne(
    { trx, outbox }: IngestUnit,
    project: Pick<Project, 'id'>,
    integrationId: number | null,
    p: ParsedAlert,
    source: string,
  ): Promise<IntakeResult | null> {
    const now = this.clock.now().toISOString();
    if (p.fingerprint && !p.resolves) {
      // Spec: a repeat of an open alert increases its occurrence counter; nothing else changes.
      const repeated = await this.repo.incrementOpen(trx, project.id, p.fingerprint, now);
      if (repeated) return repeated;
    }
    const open =
      p.fingerprint && p.resolves ? await this.repo.openAlert(trx, project.id, p.fingerprint) : null;
    if (open) {
      await this.repo.addNote(trx, open.id, `logged a recovery alert from **${source}**`, ALERT_BOT, now);
      await this.repo.setStatus(trx, open.id, 'resolved', p.endedAt ?? now, now);
      await this.repo.addNote(trx, open.id, 'changed the status to **Resolved**', ALERT_BOT, now);
      const settings = await this.repo.settings(project.id, trx);
      if (settings.autoCloseIncident && open.incidentIid !== null) {
        await this.issues.closeIncident(trx, project.id, open.incidentIid, now);
        await outbox.add('incident.changed', {
          projectId: project.id,
          iid: open.incidentIid,
          event: 'closed',
          at: now,
        });
      }
      // After commit: its notifications and the end of its escalation (handlers registered in src/context.ts).
      await outbox.add('alert.changed', {
        projectId: project.id,
        alertId: open.id,
        iid: open.iid,
        event: 'resolved',
        at: now,
      });
      return open;
    }
    // A recovery with no open alert has nothing to resolve; it is acknowledged with no element.
    if (p.resolves) return null;
    const alert = await this.repo.createAlert(
      trx,
      { ...p, projectId: project.id, integrationId },
      `logged an alert from **${source}**`,
      now,
    );
    const settings = await this.repo.settings(project.id, trx);
    if (settings.createIncident) {
      const incident = await this.issues.createIncidentFor(
        trx,
        {
          projectId: project.id,
          title: alert.title,
          description: incidentDescription(alert, p),
          author: null,
          severity: alert.severity,
        },
        now,
      );
      await this.repo.linkIncident(trx, alert.id, incident.iid);
      await outbox.add('incident.changed', {
        projectId: project.id,
        iid: incident.iid,
        event: 'new',
        at: now,
      });
    }
    // After commit: its notifications, its escalation pages and its search indexing (handlers in src/context.ts).
    await outbox.add('alert.changed', {
      projectId: project.id,
      alertId: alert.id,
      iid: alert.iid,
      event: 'new',
      at: now,
    });
    return alert;
  }
}

/** The `labels.alertname` of an Alertmanager item. */
function alertnameOf(payload: unknown): string | null {
  const labels = (payload as { labels?: unknown } | null)?.labels;
  const name =
    typeof labels === 'object' && labels !== null ? (labels as { alertname?: unknown }).alertname : null;
  return typeof name === 'string' ? name : null;
}

/** Nesting depth of a parsed JSON value (objects and arrays), without recursion; stops early past `limit`. */
export function valueDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}
