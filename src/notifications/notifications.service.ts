import type { InstancePolicy } from '../access/access.policy.js';
import type { Alert } from '../alerts/alerts.js';
import type { AlertsService } from '../alerts/alerts.service.js';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import type { TrackedError } from '../error-tracking/error-tracking.js';
import type { ErrorTrackingService } from '../error-tracking/error-tracking.service.js';
import type { ProjectEvent } from '../ingest/outbox.js';
import type { Job, JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService } from '../members/members.service.js';
import type { OutboundHttp } from '../outbound.js';
import { type DeliveryKind, type PostResult, postJson, runDelivery } from '../outbound-delivery.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SilencesService } from '../silences/silences.service.js';
import { TtlCache } from '../ttl-cache.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import { GITLAB_EVENT_HEADERS, type HookDataBuilder, isTagRef } from './hook-data.js';
import type { Mailer } from './mailer.js';
import {
  type AlertEventType,
  branchFilterPasses,
  type EmailStatus,
  type ErrorEventType,
  type ErrorRule,
  type HookDelivery,
  type HookPayload,
  type NotificationEmail,
  type ObjectKind,
  type ProjectHook,
  renderEmail,
} from './notifications.js';
import type { NotificationsRepository } from './notifications.repository.js';

export const ALERT_EVENT_JOB = 'notify_alert_event';
export const ERROR_EVENT_JOB = 'notify_error_event';
export const SEND_EMAIL_JOB = 'notify_send_email';
export const HOOK_DELIVERY_JOB = 'notify_hook_delivery';
export const PROJECT_EVENT_JOB = 'notify_project_event';

/** The header that carries a hook's secret token (GitLab: X-Gitlab-Token). */
export const HOOK_TOKEN_HEADER = 'X-Svc-Token';
/** Attempts per e-mail before it is recorded as failed (the job queue's backoff between them). */
export const EMAIL_MAX_ATTEMPTS = 5;

/** Whether a hook sends now: not disabled, nor temporarily disabled. */
export function hookExecutable(hook: ProjectHook, now: Date): boolean {
  return (
    !hook.disabledReason && (hook.disabledUntil === null || Date.parse(hook.disabledUntil) <= now.getTime())
  );
}

/** The most response body bytes read from a hook receiver. */
const HOOK_MAX_RESPONSE = 64 * 1024;

/**
 * The level an e-mail's recipient needs when it is sent: alerts, escalation pages and errors are all read at
 * Reporter (the alert and error tracking APIs).
 */
const RECIPIENT_MIN_LEVEL = AccessLevel.Reporter;

/** The reason recorded on e-mails when no SMTP server is configured. */
export const NO_SMTP_REASON = 'SMTP is not configured: set SVC_SMTP_URL (and SVC_EMAIL_FROM) to send e-mail';

/** A transaction to enqueue in (the caller's: intake, status change). */

/** Builds webhook payload objects as the API shows them (implemented in src/api; a port here). */
export interface PayloadPresenter {
  alert(alert: Alert): unknown;
  error(error: TrackedError): unknown;
}

/** What a page is about: an alert (its escalation), or an incident paged by hand. */
export type PagedSubject =
  | { readonly kind: 'alert'; readonly alert: Alert }
  | {
      readonly kind: 'incident';
      readonly incident: {
        readonly id: number;
        readonly iid: number;
        readonly title: string;
        readonly severity: string;
        readonly escalationStatus: string | null;
        readonly state: string;
        readonly createdAt: string;
      };
    };

/** An escalation page: whom to page, under which keys, and what the webhook event tells. */
export interface AlertPage {
  readonly project: Project;
  readonly subject: PagedSubject;
  /**
   * `page:<alertId>:<ruleId>` (`page:i<issueId>:...` for an incident): e-mails are keyed `<keyBase>:<userId>`,
   * deliveries `<keyBase>:hook:<hookId>`.
   */
  readonly keyBase: string;
  readonly recipients: readonly { id: number; email: string; username: string }[];
  /** What the payload tells about the rule and its targets (docs/api.md: "Escalation policies"). */
  readonly escalation: Record<string, unknown>;
  readonly policyName: string;
  /**
   * A new one-use acknowledge link for the person paged (`userId`), or for whoever opens the webhook's (null),
   * made in the page's transaction (so it exists exactly when the page does).
   */
  acknowledgeUrl(trx: UnitOfWork, userId: number | null): Promise<string>;
  /** Runs in the page's transaction, with the people newly paged (none when the page was recorded before). */
  recorded?(trx: UnitOfWork, paged: readonly { id: number; username: string }[]): Promise<void>;
}

/** What this service reads of other features (ports, wired in the composition root). */
export interface NotificationSources {
  projects: Pick<ProjectsService, 'findById'>;
  /** Recipients: a project's members at a level, inherited ones included. */
  members: Pick<MembersService, 'membersAtLeast'>;
  alerts: Pick<AlertsService, 'alertForSystem' | 'sendsEmail'>;
  /** The silences of an alert when its notifications are sent: a silenced alert e-mails and calls nobody. */
  silences: Pick<SilencesService, 'silencing'>;
  errors: Pick<ErrorTrackingService, 'errorForSystem'>;
  /**
   * A recipient as the access policy sees them now: their state and level in the project (through groups too);
   * null when the user no longer exists.
   */
  recipient(userId: number, project: Project): Promise<{ blocked: boolean; level: number } | null>;
}

interface AlertEventJob {
  projectId: number;
  iid: number;
  event: AlertEventType;
  /** Set on a new alert's notifications held by a silence or maintenance window until it ends. */
  held?: boolean;
}

/** The unique key prefix of held alert notifications (one job per alert and release time). */
const HELD_PREFIX = 'alert-held:';
interface ErrorEventJob {
  projectId: number;
  errorId: number;
  event: ErrorEventType;
  /** When the error regressed (names the regression, so that each one notifies once). */
  at?: string;
}

/**
 * Tells people: alert e-mails (`send_email`), error rule e-mails and webhook deliveries. Intake and status changes
 * only enqueue one job in their own transaction (`alertChanged`, `errorRecorded`); the worker fans it out into
 * recorded e-mails and deliveries, each sent by its own job with retries. Sending is at least once: a crash
 * after the SMTP server or the receiver accepted and before the row says so sends that one again.
 */
export class NotificationsService {
  /** Which error rule triggers each project has (the collector asks per event; see `errorRecorded`). */
  private readonly ruleTriggers: TtlCache<number, ReadonlySet<string>>;
  /** Whether anything listens to each project's alerts (intake asks per new or resolved alert; see `alertChanged`). */
  private readonly alertListeners: TtlCache<number, boolean>;
  /** The GitLab event flags some hook of each project has on (pushes, merge requests and notes ask). */
  private readonly hookFlags: TtlCache<number, ReadonlySet<string>>;
  private readonly changeListeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly repo: NotificationsRepository,
    private readonly jobs: JobQueue,
    private readonly mailer: Mailer | null,
    private readonly presenter: PayloadPresenter,
    private readonly sources: NotificationSources,
    private readonly http: OutboundHttp,
    private readonly cipher: Cipher,
    private readonly access: InstancePolicy<User>,
    private readonly clock: Clock,
    private readonly externalUrl: string,
    private readonly hookData: HookDataBuilder,
  ) {
    this.ruleTriggers = new TtlCache(clock, 1000);
    this.alertListeners = new TtlCache(clock, 1000);
    this.hookFlags = new TtlCache(clock, 1000);
    jobs.register(PROJECT_EVENT_JOB, (job) => this.fanOutProjectEvent(job.payload as ProjectEvent), 'urgent');
    jobs.register(ALERT_EVENT_JOB, (job) => this.fanOutAlert(job.payload as AlertEventJob), 'urgent');
    jobs.register(ERROR_EVENT_JOB, (job) => this.fanOutError(job.payload as ErrorEventJob), 'urgent');
    jobs.register(SEND_EMAIL_JOB, (job) => this.sendEmail(job), 'urgent');
    // Deliveries have a lane of their own: a receiver that never answers must not hold e-mails and pages.
    jobs.register(HOOK_DELIVERY_JOB, (job) => this.deliver(job), 'hooks');
  }

  /**
   * A silence or maintenance window of the project changed or ended early: its held alert notifications are
   * checked again now (those still silenced are held again until the new end).
   */
  async silencesChanged(projectId: number): Promise<void> {
    await this.repo.releaseHeld(`${HELD_PREFIX}%`, projectId, this.clock.now().toISOString());
    this.jobs.wake();
  }

  /** Calls `fn` after rules, hooks or `send_email` changed (the composition root tells the other processes). */
  onChange(fn: () => void | Promise<void>): void {
    this.changeListeners.push(fn);
  }

  /** Forgets who listens (rules, hooks or `send_email` changed, here or in another process). */
  invalidate(): void {
    this.ruleTriggers.clear();
    this.alertListeners.clear();
    this.hookFlags.clear();
  }

  /** Error rules, webhooks or a project's `send_email` changed in this process: applies at once everywhere. */
  async listenersChanged(): Promise<void> {
    this.invalidate();
    for (const fn of this.changeListeners) await fn();
  }

  // Producers: one job in the caller's transaction.

  /**
   * Whether anything listens to the project's alerts (a cached lookup, asked in the caller's transaction: on
   * SQLite a query outside it would wait for it forever). Intake writes no outbox row when nothing does.
   */
  listensToAlerts(trx: UnitOfWork, projectId: number): Promise<boolean> {
    return this.alertListeners.get(projectId, () => this.repo.hasAlertListeners(projectId, trx));
  }

  /**
   * Whether an error event concerns anyone (cached, as `listensToAlerts`): a new error or a regression concerns the
   * project's hooks with `error_tracking_events` and its `new` / `regression` rules; any event, its threshold rules.
   */
  async wantsErrorEvent(
    trx: UnitOfWork,
    projectId: number,
    what: { created: boolean; regressedAt: string | null },
  ): Promise<boolean> {
    const triggers = await this.errorTriggers(trx, projectId);
    const hooks = (what.created || what.regressedAt !== null) && (await this.errorHooksOn(trx, projectId));
    return (
      hooks ||
      (what.created && triggers.has('new')) ||
      (what.regressedAt !== null && triggers.has('regression')) ||
      triggers.has('threshold')
    );
  }

  /** Whether any hook of the project has `error_tracking_events` (cached with the other hook flags). */
  private async errorHooksOn(trx: UnitOfWork, projectId: number): Promise<boolean> {
    return (await this.hookFlagsOf(trx, projectId)).has('error_tracking_events');
  }

  private errorTriggers(trx: UnitOfWork, projectId: number): Promise<ReadonlySet<string>> {
    return this.ruleTriggers.get(projectId, async () => {
      // Inside the caller's transaction: on SQLite a query outside it would wait for it forever.
      const rules = await this.repo.rules(projectId, trx);
      return new Set(rules.map((r) => r.trigger));
    });
  }

  /**
   * An alert was created (`new`) or resolved: enqueues its notifications in the caller's transaction, when anything
   * listens (a cached lookup; a project without `send_email` or alert webhooks costs no job).
   */
  async alertChanged(trx: UnitOfWork, projectId: number, iid: number, event: AlertEventType): Promise<void> {
    if (!(await this.listensToAlerts(trx, projectId))) return;
    await this.jobs.enqueue(ALERT_EVENT_JOB, { projectId, iid, event } satisfies AlertEventJob, { trx });
  }

  /**
   * The collector recorded an event of an error: enqueues the rule checks it can trigger, in the collector's
   * transaction. Projects without rules cost one cached lookup; threshold checks of one error coalesce into one
   * pending job.
   */
  async errorRecorded(
    trx: UnitOfWork,
    projectId: number,
    errorId: number,
    what: { created: boolean; regressedAt: string | null },
  ): Promise<void> {
    const triggers = await this.errorTriggers(trx, projectId);
    const hooks = (what.created || what.regressedAt !== null) && (await this.errorHooksOn(trx, projectId));
    if (triggers.size === 0 && !hooks) return;
    const enqueue = (event: ErrorEventType, extra: { at?: string; uniqueKey?: string } = {}) =>
      this.jobs.enqueue(
        ERROR_EVENT_JOB,
        { projectId, errorId, event, ...(extra.at && { at: extra.at }) } satisfies ErrorEventJob,
        { trx, ...(extra.uniqueKey && { uniqueKey: extra.uniqueKey }) },
      );
    if (what.created && (hooks || triggers.has('new'))) await enqueue('new');
    if (what.regressedAt !== null && (hooks || triggers.has('regression')))
      await enqueue('regression', { at: what.regressedAt });
    if (triggers.has('threshold')) await enqueue('threshold', { uniqueKey: `error-threshold:${errorId}` });
  }

  /** The hook flag a project event needs (GitLab's: a tag push needs `tag_push_events`, an internal note ...). */
  private flagOf(e: ProjectEvent): string {
    if (e.kind === 'push') return isTagRef(e.update.ref) ? 'tag_push_events' : 'push_events';
    if (e.kind === 'merge_request') return 'merge_requests_events';
    return e.note.internal ? 'confidential_note_events' : 'note_events';
  }

  private hookFlagsOf(trx: UnitOfWork, projectId: number): Promise<ReadonlySet<string>> {
    // Inside the caller's transaction: on SQLite a query outside it would wait for it forever.
    return this.hookFlags.get(projectId, () => this.repo.hookFlagsOn(projectId, trx));
  }

  /**
   * Whether some hook of the project has the flag a push, merge request or note event needs (a cached lookup in the
   * writer's transaction): a project without such a hook gets no outbox row for it.
   */
  async wantsProjectEvent(trx: UnitOfWork, e: ProjectEvent): Promise<boolean> {
    return (await this.hookFlagsOf(trx, e.projectId)).has(this.flagOf(e));
  }

  /** A project event committed: its fan-out job, in the outbox handler's transaction. */
  async projectEvent(trx: UnitOfWork, e: ProjectEvent): Promise<void> {
    await this.jobs.enqueue(PROJECT_EVENT_JOB, e, { trx });
  }

  /**
   * One delivery per hook that has the event's flag (and, for a branch push, whose branch filter passes), with
   * GitLab's payload built once; keyed by the event, so a fan-out that runs again adds nothing.
   */
  private async fanOutProjectEvent(e: ProjectEvent): Promise<void> {
    const project = await this.sources.projects.findById(e.projectId);
    if (!project) return;
    const flag = this.flagOf(e);
    const hooks = (await this.repo.hooks(project.id)).filter(
      (h) =>
        (flag === 'confidential_note_events'
          ? h.confidentialNoteEvents === true
          : h.events[flag as keyof typeof h.events]) &&
        (e.kind !== 'push' || branchFilterPasses(h, e.update.ref)) &&
        this.executable(h),
    );
    if (hooks.length === 0) return;
    const payload = await this.hookData.build(project, e);
    if (!payload) return;
    await this.record(
      project.id,
      [],
      null,
      hooks.map((h) => ({ hook: h, key: `${e.kind}:${e.eventId}:hook:${h.id}` })),
      payload,
    );
  }

  // Fan-out jobs

  private pageUrl(kind: ObjectKind, project: Project, id: number): string {
    return `${this.externalUrl}/-/ui/projects/${project.id}/${kind === 'alert' ? 'alerts' : 'errors'}/${id}`;
  }

  private projectRef(project: Project): HookPayload['project'] {
    return {
      id: project.id,
      name: project.name,
      path_with_namespace: project.fullPath,
      web_url: `${this.externalUrl}/${project.fullPath}`,
    };
  }

  private async fanOutAlert(j: AlertEventJob): Promise<void> {
    const project = await this.sources.projects.findById(j.projectId);
    const alert = project && (await this.sources.alerts.alertForSystem(project.id, j.iid));
    if (!project || !alert) return;
    // Asked now, not when the alert came: a silence made meanwhile holds these back too.
    const silencing = await this.sources.silences.silencing(project.id, alert);
    if (silencing.length > 0) {
      // A new alert's e-mails and hooks wait for the end of what silences it (or until it changes: see
      // `silencesChanged`). What is released then is keyed as if sent at once, so it goes out once at most.
      if (j.event === 'new' && alert.status === 'triggered') {
        const end = new Date(Math.max(...silencing.map((s) => new Date(s.endsAt).getTime())));
        await this.jobs.enqueue(ALERT_EVENT_JOB, { ...j, held: true } satisfies AlertEventJob, {
          runAt: end,
          // A held job held again gets another key than its own (its row goes only when it returns).
          uniqueKey: `${HELD_PREFIX}${alert.id}:${end.getTime()}${j.held ? `:${this.clock.now().getTime()}` : ''}`,
        });
      }
      return;
    }
    // Released: only an alert that still fires is told about (resolved or acknowledged meanwhile, it is not).
    if (j.held && alert.status !== 'triggered') return;
    const url = this.pageUrl('alert', project, alert.iid);
    const keyBase = `alert:${alert.id}`;
    let recipients: { id: number; email: string }[] = [];
    // One e-mail per new alert; on recovery, one only for an alert that was e-mailed about (a paged alert).
    if (
      (await this.sources.alerts.sendsEmail(project.id)) &&
      (j.event === 'new' || (await this.repo.anyEmailKey(`${keyBase}:new:`)))
    ) {
      recipients = await this.sources.members.membersAtLeast(project, AccessLevel.Maintainer);
    }
    const verb = j.event === 'new' ? 'Alert triggered' : 'Alert resolved';
    const mail = renderEmail(
      `${project.fullPath} | ${verb}: ${alert.title}`,
      `${verb} in ${project.fullPath}: ${alert.title}`,
      [
        ['Alert', `#${alert.iid}`],
        ['Severity', alert.severity],
        ['Status', alert.status],
        ['Start time', alert.startedAt],
        ...(alert.endedAt ? ([['End time', alert.endedAt]] as const) : []),
        ...(alert.service ? ([['Service', alert.service]] as const) : []),
        ...(alert.monitoringTool ? ([['Monitoring tool', alert.monitoringTool]] as const) : []),
        ['Events', String(alert.events)],
      ],
      { url, label: 'View the alert' },
    );
    const payload: HookPayload = {
      object_kind: 'alert',
      event_type: j.event,
      project: this.projectRef(project),
      object_attributes: this.presenter.alert(alert),
      url,
    };
    const hooks = (await this.repo.hooks(project.id)).filter((h) => h.alertEvents && this.executable(h));
    await this.record(
      project.id,
      recipients.map((r) => ({ ...r, key: `${keyBase}:${j.event}:${r.id}` })),
      mail,
      hooks.map((h) => ({ hook: h, key: `${keyBase}:${j.event}:hook:${h.id}` })),
      payload,
    );
  }

  private async fanOutError(j: ErrorEventJob): Promise<void> {
    const project = await this.sources.projects.findById(j.projectId);
    const error = project && (await this.sources.errors.errorForSystem(project.id, j.errorId));
    if (!project || !error) return;
    const now = this.clock.now();
    const url = this.pageUrl('error', project, error.id);
    const errorHooks = async () =>
      (await this.repo.hooks(project.id)).filter((h) => h.errorTrackingEvents && this.executable(h));
    // Hooks hear of every new error and every regression, rule or no rule: once per error and event (a regression
    // is named by when it regressed, and needs someone to resolve the error first). Rules' action intervals
    // throttle their e-mails, not the hooks.
    if (j.event === 'new' || j.event === 'regression') {
      const when = j.event === 'regression' ? `:${j.at ?? ''}` : '';
      const hooks = await errorHooks();
      if (hooks.length > 0)
        await this.record(
          project.id,
          [],
          null,
          hooks.map((h) => ({ hook: h, key: `error:${error.id}:${j.event}${when}:hook:${h.id}` })),
          {
            object_kind: 'error',
            event_type: j.event,
            project: this.projectRef(project),
            object_attributes: this.presenter.error(error),
            url,
          },
        );
    }
    const rules = (await this.repo.rules(project.id)).filter((r) => r.trigger === j.event);
    const firing: { rule: ErrorRule; key: string; count?: number }[] = [];
    for (const rule of rules) {
      let key: string;
      let count: number | undefined;
      if (rule.trigger !== 'threshold') {
        // A new error notifies once; each regression once (named by when it regressed).
        const when = rule.trigger === 'regression' ? `:${j.at ?? ''}` : '';
        key = `error:${error.id}:${j.event}${when}:rule:${rule.id}`;
      } else {
        const windowMs = (rule.thresholdMinutes ?? 1) * 60_000;
        count = await this.repo.eventsSince(error.id, new Date(now.getTime() - windowMs).toISOString());
        if (count < (rule.thresholdCount ?? 1)) continue;
        // At most once per rule, error and window of M minutes.
        const window = Math.floor(now.getTime() / windowMs);
        key = `error:${error.id}:threshold:${window}:rule:${rule.id}`;
      }
      // The action interval: at most once per rule and error in that many minutes, whatever fires it.
      const since = new Date(now.getTime() - rule.actionIntervalMinutes * 60_000).toISOString();
      if (!(await this.repo.claimFiring(rule.id, error.id, key, now.toISOString(), since))) continue;
      firing.push({ rule, key, ...(count !== undefined && { count }) });
    }
    if (firing.length === 0) return;
    // One e-mail per recipient and event however many rules fire (each rule's hooks are already one per event):
    // the first rule that names a user e-mails them.
    const mailed = new Set<number>();
    const title = error.title ?? `${error.type}: ${error.message}`;
    for (const f of firing) {
      const heading =
        f.rule.trigger === 'new'
          ? 'New error'
          : f.rule.trigger === 'regression'
            ? 'Regression: a resolved error occurred again'
            : `Error passed ${f.rule.thresholdCount} events in ${f.rule.thresholdMinutes} minutes`;
      const mail = renderEmail(
        `${project.fullPath} | ${heading}: ${title}`,
        `${heading} in ${project.fullPath}: ${title}`,
        [
          ['Error', title],
          ['Culprit', error.culprit],
          ['Events', String(f.count ?? error.count)],
          ['First seen', error.firstSeen],
          ['Last seen', error.lastSeen],
        ],
        { url, label: 'View the error' },
      );
      const recipients = (await this.repo.activeUsers(f.rule.recipientIds)).filter((r) => !mailed.has(r.id));
      for (const r of recipients) mailed.add(r.id);
      // New errors and regressions reached the hooks above; a threshold reaches them when its rule says so.
      const hooks = f.rule.trigger === 'threshold' && f.rule.webhook ? await errorHooks() : [];
      const payload: HookPayload = {
        object_kind: 'error',
        event_type: j.event,
        project: this.projectRef(project),
        object_attributes: this.presenter.error(error),
        url,
        ...(f.rule.trigger === 'threshold' && {
          threshold: { count: f.rule.thresholdCount, minutes: f.rule.thresholdMinutes, events: f.count },
        }),
      };
      // Two rules that fire on one event deliver one payload to each hook (the key names no rule).
      const hookKey = f.key.replace(/:rule:\d+$/, '');
      await this.record(
        project.id,
        recipients.map((r) => ({ ...r, key: `${f.key}:${r.id}` })),
        mail,
        hooks.map((h) => ({ hook: h, key: `${hookKey}:hook:${h.id}` })),
        payload,
      );
    }
  }

  /**
   * Pages people about an alert or incident (an escalation rule fired): one e-mail per recipient, keyed
   * `<keyBase>:<userId>`, and one `escalation` event per hook with `alert_events`, keyed `<keyBase>:hook:<hookId>`.
   * Each e-mail carries its recipient's own acknowledge link, and each webhook payload one (`acknowledge_url`: the
   * sole person paged, or nobody in particular when several or none were). The keys are unique: a page recorded
   * before a crash is not recorded (nor sent, nor given new links) again when its job runs again.
   */
  async page(p: AlertPage): Promise<void> {
    const { project, subject } = p;
    const incident = subject.kind === 'incident' ? subject.incident : null;
    const alert = subject.kind === 'alert' ? subject.alert : null;
    const url = incident
      ? `${this.externalUrl}/-/ui/projects/${project.id}/issues/${incident.iid}`
      : this.pageUrl('alert', project, alert!.iid);
    const title = incident ? incident.title : alert!.title;
    const facts: (readonly [string, string])[] = incident
      ? [
          ['Incident', `#${incident.iid}`],
          ['Severity', incident.severity],
          ['Status', incident.state === 'closed' ? 'resolved' : (incident.escalationStatus ?? 'triggered')],
          ['Opened', incident.createdAt],
        ]
      : [
          ['Alert', `#${alert!.iid}`],
          ['Severity', alert!.severity],
          ['Status', alert!.status],
          ['Start time', alert!.startedAt],
          ...(alert!.service ? ([['Service', alert!.service]] as const) : []),
          ['Events', String(alert!.events)],
        ];
    const what = incident ? 'an incident' : 'an alert';
    const mail = (ackUrl: string) =>
      renderEmail(
        `${project.fullPath} | Paged: ${title}`,
        `You are paged for ${what} in ${project.fullPath} (escalation policy ${p.policyName}): ${title}`,
        facts,
        { url, label: incident ? 'View the incident' : 'View the alert' },
        { url: ackUrl, label: `Acknowledge (one use, no sign-in)` },
      );
    const hooks = (await this.repo.hooks(project.id)).filter((h) => h.alertEvents && this.executable(h));
    if (p.recipients.length === 0 && hooks.length === 0) return;
    // Asked before the transaction (on SQLite a read outside it would wait for it): who was paged already.
    const fresh: { id: number; email: string; username: string }[] = [];
    for (const r of p.recipients) if (!(await this.repo.anyEmailKey(`${p.keyBase}:${r.id}`))) fresh.push(r);
    const now = this.clock.now().toISOString();
    await this.repo.transaction(async (trx) => {
      const paged: { id: number; username: string }[] = [];
      const links = new Map<number, string>();
      for (const r of fresh) {
        const ack = await p.acknowledgeUrl(trx, r.id);
        const id = await this.repo.insertEmail(
          trx,
          {
            projectId: project.id,
            userId: r.id,
            recipient: r.email,
            ...mail(ack),
            dedupeKey: `${p.keyBase}:${r.id}`,
          },
          now,
        );
        if (id === null) continue;
        links.set(r.id, ack);
        paged.push({ id: r.id, username: r.username });
        await this.jobs.enqueue(SEND_EMAIL_JOB, { emailId: id }, { trx });
      }
      if (hooks.length > 0) {
        const sole = p.recipients.length === 1 ? p.recipients[0]!.id : null;
        const ack = (sole !== null && links.get(sole)) || (await p.acknowledgeUrl(trx, sole));
        const payload: HookPayload = {
          object_kind: incident ? 'incident' : 'alert',
          event_type: 'escalation',
          project: this.projectRef(project),
          object_attributes: incident
            ? {
                id: incident.id,
                iid: incident.iid,
                title: incident.title,
                severity: incident.severity,
                state: incident.state,
                escalation_status: incident.escalationStatus,
                created_at: incident.createdAt,
                url,
              }
            : this.presenter.alert(alert!),
          url,
          escalation: p.escalation,
          acknowledge_url: ack,
        };
        for (const h of hooks) {
          const id = await this.repo.insertDelivery(
            trx,
            {
              hookId: h.id,
              objectKind: payload.object_kind,
              eventType: 'escalation',
              payload,
              dedupeKey: `${p.keyBase}:hook:${h.id}`,
            },
            now,
          );
          if (id !== null) await this.jobs.enqueue(HOOK_DELIVERY_JOB, { deliveryId: id }, { trx });
        }
      }
      if (paged.length > 0) await p.recorded?.(trx, paged);
    });
  }

  /** Records e-mails and deliveries and enqueues a job for each new one, in one transaction. */
  private async record(
    projectId: number,
    recipients: readonly { id: number; email: string; key: string }[],
    mail: { subject: string; text: string; html: string } | null,
    hooks: readonly { hook: ProjectHook; key: string }[],
    payload: HookPayload,
  ): Promise<void> {
    if (recipients.length === 0 && hooks.length === 0) return;
    const now = this.clock.now().toISOString();
    await this.repo.transaction(async (trx) => {
      for (const r of mail ? recipients : []) {
        const id = await this.repo.insertEmail(
          trx,
          { projectId, userId: r.id, recipient: r.email, ...mail!, dedupeKey: r.key },
          now,
        );
        if (id !== null) await this.jobs.enqueue(SEND_EMAIL_JOB, { emailId: id }, { trx });
      }
      for (const h of hooks) {
        const id = await this.repo.insertDelivery(
          trx,
          {
            hookId: h.hook.id,
            objectKind: payload.object_kind,
            eventType: payload.event_type ?? payload.object_kind,
            payload,
            dedupeKey: h.key,
          },
          now,
        );
        if (id !== null) await this.jobs.enqueue(HOOK_DELIVERY_JOB, { deliveryId: id }, { trx });
      }
    });
  }

  // Senders

  private async sendEmail(job: Job): Promise<void> {
    const { emailId } = job.payload as { emailId: number };
    const email = await this.repo.email(emailId);
    if (!email || email.status !== 'pending') return;
    const skip = await this.skipReason(email);
    if (skip !== null) {
      await this.repo.updateEmail(email.id, {
        status: 'skipped',
        reason: skip,
        attempts: job.attempts,
        sentAt: null,
      });
      return;
    }
    if (!this.mailer) {
      await this.repo.updateEmail(email.id, {
        status: 'undeliverable',
        reason: NO_SMTP_REASON,
        attempts: job.attempts,
        sentAt: null,
      });
      return;
    }
    try {
      await this.mailer.send({
        to: email.recipient,
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
    } catch (err) {
      const reason = smtpReason(err);
      const last = job.attempts >= EMAIL_MAX_ATTEMPTS;
      await this.repo.updateEmail(email.id, {
        status: last ? 'failed' : 'pending',
        reason,
        attempts: job.attempts,
        sentAt: null,
      });
      if (last) return;
      throw new Error(reason);
    }
    await this.repo.updateEmail(email.id, {
      status: 'sent',
      reason: null,
      attempts: job.attempts,
      sentAt: this.clock.now().toISOString(),
    });
  }

  /**
   * Why an e-mail must not go out now, or null: its recipient was chosen when a rule was saved or an event fanned
   * out, and may since have been removed, blocked or lowered below what reads alerts and errors (GitLab's
   * NotificationRecipients checks at send time too). The subject alone tells what it is about.
   */
  private async skipReason(email: NotificationEmail): Promise<string | null> {
    if (email.userId === null) return 'not sent: the recipient was deleted';
    const project = await this.sources.projects.findById(email.projectId);
    if (!project) return 'not sent: the project was deleted';
    const r = await this.sources.recipient(email.userId, project);
    if (!r) return 'not sent: the recipient was deleted';
    if (r.blocked) return 'not sent: the recipient is blocked';
    if (r.level < RECIPIENT_MIN_LEVEL)
      return "not sent: the recipient can no longer read the project's alerts and errors (Reporter or above)";
    return null;
  }

  /** One POST of a payload to a hook, through the outbound client (SSRF guard, deadline, no redirects). */
  post(hook: ProjectHook & { tokenEncrypted: string | null }, payload: HookPayload): Promise<PostResult> {
    return postJson(this.http, hook.url, {
      headers: {
        'user-agent': 'svc-webhook',
        ...eventHeaders(payload),
        ...(hook.tokenEncrypted !== null && tokenHeaders(payload, this.cipher.decrypt(hook.tokenEncrypted))),
      },
      body: payload,
      maxResponseBytes: HOOK_MAX_RESPONSE,
      insecureTls: !hook.enableSslVerification,
      peer: 'the receiver',
    });
  }

  /** Hook deliveries, as `runDelivery` sends every kind of delivery. */
  private readonly hookDeliveries: DeliveryKind<
    HookDelivery,
    ProjectHook & { tokenEncrypted: string | null }
  > = {
    delivery: (id) => this.repo.delivery(id),
    receiver: (d) => this.repo.hookById(d.hookId),
    notSent: (hook) =>
      hook === null
        ? 'not sent: the hook is disabled'
        : this.executable(hook)
          ? null
          : hook.disabledReason
            ? 'not sent: the hook is disabled'
            : `not sent: the hook is temporarily disabled until ${hook.disabledUntil}`,
    post: (hook, payload) => this.post(hook, payload as HookPayload),
    update: (id, u) => this.repo.updateDelivery(id, u),
    succeeded: (id) => this.repo.hookSucceeded(id),
    failed: (id, limit, reason, now) => this.repo.hookFailed(id, limit, reason, now),
    restUntil: (id, until) => this.repo.hookDisabledUntil(id, until),
  };

  private deliver(job: Job): Promise<void> {
    return runDelivery(job, this.hookDeliveries, this.clock);
  }

  private executable(hook: ProjectHook): boolean {
    return hookExecutable(hook, this.clock.now());
  }

  // Admin view

  /** Recorded e-mails, newest first: what was sent, and why the others were not (admins only). */
  emails(
    actor: User | null,
    f: { status?: EmailStatus; projectId?: number },
    page: PageRequest,
  ): Promise<Paged<NotificationEmail>> {
    this.access.admin(actor);
    return this.repo.listEmails(f, page);
  }

  /** Whether e-mail can go out at all (SMTP configured). */
  get smtpConfigured(): boolean {
    return this.mailer !== null;
  }
}

/**
 * The header naming a delivery's event: GitLab's `X-Gitlab-Event` for GitLab's event kinds (what GitLab receivers
 * dispatch on), svc's `X-Svc-Event` for its alert and error events.
 */
function eventHeaders(payload: HookPayload): Record<string, string> {
  const gitlab = GITLAB_EVENT_HEADERS[payload.object_kind];
  if (gitlab) return { 'x-gitlab-event': gitlab };
  return { 'x-svc-event': payload.object_kind === 'alert' ? 'Alert Hook' : 'Error Hook' };
}

/** The hook's secret: `X-Svc-Token` always, and GitLab's `X-Gitlab-Token` with GitLab's event kinds. */
function tokenHeaders(payload: HookPayload, token: string): Record<string, string> {
  return {
    [HOOK_TOKEN_HEADER]: token,
    ...(GITLAB_EVENT_HEADERS[payload.object_kind] && { 'x-gitlab-token': token }),
  };
}

/** The owner of a personal project's namespace (an Owner of the project without a membership row). */
export function namespaceOwner(project: Project): number | null {
  return project.namespace.kind === 'user' ? project.namespace.ownerId : null;
}

/** The SMTP failure as recorded: the server's response or nodemailer's code, never the URL (it holds a password). */
function smtpReason(err: unknown): string {
  const e = err as { code?: string; responseCode?: number; response?: string; message?: string };
  if (e.response) return `the SMTP server answered: ${e.response.slice(0, 500)}`;
  if (e.code) return `SMTP delivery failed (${e.code})`;
  return 'SMTP delivery failed';
}
