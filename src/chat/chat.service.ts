import { randomUUID } from 'node:crypto';
import type { Alert } from '../alerts/alerts.js';
import type { AlertsService } from '../alerts/alerts.service.js';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import type { ErrorTrackingService } from '../error-tracking/error-tracking.service.js';
import { invalidFields, notFound, paramError, unprocessable } from '../errors.js';
import type { IssuesService } from '../issues/issues.service.js';
import type { Job, JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { PagedSubject } from '../notifications/notifications.service.js';
import { OutboundError, type OutboundHttp } from '../outbound.js';
import { type DeliveryKind, type PostResult, postJson, runDelivery } from '../outbound-delivery.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SilencesService } from '../silences/silences.service.js';
import { TtlCache } from '../ttl-cache.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import {
  BRANCHES_TO_BE_NOTIFIED,
  CHAT_EVENT_FLAGS,
  CHAT_SERVICES,
  type ChatDelivery,
  type ChatEventFlag,
  type ChatIntegration,
  type ChatMessage,
  type ChatProperties,
  type ChatSlug,
  chatBody,
  isChatSlug,
} from './chat.js';
import type { ChatRepository, StoredChatIntegration } from './chat.repository.js';

export const CHAT_EVENT_JOB = 'chat_event';
export const CHAT_DELIVERY_JOB = 'chat_delivery';

/** The most response body bytes read from a chat service. */
const MAX_RESPONSE = 64 * 1024;

/** The settings a PUT gives (absent ones keep their value, or the default on creation). */
export interface ChatChange {
  readonly active?: boolean;
  readonly webhook?: string;
  readonly token?: string;
  readonly username?: string;
  readonly channel?: string;
  readonly room?: string;
  readonly thread?: number | null;
  readonly notifyOnlyDefaultBranch?: boolean;
  readonly branchesToBeNotified?: string;
  readonly events?: Readonly<Partial<Record<ChatEventFlag, boolean>>>;
}

/** An escalation page as the chat integrations tell it. */
export interface ChatPage {
  readonly project: Project;
  /** What is paged: an alert (its escalation), or an incident paged by hand. */
  readonly subject: PagedSubject;
  /** Unique per page (the escalation's page key): a page's job that runs again adds no message. */
  readonly keyBase: string;
  readonly recipients: readonly { username: string }[];
  readonly policyName: string;
}

type EventJob =
  | { kind: 'alert'; projectId: number; iid: number; event: 'new' | 'resolved' }
  | { kind: 'error'; projectId: number; errorId: number; event: 'new' | 'regression'; at?: string }
  | { kind: 'incident'; projectId: number; iid: number; event: 'new' | 'closed' };

/** What this service reads of other features (ports, wired in the composition root). */
export interface ChatSources {
  projects: Pick<ProjectsService, 'findById'>;
  alerts: Pick<AlertsService, 'alertForSystem'>;
  silences: Pick<SilencesService, 'silencing'>;
  errors: Pick<ErrorTrackingService, 'errorForSystem'>;
  incidents: Pick<IssuesService, 'incidentForSystem'>;
}

/**
 * Chat integrations (GitLab's `/projects/:id/integrations/:slug` for chat services): Maintainers manage them, as
 * GitLab's `admin_project`. Alerts, errors and escalation pages become one message per active integration with the
 * event's flag, recorded as a delivery and sent by its own job (retries, resting and disabling as hooks), through
 * the outbound client's SSRF guard.
 */
export class ChatService {
  /** The event flags some active integration of each project has on (intake asks per alert and error). */
  private readonly flags: TtlCache<number, ReadonlySet<string>>;
  private readonly changeListeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly repo: ChatRepository,
    private readonly access: Access,
    private readonly sources: ChatSources,
    private readonly http: OutboundHttp,
    private readonly cipher: Cipher,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly urls: { external: string; telegramApi: string },
    cacheTtlMs: number,
  ) {
    this.flags = new TtlCache(clock, cacheTtlMs);
    jobs.register(CHAT_EVENT_JOB, (job) => this.fanOut(job.payload as EventJob), 'urgent');
    jobs.register(CHAT_DELIVERY_JOB, (job) => this.deliver(job), 'hooks');
  }

  /** Calls `fn` after integrations changed (the composition root tells the other processes). */
  onChange(fn: () => void | Promise<void>): void {
    this.changeListeners.push(fn);
  }

  invalidate(): void {
    this.flags.clear();
  }

  private async changed(): Promise<void> {
    this.invalidate();
    for (const fn of this.changeListeners) await fn();
  }

  private async project(actor: User | null, idOrPath: string): Promise<Project> {
    return (await this.access.project(actor, idOrPath, AccessLevel.Maintainer)).project;
  }

  private slug(slug: string): ChatSlug {
    if (!isChatSlug(slug)) throw notFound();
    return slug;
  }

  /** The integration as it is now: a rest that ended is no longer shown. */
  private now<I extends ChatIntegration>(i: I): I {
    const over = i.disabledUntil !== null && Date.parse(i.disabledUntil) <= this.clock.now().getTime();
    return over ? { ...i, disabledUntil: null } : i;
  }

  private executable(i: ChatIntegration): boolean {
    return (
      i.active &&
      !i.disabledReason &&
      (i.disabledUntil === null || Date.parse(i.disabledUntil) <= this.clock.now().getTime())
    );
  }

  /** The project's active chat integrations (GitLab lists the active ones). */
  async list(actor: User | null, idOrPath: string): Promise<ChatIntegration[]> {
    const project = await this.project(actor, idOrPath);
    return (await this.repo.list(project.id)).filter((i) => i.active).map((i) => this.now(strip(i)));
  }

  async get(actor: User | null, idOrPath: string, slug: string): Promise<ChatIntegration> {
    const project = await this.project(actor, idOrPath);
    const found = await this.repo.find(project.id, this.slug(slug));
    if (!found) throw notFound('Integration');
    return this.now(strip(found));
  }

  /** The project's active integration of `slug`, for a rule that pages it (null: none, or not active). */
  async integrationOf(projectId: number, slug: string): Promise<ChatIntegration | null> {
    if (!isChatSlug(slug)) return null;
    const found = await this.repo.find(projectId, slug);
    return found?.active ? strip(found) : null;
  }

  /**
   * Refuses a webhook URL that is not http(s) or that leads to a local address (unless the admin allows it): 422,
   * as hooks. A host that does not resolve yet is saved: each delivery checks it again.
   */
  private async checkUrl(url: string): Promise<string> {
    const blocked = (why: string) => invalidFields({ webhook: [`is blocked: ${why}`] }, 'unprocessable');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw blocked('Only allowed schemes are http, https');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw blocked('Only allowed schemes are http, https');
    try {
      await this.http.addresses(parsed);
    } catch (err) {
      if (err instanceof OutboundError && (err.reason === 'unresolvable' || err.reason === 'timeout'))
        return parsed.toString();
      throw blocked(err instanceof OutboundError ? err.message : 'cannot be checked');
    }
    return parsed.toString();
  }

  /** Creates or changes the project's integration of `slug` (GitLab's PUT); re-enables a disabled one. */
  async put(actor: User | null, idOrPath: string, slugText: string, c: ChatChange): Promise<ChatIntegration> {
    const project = await this.project(actor, idOrPath);
    const slug = this.slug(slugText);
    const def = CHAT_SERVICES[slug];
    const current = await this.repo.find(project.id, slug);
    const text = (name: string, v: string | undefined, max = 255) => {
      if (v !== undefined && v.length > max)
        throw paramError(`${name} is too long (maximum is ${max} characters)`);
      return v;
    };
    const secretGiven = def.secret === 'webhook' ? c.webhook : c.token;
    const otherSecret = def.secret === 'webhook' ? c.token : c.webhook;
    if (otherSecret !== undefined)
      throw paramError(`${def.secret === 'webhook' ? 'token' : 'webhook'} does not apply to ${def.title}`);
    if (!def.userAndChannel && (c.username !== undefined || c.channel !== undefined))
      throw paramError(`username and channel do not apply to ${def.title}`);
    if (!def.room && (c.room !== undefined || (c.thread !== undefined && c.thread !== null)))
      throw paramError(`room and thread do not apply to ${def.title}`);
    // The secret is write-only: required to set an integration up (or up again after a DELETE cleared it), kept
    // when a change leaves it out.
    const hasSecret = current !== null && current.secretEncrypted !== '';
    if ((secretGiven === undefined || secretGiven.trim() === '') && !hasSecret)
      throw paramError(`${def.secret} is missing`);
    if (def.room && !current?.properties.room && (c.room === undefined || c.room.trim() === ''))
      throw paramError('room is missing');
    if (c.room !== undefined && c.room.trim() === '') throw paramError('room is empty');
    text(def.secret, secretGiven, 2048);
    const username = text('username', c.username);
    const channel = text('channel', c.channel);
    const room = text('room', c.room);
    if (c.thread !== undefined && c.thread !== null && (!Number.isInteger(c.thread) || c.thread < 1))
      throw paramError('thread must be a positive integer');
    const branches = c.branchesToBeNotified ?? current?.properties.branchesToBeNotified ?? 'default';
    if (!(BRANCHES_TO_BE_NOTIFIED as readonly string[]).includes(branches))
      throw paramError('branches_to_be_notified does not have a valid value');
    if (def.secret === 'token' && secretGiven !== undefined && !/^[\w:-]+$/.test(secretGiven.trim()))
      throw invalidFields({ token: ['is invalid'] }, 'unprocessable');
    let secret: string | null = null;
    if (secretGiven !== undefined && secretGiven.trim() !== '')
      secret = def.secret === 'webhook' ? await this.checkUrl(secretGiven.trim()) : secretGiven.trim();
    const cur = current?.properties;
    const properties: ChatProperties = {
      username: def.userAndChannel ? (username ?? cur?.username ?? null) || null : null,
      channel: def.userAndChannel ? (channel ?? cur?.channel ?? null) || null : null,
      room: def.room ? (room?.trim() ?? cur?.room ?? null) : null,
      thread: def.room ? (c.thread !== undefined ? c.thread : (cur?.thread ?? null)) : null,
      notifyOnlyDefaultBranch: c.notifyOnlyDefaultBranch ?? cur?.notifyOnlyDefaultBranch ?? false,
      branchesToBeNotified: branches,
    };
    const events = Object.fromEntries(
      CHAT_EVENT_FLAGS.map((f) => [f, c.events?.[f] ?? current?.events[f] ?? true]),
    ) as Record<ChatEventFlag, boolean>;
    await this.repo.upsert(
      project.id,
      slug,
      {
        active: c.active ?? true,
        secretEncrypted: secret === null ? current!.secretEncrypted : this.cipher.encrypt(secret),
        properties,
        events,
      },
      this.clock.now().toISOString(),
    );
    await this.changed();
    return strip((await this.repo.find(project.id, slug))!);
  }

  /** GitLab's DELETE: disables the integration and clears its settings (it is still read, inactive). */
  async delete(actor: User | null, idOrPath: string, slug: string): Promise<void> {
    const project = await this.project(actor, idOrPath);
    const found = await this.repo.find(project.id, this.slug(slug));
    if (!found) throw notFound('Integration');
    await this.repo.disable(
      found.id,
      {
        active: false,
        secretEncrypted: '',
        properties: {
          username: null,
          channel: null,
          room: null,
          thread: null,
          notifyOnlyDefaultBranch: false,
          branchesToBeNotified: 'default',
        },
        events: { alert_events: true, incident_events: true, error_tracking_events: true, page_events: true },
      },
      this.clock.now().toISOString(),
    );
    await this.changed();
  }

  async deliveries(
    actor: User | null,
    idOrPath: string,
    slug: string,
    page: PageRequest,
  ): Promise<Paged<ChatDelivery>> {
    const i = await this.get(actor, idOrPath, slug);
    return this.repo.deliveries(i.id, page);
  }

  /**
   * Sends a sample message now and records it with the deliveries; a success re-enables a disabled integration.
   * The service's refusal is a 422 naming it.
   */
  async test(actor: User | null, idOrPath: string, slug: string): Promise<void> {
    const project = await this.project(actor, idOrPath);
    const found = await this.repo.find(project.id, this.slug(slug));
    if (!found) throw notFound('Integration');
    const def = CHAT_SERVICES[found.slug];
    if (found.secretEncrypted === '') throw unprocessable(`Test failed: ${def.title} has no ${def.secret}`);
    const now = this.clock.now().toISOString();
    const message: ChatMessage = {
      event: 'test',
      action: 'test',
      headline: 'Test message from svc',
      title: `${CHAT_SERVICES[found.slug].title} are set up`,
      severity: null,
      status: 'test',
      project: this.projectRef(project),
      url: `${this.urls.external}/-/ui/projects/${project.id}/alerts`,
      linkLabel: 'Open the alerts',
      at: now,
    };
    const body = chatBody(found.slug, message, found.properties);
    const id = await this.repo.transaction((trx) =>
      this.repo.insertDelivery(
        trx,
        {
          integrationId: found.id,
          event: 'test',
          action: 'test',
          payload: body,
          dedupeKey: `test:${randomUUID()}`,
        },
        now,
      ),
    );
    const r = await this.post(found, body);
    await this.repo.updateDelivery(id!, {
      status: r.ok ? 'success' : 'failed',
      responseStatus: r.status,
      durationMs: r.durationMs,
      error: r.error,
      attempts: 1,
      finishedAt: this.clock.now().toISOString(),
    });
    if (!r.ok) throw unprocessable(`Test failed: ${r.error}`);
    await this.repo.succeeded(found.id);
  }

  // Producers: one job in the caller's transaction, when some integration listens.

  private flagsOf(trx: UnitOfWork, projectId: number): Promise<ReadonlySet<string>> {
    // Inside the caller's transaction: on SQLite a query outside it would wait for it forever.
    return this.flags.get(projectId, async () => {
      const on = new Set<string>();
      for (const i of await this.repo.list(projectId, trx))
        if (i.active) for (const f of CHAT_EVENT_FLAGS) if (i.events[f]) on.add(f);
      return on;
    });
  }

  async wants(trx: UnitOfWork, projectId: number, flag: ChatEventFlag): Promise<boolean> {
    return (await this.flagsOf(trx, projectId)).has(flag);
  }

  async alertChanged(
    trx: UnitOfWork,
    projectId: number,
    iid: number,
    event: 'new' | 'resolved',
  ): Promise<void> {
    await this.jobs.enqueue(CHAT_EVENT_JOB, { kind: 'alert', projectId, iid, event } satisfies EventJob, {
      trx,
    });
  }

  async errorRecorded(
    trx: UnitOfWork,
    projectId: number,
    errorId: number,
    what: { created: boolean; regressedAt: string | null },
  ): Promise<void> {
    if (what.created)
      await this.jobs.enqueue(
        CHAT_EVENT_JOB,
        { kind: 'error', projectId, errorId, event: 'new' } satisfies EventJob,
        {
          trx,
        },
      );
    if (what.regressedAt !== null)
      await this.jobs.enqueue(
        CHAT_EVENT_JOB,
        { kind: 'error', projectId, errorId, event: 'regression', at: what.regressedAt } satisfies EventJob,
        { trx },
      );
  }

  async incidentChanged(
    trx: UnitOfWork,
    projectId: number,
    iid: number,
    event: 'new' | 'closed',
  ): Promise<void> {
    await this.jobs.enqueue(CHAT_EVENT_JOB, { kind: 'incident', projectId, iid, event } satisfies EventJob, {
      trx,
    });
  }

  private projectRef(project: Project): ChatMessage['project'] {
    return {
      name: project.name,
      fullPath: project.fullPath,
      url: `${this.urls.external}/${project.fullPath}`,
    };
  }

  private alertMessage(project: Project, alert: Alert, headline: string, action: string): ChatMessage {
    return {
      event: 'alert',
      action,
      headline,
      title: alert.title,
      severity: alert.severity,
      status: alert.status,
      project: this.projectRef(project),
      url: `${this.urls.external}/-/ui/projects/${project.id}/alerts/${alert.iid}`,
      linkLabel: 'View the alert',
      at: this.clock.now().toISOString(),
    };
  }

  private incidentMessage(
    project: Project,
    incident: Extract<PagedSubject, { kind: 'incident' }>['incident'],
    headline: string,
    action: string,
  ): ChatMessage {
    return {
      event: 'incident',
      action,
      headline,
      title: incident.title,
      severity: incident.severity.toLowerCase(),
      status: incident.escalationStatus ?? incident.state,
      project: this.projectRef(project),
      url: `${this.urls.external}/-/ui/projects/${project.id}/issues/${incident.iid}`,
      linkLabel: 'View the incident',
      at: this.clock.now().toISOString(),
    };
  }

  private async fanOut(j: EventJob): Promise<void> {
    const project = await this.sources.projects.findById(j.projectId);
    if (!project) return;
    if (j.kind === 'alert') {
      const alert = await this.sources.alerts.alertForSystem(project.id, j.iid);
      if (!alert) return;
      // Asked now, not when the alert came: a silence made meanwhile holds these back too.
      if ((await this.sources.silences.silencing(project.id, alert)).length > 0) return;
      const m = this.alertMessage(
        project,
        alert,
        j.event === 'new' ? 'Alert triggered' : 'Alert resolved',
        j.event,
      );
      await this.record(project.id, 'alert_events', m, `alert:${alert.id}:${j.event}`);
      return;
    }
    if (j.kind === 'incident') {
      const incident = await this.sources.incidents.incidentForSystem(project.id, j.iid);
      // Told as it is now: an incident reopened (or deleted) since is not told closed.
      if (!incident || (j.event === 'closed') !== (incident.state === 'closed')) return;
      const m = this.incidentMessage(
        project,
        incident,
        j.event === 'new' ? 'Incident opened' : 'Incident closed',
        j.event,
      );
      const when = j.event === 'closed' ? `:${incident.closedAt}` : '';
      await this.record(project.id, 'incident_events', m, `incident:${incident.id}:${j.event}${when}`);
      return;
    }
    const error = await this.sources.errors.errorForSystem(project.id, j.errorId);
    if (!error) return;
    const m: ChatMessage = {
      event: 'error',
      action: j.event,
      headline: j.event === 'new' ? 'New error' : 'Regression: a resolved error occurred again',
      title: error.title ?? `${error.type}: ${error.message}`,
      severity: null,
      status: error.status,
      project: this.projectRef(project),
      url: `${this.urls.external}/-/ui/projects/${project.id}/errors/${error.id}`,
      linkLabel: 'View the error',
      at: this.clock.now().toISOString(),
    };
    await this.record(
      project.id,
      'error_tracking_events',
      m,
      `error:${error.id}:${j.event}${j.at ? `:${j.at}` : ''}`,
    );
  }

  /**
   * An escalation page: a `page_events` message to each integration with the flag on, or, for a rule that pages
   * one integration (`integrationId`), to that one. Keyed by the page: a page's job that runs again adds nothing.
   */
  async page(p: ChatPage, integrationId?: number): Promise<void> {
    const m: ChatMessage = {
      ...(p.subject.kind === 'alert'
        ? this.alertMessage(p.project, p.subject.alert, 'Paged', 'paged')
        : this.incidentMessage(p.project, p.subject.incident, 'Paged', 'paged')),
      event: 'page',
      paged: p.recipients.map((r) => `@${r.username}`),
      policy: p.policyName,
    };
    await this.record(p.project.id, integrationId ?? 'page_events', m, p.keyBase);
  }

  /** Records one delivery per integration (with `flag` on, or the one named) and enqueues its job, in one transaction. */
  private async record(
    projectId: number,
    target: ChatEventFlag | number,
    m: ChatMessage,
    keyBase: string,
  ): Promise<void> {
    const all = await this.repo.list(projectId);
    const targets = all.filter((i) =>
      typeof target === 'number' ? i.id === target && i.active : i.events[target] && this.executable(i),
    );
    if (targets.length === 0) return;
    const now = this.clock.now().toISOString();
    await this.repo.transaction(async (trx) => {
      for (const i of targets) {
        const id = await this.repo.insertDelivery(
          trx,
          {
            integrationId: i.id,
            event: m.event,
            action: m.action,
            payload: chatBody(i.slug, m, i.properties),
            dedupeKey: `${keyBase}:chat:${i.id}`,
          },
          now,
        );
        if (id !== null) await this.jobs.enqueue(CHAT_DELIVERY_JOB, { deliveryId: id }, { trx });
      }
    });
    this.jobs.wake();
  }

  /** Where a service's message goes: its webhook, or Telegram's `sendMessage` with the bot token. */
  private target(i: StoredChatIntegration): string {
    const secret = this.cipher.decrypt(i.secretEncrypted);
    return i.slug === 'telegram' ? `${this.urls.telegramApi}/bot${secret}/sendMessage` : secret;
  }

  /** Chat deliveries, as `runDelivery` sends every kind of delivery. */
  private readonly chatDeliveries: DeliveryKind<ChatDelivery, StoredChatIntegration> = {
    delivery: (id) => this.repo.delivery(id),
    receiver: (d) => this.repo.byId(d.integrationId),
    notSent: (i) =>
      i === null || !i.active
        ? 'not sent: the integration is not active'
        : this.executable(i)
          ? null
          : i.disabledReason
            ? 'not sent: the integration is disabled'
            : `not sent: the integration is temporarily disabled until ${i.disabledUntil}`,
    post: (i, body) => this.post(i, body),
    update: (id, u) => this.repo.updateDelivery(id, u),
    succeeded: (id) => this.repo.succeeded(id),
    failed: (id, limit, reason) => this.repo.failed(id, limit, reason),
    restUntil: (id, until) => this.repo.disabledUntil(id, until),
  };

  /** One POST through the outbound client (SSRF guard, deadline, no redirects); errors never name the URL. */
  private post(i: StoredChatIntegration, body: unknown): Promise<PostResult> {
    return postJson(this.http, this.target(i), {
      headers: { 'user-agent': 'svc-chat' },
      body,
      maxResponseBytes: MAX_RESPONSE,
      peer: 'the service',
    });
  }

  private deliver(job: Job): Promise<void> {
    return runDelivery(job, this.chatDeliveries, this.clock);
  }
}

/** The integration without its secret. */
function strip(i: StoredChatIntegration): ChatIntegration {
  const { secretEncrypted: _, ...rest } = i;
  return rest;
}
