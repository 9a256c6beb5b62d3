import { randomUUID } from 'node:crypto';
import type { Alert } from '../alerts/alerts.js';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import type { TrackedError } from '../error-tracking/error-tracking.js';
import { invalidFields, notFound, paramError, unprocessable } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService } from '../members/members.service.js';
import { OutboundError, type OutboundHttp } from '../outbound.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import {
  BRANCH_FILTER_STRATEGIES,
  type BranchFilterStrategy,
  ERROR_RULE_TRIGGERS,
  type ErrorRule,
  type ErrorRuleTrigger,
  HOOK_EVENT_FLAG_NAMES,
  HOOK_EVENT_FLAGS,
  type HookDelivery,
  type HookEventFlag,
  type HookPayload,
  type ProjectHook,
  validWildcardFilter,
} from './notifications.js';
import type { HookInput, NotificationsRepository, RuleInput } from './notifications.repository.js';
import type { NotificationsService, PayloadPresenter } from './notifications.service.js';

/** The events `POST .../hooks/:hook_id/test/:trigger` can send. */
export const HOOK_TEST_TRIGGERS = ['alert_events', 'error_tracking_events'] as const;
export type HookTestTrigger = (typeof HOOK_TEST_TRIGGERS)[number];

/**
 * The most hooks a project may have (GitLab's plan limit `project_hooks`): each event is one delivery per hook,
 * so the number bounds what one project's event costs the deliveries' workers.
 */
export const MAX_PROJECT_HOOKS = 100;

export interface HookChange {
  readonly url?: string;
  readonly name?: string;
  readonly description?: string;
  readonly token?: string;
  readonly enableSslVerification?: boolean;
  readonly alertEvents?: boolean;
  readonly errorTrackingEvents?: boolean;
  /** GitLab's event flags given (absent ones keep their value, or GitLab's default on creation). */
  readonly events?: Readonly<Partial<Record<HookEventFlag, boolean>>>;
  readonly confidentialNoteEvents?: boolean;
  /** `null` or blank: every branch. */
  readonly pushEventsBranchFilter?: string | null;
  readonly branchFilterStrategy?: string;
}

export interface RuleChange {
  readonly trigger?: string;
  readonly thresholdCount?: number | null;
  readonly thresholdMinutes?: number | null;
  readonly recipientIds?: readonly number[];
  readonly webhook?: boolean;
  readonly actionIntervalMinutes?: number;
}

/** Error rules one project may have (as GitLab's plan limit on project hooks, 100). */
export const MAX_ERROR_RULES = 100;
/** A rule's action interval when it names none (Sentry's default, 30 minutes). */
export const DEFAULT_ACTION_INTERVAL_MINUTES = 30;

/**
 * Project webhooks and error notification rules: Maintainers and Owners manage them (GitLab: project hooks need
 * Maintainer); others get 403, strangers to a private project 404.
 */
export class HooksService {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly access: Access,
    private readonly notifications: NotificationsService,
    private readonly presenter: PayloadPresenter,
    private readonly http: OutboundHttp,
    private readonly cipher: Cipher,
    private readonly clock: Clock,
    private readonly externalUrl: string,
    private readonly members: Pick<MembersService, 'memberIdsAtLeast'>,
  ) {}

  async project(actor: User | null, idOrPath: string): Promise<Project> {
    return (await this.access.project(actor, idOrPath, AccessLevel.Maintainer)).project;
  }

  async list(actor: User | null, idOrPath: string, page: PageRequest): Promise<Paged<ProjectHook>> {
    const project = await this.project(actor, idOrPath);
    const result = await this.repo.hooksPage(project.id, page);
    return { ...result, items: result.items.map((h) => this.now(h)) };
  }

  async get(actor: User | null, idOrPath: string, hookId: number) {
    const project = await this.project(actor, idOrPath);
    const hook = await this.repo.hook(project.id, hookId);
    if (!hook) throw notFound('Hook');
    return this.now(hook);
  }

  /** The hook as it is now: a temporary disabling that ended is no longer shown. */
  private now<H extends ProjectHook>(hook: H): H {
    const over = hook.disabledUntil !== null && Date.parse(hook.disabledUntil) <= this.clock.now().getTime();
    return over ? { ...hook, disabledUntil: null } : hook;
  }

  /**
   * Refuses a URL that is not http(s) or that leads to a local address (unless the admin allows it): 422. A host
   * name that does not resolve (yet) is saved, as GitLab saves it: each delivery resolves and checks it again, and
   * fails (and is retried) while it does not resolve.
   */
  private async checkUrl(url: string): Promise<string> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalidFields({ url: ['is blocked: Only allowed schemes are http, https'] }, 'unprocessable');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw invalidFields({ url: ['is blocked: Only allowed schemes are http, https'] }, 'unprocessable');
    if (parsed.username || parsed.password)
      throw invalidFields({ url: ['must not contain credentials: use the token'] }, 'unprocessable');
    try {
      await this.http.addresses(parsed);
    } catch (err) {
      if (err instanceof OutboundError && (err.reason === 'unresolvable' || err.reason === 'timeout'))
        return parsed.toString();
      const why = err instanceof OutboundError ? err.message : 'cannot be checked';
      throw invalidFields({ url: [`is blocked: ${why}`] }, 'unprocessable');
    }
    return parsed.toString();
  }

  private async input(
    change: HookChange,
    current: (ProjectHook & { tokenEncrypted: string | null }) | null,
  ): Promise<HookInput> {
    const url = change.url ?? current?.url;
    if (url === undefined || url.trim() === '') throw paramError('url is missing');
    if (url.length > 2048) throw paramError('url is too long (maximum is 2048 characters)');
    if (change.token !== undefined && change.token.length > 1000) throw paramError('token is too long');
    if ((change.name?.length ?? 0) > 255) throw paramError('name is too long');
    if ((change.description?.length ?? 0) > 2048) throw paramError('description is too long');
    const strategy = change.branchFilterStrategy ?? current?.branchFilterStrategy ?? 'wildcard';
    if (!(BRANCH_FILTER_STRATEGIES as readonly string[]).includes(strategy))
      throw paramError('branch_filter_strategy does not have a valid value');
    // GitLab runs regex filters with RE2 (linear time); svc has no such engine and does not run a Maintainer's
    // backtracking expression on every push.
    if (strategy === 'regex')
      throw unprocessable('Invalid branch filter given: regex filters are not supported');
    const filterGiven = change.pushEventsBranchFilter;
    const filter = filterGiven === undefined ? (current?.pushEventsBranchFilter ?? null) : filterGiven;
    // A blank filter passes every branch; `all_branches` ignores the filter.
    if (filter && strategy === 'wildcard' && !validWildcardFilter(filter))
      throw unprocessable('Invalid branch filter given');
    const events = Object.fromEntries(
      HOOK_EVENT_FLAG_NAMES.map((f) => [f, change.events?.[f] ?? current?.events[f] ?? HOOK_EVENT_FLAGS[f]]),
    ) as Record<HookEventFlag, boolean>;
    return {
      url: change.url === undefined && current ? current.url : await this.checkUrl(url.trim()),
      name: change.name ?? current?.name ?? '',
      description: change.description ?? current?.description ?? '',
      tokenEncrypted:
        change.token === undefined
          ? (current?.tokenEncrypted ?? null)
          : change.token === ''
            ? null
            : this.cipher.encrypt(change.token),
      enableSslVerification: change.enableSslVerification ?? current?.enableSslVerification ?? true,
      alertEvents: change.alertEvents ?? current?.alertEvents ?? true,
      errorTrackingEvents: change.errorTrackingEvents ?? current?.errorTrackingEvents ?? true,
      events,
      confidentialNoteEvents: change.confidentialNoteEvents ?? current?.confidentialNoteEvents ?? null,
      pushEventsBranchFilter: filter,
      branchFilterStrategy: strategy as BranchFilterStrategy,
    };
  }

  async create(actor: User | null, idOrPath: string, change: HookChange) {
    const project = await this.project(actor, idOrPath);
    // GitLab's answer beyond its plan limit (a validation error on `base`).
    if ((await this.repo.countHooks(project.id)) >= MAX_PROJECT_HOOKS)
      throw invalidFields(
        { base: [`Maximum number of project hooks (${MAX_PROJECT_HOOKS}) exceeded`] },
        'unprocessable',
      );
    const input = await this.input(change, null);
    const id = await this.repo.insertHook(project.id, input, this.clock.now().toISOString());
    await this.notifications.listenersChanged();
    return (await this.repo.hook(project.id, id))!;
  }

  /** Changes a hook; any edit re-enables a hook that was disabled for failing. */
  async update(actor: User | null, idOrPath: string, hookId: number, change: HookChange) {
    const current = await this.get(actor, idOrPath, hookId);
    const input = await this.input(change, current);
    await this.repo.updateHook(current.id, input, this.clock.now().toISOString());
    await this.notifications.listenersChanged();
    return (await this.repo.hookById(current.id))!;
  }

  async delete(actor: User | null, idOrPath: string, hookId: number): Promise<void> {
    const hook = await this.get(actor, idOrPath, hookId);
    await this.repo.deleteHook(hook.id);
    await this.notifications.listenersChanged();
  }

  async deliveries(
    actor: User | null,
    idOrPath: string,
    hookId: number,
    page: PageRequest,
  ): Promise<Paged<HookDelivery>> {
    const hook = await this.get(actor, idOrPath, hookId);
    return this.repo.deliveries(hook.id, page);
  }

  /**
   * Sends a sample event now (GitLab's "Test" button) and records it with the deliveries; a success re-enables a
   * disabled hook. The receiver's failure is a 422 naming it (GitLab: "Hook execution failed").
   */
  async test(actor: User | null, idOrPath: string, hookId: number, trigger: string): Promise<void> {
    const hook = await this.get(actor, idOrPath, hookId);
    if (!(HOOK_TEST_TRIGGERS as readonly string[]).includes(trigger))
      throw paramError('trigger does not have a valid value');
    const project = await this.project(actor, idOrPath);
    const payload = this.samplePayload(project, trigger as HookTestTrigger);
    await this.sendNow(hook, payload, `test:${hook.id}:${randomUUID()}`);
  }

  /**
   * Sends a past delivery's payload again, now (GitLab's "Resend Request" and
   * `POST /projects/:id/hooks/:hook_id/events/:hook_event_id/resend`), recorded as a new delivery; the receiver's
   * answer status comes back, its failure is a 422 as for a test.
   */
  async resend(
    actor: User | null,
    idOrPath: string,
    hookId: number,
    deliveryId: number,
  ): Promise<number | null> {
    const hook = await this.get(actor, idOrPath, hookId);
    const delivery = await this.repo.delivery(deliveryId);
    if (!delivery || delivery.hookId !== hook.id) throw notFound('Hook event');
    return this.sendNow(hook, delivery.payload as HookPayload, `resend:${delivery.id}:${randomUUID()}`);
  }

  /** Posts `payload` to `hook` at once and records it with the deliveries; a success re-enables the hook. */
  private async sendNow(
    hook: ProjectHook & { tokenEncrypted: string | null },
    payload: HookPayload,
    dedupeKey: string,
  ): Promise<number | null> {
    const nowIso = this.clock.now().toISOString();
    const id = await this.repo.transaction((trx) =>
      this.repo.insertDelivery(
        trx,
        {
          hookId: hook.id,
          objectKind: payload.object_kind,
          eventType: payload.event_type ?? payload.object_kind,
          payload,
          dedupeKey,
        },
        nowIso,
      ),
    );
    const r = await this.notifications.post(hook, payload);
    await this.repo.updateDelivery(id!, {
      status: r.ok ? 'success' : 'failed',
      responseStatus: r.status,
      durationMs: r.durationMs,
      error: r.error,
      attempts: 1,
      finishedAt: this.clock.now().toISOString(),
    });
    if (!r.ok) throw unprocessable(`Hook execution failed: ${r.error}`);
    await this.repo.hookSucceeded(hook.id);
    return r.status;
  }

  private samplePayload(project: Project, trigger: HookTestTrigger): HookPayload {
    const now = this.clock.now().toISOString();
    const ref = {
      id: project.id,
      name: project.name,
      path_with_namespace: project.fullPath,
      web_url: `${this.externalUrl}/${project.fullPath}`,
    };
    if (trigger === 'alert_events') {
      const alert: Alert = {
        id: 0,
        projectId: project.id,
        iid: 0,
        integrationId: null,
        title: 'Test alert from svc',
        description: 'A sample alert sent by the webhook test',
        severity: 'critical',
        status: 'triggered',
        startedAt: now,
        endedAt: null,
        events: 1,
        fingerprint: null,
        hosts: [],
        service: null,
        monitoringTool: null,
        environment: null,
        runbook: null,
        payload: {},
        incidentIid: null,
        createdAt: now,
        updatedAt: now,
        assignees: [],
      };
      return {
        object_kind: 'alert',
        event_type: 'new',
        project: ref,
        object_attributes: this.presenter.alert(alert),
        url: `${this.externalUrl}/-/ui/projects/${project.id}/alerts`,
      };
    }
    const error: TrackedError = {
      id: 0,
      projectId: project.id,
      type: 'Error',
      message: 'Test error from svc',
      culprit: 'webhook test',
      platform: 'other',
      status: 'unresolved',
      count: 1,
      userCount: 0,
      firstSeen: now,
      lastSeen: now,
      firstRelease: null,
      lastRelease: null,
      environment: null,
      tags: {},
    };
    return {
      object_kind: 'error',
      event_type: 'new',
      project: ref,
      object_attributes: this.presenter.error(error),
      url: `${this.externalUrl}/-/ui/projects/${project.id}/error_tracking`,
    };
  }

  // Error notification rules

  async rules(actor: User | null, idOrPath: string): Promise<ErrorRule[]> {
    const project = await this.project(actor, idOrPath);
    return this.repo.rules(project.id);
  }

  async rule(actor: User | null, idOrPath: string, id: number): Promise<ErrorRule> {
    const project = await this.project(actor, idOrPath);
    const rule = await this.repo.rule(project.id, id);
    if (!rule) throw notFound('Notification rule');
    return rule;
  }

  private async ruleInput(project: Project, c: RuleChange, current: ErrorRule | null): Promise<RuleInput> {
    const trigger = c.trigger ?? current?.trigger;
    if (trigger === undefined) throw paramError('trigger is missing');
    if (!(ERROR_RULE_TRIGGERS as readonly string[]).includes(trigger))
      throw paramError('trigger does not have a valid value');
    const threshold = trigger === 'threshold';
    const count = c.thresholdCount !== undefined ? c.thresholdCount : (current?.thresholdCount ?? null);
    const minutes =
      c.thresholdMinutes !== undefined ? c.thresholdMinutes : (current?.thresholdMinutes ?? null);
    if (threshold) {
      if (count === null || !Number.isInteger(count) || count < 1 || count > 1_000_000)
        throw paramError('threshold_count must be an integer from 1 to 1000000');
      if (minutes === null || !Number.isInteger(minutes) || minutes < 1 || minutes > 10_080)
        throw paramError('threshold_minutes must be an integer from 1 to 10080');
    }
    const interval =
      c.actionIntervalMinutes ?? current?.actionIntervalMinutes ?? DEFAULT_ACTION_INTERVAL_MINUTES;
    if (!Number.isInteger(interval) || interval < 1 || interval > 10_080)
      throw paramError('action_interval_minutes must be an integer from 1 to 10080');
    const recipientIds = [...new Set(c.recipientIds ?? current?.recipientIds ?? [])];
    if (recipientIds.length > 100) throw paramError('recipient_ids has more than 100 users');
    if (recipientIds.length > 0) {
      // Chosen members only: every recipient must be a member of the project (directly or through its groups).
      const members = await this.members.memberIdsAtLeast(project, AccessLevel.Guest);
      const strangers = recipientIds.filter((id) => !members.has(id));
      if (strangers.length > 0)
        throw invalidFields(
          { recipient_ids: [`are not members of the project: ${strangers.join(', ')}`] },
          'unprocessable',
        );
    }
    return {
      trigger: trigger as ErrorRuleTrigger,
      thresholdCount: threshold ? count : null,
      thresholdMinutes: threshold ? minutes : null,
      recipientIds,
      webhook: c.webhook ?? current?.webhook ?? false,
      actionIntervalMinutes: interval,
    };
  }

  async createRule(actor: User | null, idOrPath: string, c: RuleChange): Promise<ErrorRule> {
    const project = await this.project(actor, idOrPath);
    const input = await this.ruleInput(project, c, null);
    // Checked before the insert, not under a lock: two concurrent creations may pass 100 by one, which bounds
    // the e-mails and jobs of one event just as well.
    if ((await this.repo.ruleCount(project.id)) >= MAX_ERROR_RULES)
      throw unprocessable(`Maximum number of error notification rules (${MAX_ERROR_RULES}) exceeded`);
    const id = await this.repo.insertRule(project.id, input, this.clock.now().toISOString());
    await this.notifications.listenersChanged();
    return (await this.repo.rule(project.id, id))!;
  }

  async updateRule(actor: User | null, idOrPath: string, id: number, c: RuleChange): Promise<ErrorRule> {
    const project = await this.project(actor, idOrPath);
    const current = await this.repo.rule(project.id, id);
    if (!current) throw notFound('Notification rule');
    const input = await this.ruleInput(project, c, current);
    await this.repo.updateRule(id, input, this.clock.now().toISOString());
    await this.notifications.listenersChanged();
    return (await this.repo.rule(project.id, id))!;
  }

  async deleteRule(actor: User | null, idOrPath: string, id: number): Promise<void> {
    const rule = await this.rule(actor, idOrPath, id);
    await this.repo.deleteRule(rule.id);
    await this.notifications.listenersChanged();
  }
}
