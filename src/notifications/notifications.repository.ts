import { type Kysely, type Selectable, sql } from 'kysely';
import { readBool, readNullableTimestamp, readTimestamp, writeBool } from '../db/dialect.js';
import { like, prefixPattern } from '../db/like.js';
import { fetchPage } from '../db/pagination.js';
import type {
  Database,
  ErrorNotificationRulesTable,
  HookDeliveriesTable,
  NotificationEmailsTable,
  ProjectHooksTable,
  Queryable,
} from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { UnitOfWork } from '../unit-of-work.js';
import {
  type BranchFilterStrategy,
  type DeliveryStatus,
  type EmailStatus,
  type ErrorRule,
  type ErrorRuleTrigger,
  HOOK_EVENT_FLAG_NAMES,
  type HookDelivery,
  type HookEventFlag,
  type NotificationEmail,
  type ProjectHook,
} from './notifications.js';

/** A transaction of this repository (services pass it through without naming Kysely). */

function toEmail(r: Selectable<NotificationEmailsTable>): NotificationEmail {
  return {
    id: r.id,
    projectId: r.project_id,
    userId: r.user_id,
    recipient: r.recipient,
    subject: r.subject,
    text: r.body_text,
    html: r.body_html,
    status: r.status as EmailStatus,
    reason: r.reason,
    attempts: r.attempts,
    createdAt: readTimestamp(r.created_at),
    sentAt: readNullableTimestamp(r.sent_at),
  };
}

export function toHook(r: Selectable<ProjectHooksTable>): ProjectHook & { tokenEncrypted: string | null } {
  return {
    id: r.id,
    projectId: r.project_id,
    url: r.url,
    name: r.name,
    description: r.description,
    hasToken: r.token_encrypted !== null,
    tokenEncrypted: r.token_encrypted,
    enableSslVerification: readBool(r.enable_ssl_verification),
    alertEvents: readBool(r.alert_events),
    errorTrackingEvents: readBool(r.error_tracking_events),
    events: Object.fromEntries(HOOK_EVENT_FLAG_NAMES.map((f) => [f, readBool(r[f])])) as Record<
      HookEventFlag,
      boolean
    >,
    confidentialNoteEvents: r.confidential_note_events === null ? null : readBool(r.confidential_note_events),
    pushEventsBranchFilter: r.push_events_branch_filter,
    branchFilterStrategy: r.branch_filter_strategy as BranchFilterStrategy,
    failures: r.failures,
    disabledReason: r.disabled_reason,
    disabledAt: readNullableTimestamp(r.disabled_at),
    disabledUntil: readNullableTimestamp(r.disabled_until),
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

function toDelivery(r: Selectable<HookDeliveriesTable>): HookDelivery {
  return {
    id: r.id,
    hookId: r.hook_id,
    objectKind: r.object_kind,
    eventType: r.event_type,
    payload: JSON.parse(r.payload) as unknown,
    status: r.status as DeliveryStatus,
    responseStatus: r.response_status,
    durationMs: r.duration_ms,
    error: r.error,
    attempts: r.attempts,
    createdAt: readTimestamp(r.created_at),
    finishedAt: readNullableTimestamp(r.finished_at),
  };
}

function toRule(r: Selectable<ErrorNotificationRulesTable>): ErrorRule {
  return {
    id: r.id,
    projectId: r.project_id,
    trigger: r.trigger as ErrorRuleTrigger,
    thresholdCount: r.threshold_count,
    thresholdMinutes: r.threshold_minutes,
    recipientIds: JSON.parse(r.recipient_ids) as number[],
    webhook: readBool(r.webhook),
    actionIntervalMinutes: r.action_interval_minutes,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

export interface HookInput {
  readonly url: string;
  readonly name: string;
  readonly description: string;
  readonly tokenEncrypted: string | null;
  readonly enableSslVerification: boolean;
  readonly alertEvents: boolean;
  readonly errorTrackingEvents: boolean;
  readonly events: Readonly<Record<HookEventFlag, boolean>>;
  readonly confidentialNoteEvents: boolean | null;
  readonly pushEventsBranchFilter: string | null;
  readonly branchFilterStrategy: BranchFilterStrategy;
}

export interface RuleInput {
  readonly trigger: ErrorRuleTrigger;
  readonly thresholdCount: number | null;
  readonly thresholdMinutes: number | null;
  readonly recipientIds: readonly number[];
  readonly webhook: boolean;
  readonly actionIntervalMinutes: number;
}

const hookColumns = (h: HookInput) => ({
  url: h.url,
  name: h.name,
  description: h.description,
  token_encrypted: h.tokenEncrypted,
  enable_ssl_verification: writeBool(h.enableSslVerification),
  alert_events: writeBool(h.alertEvents),
  error_tracking_events: writeBool(h.errorTrackingEvents),
  ...(Object.fromEntries(HOOK_EVENT_FLAG_NAMES.map((f) => [f, writeBool(h.events[f])])) as Record<
    HookEventFlag,
    ReturnType<typeof writeBool>
  >),
  confidential_note_events: h.confidentialNoteEvents === null ? null : writeBool(h.confidentialNoteEvents),
  push_events_branch_filter: h.pushEventsBranchFilter,
  branch_filter_strategy: h.branchFilterStrategy,
});

const ruleColumns = (r: RuleInput) => ({
  trigger: r.trigger,
  threshold_count: r.thresholdCount,
  threshold_minutes: r.thresholdMinutes,
  recipient_ids: JSON.stringify(r.recipientIds),
  webhook: writeBool(r.webhook),
  action_interval_minutes: r.actionIntervalMinutes,
});

/** E-mails, project webhooks and their deliveries, error notification rules. */
export class NotificationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(fn: (trx: UnitOfWork) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Makes the project's pending jobs whose unique key is `like` (held notifications) due at `now`. */
  async releaseHeld(like: string, projectId: number, now: string): Promise<void> {
    const held = await this.db
      .selectFrom('jobs')
      .select(['id', 'payload'])
      .where('unique_key', 'like', like)
      .where('state', '=', 'pending')
      .where('locked_by', 'is', null)
      .execute();
    const ids = held
      .filter((r) => (JSON.parse(r.payload) as { projectId?: number }).projectId === projectId)
      .map((r) => r.id);
    if (ids.length > 0)
      await this.db.updateTable('jobs').set({ run_at: now }).where('id', 'in', ids).execute();
  }

  /** Users by id (active only), for rule recipients. */
  async activeUsers(ids: readonly number[]): Promise<{ id: number; email: string }[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('id', 'in', [...ids])
      .where('state', '=', 'active')
      .orderBy('id')
      .execute();
  }

  // E-mails

  /** Records an e-mail unless one with its key exists; returns the new id, or null when it existed. */
  async insertEmail(
    trx: Queryable,
    e: {
      projectId: number;
      userId: number | null;
      recipient: string;
      subject: string;
      text: string;
      html: string;
      dedupeKey: string;
    },
    now: string,
  ): Promise<number | null> {
    const r = await trx
      .insertInto('notification_emails')
      .values({
        project_id: e.projectId,
        user_id: e.userId,
        recipient: e.recipient,
        subject: e.subject,
        body_text: e.text,
        body_html: e.html,
        dedupe_key: e.dedupeKey,
        status: 'pending',
        reason: null,
        created_at: now,
        sent_at: null,
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    return r?.id ?? null;
  }

  async email(id: number): Promise<NotificationEmail | null> {
    const r = await this.db
      .selectFrom('notification_emails')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toEmail(r) : null;
  }

  /** Whether any e-mail key starts with `prefix` (an alert that was e-mailed about). */
  async anyEmailKey(prefix: string): Promise<boolean> {
    const r = await this.db
      .selectFrom('notification_emails')
      .select('id')
      .where(like(sql.ref('dedupe_key'), prefixPattern(prefix)))
      .limit(1)
      .executeTakeFirst();
    return r !== undefined;
  }

  async updateEmail(
    id: number,
    s: { status: EmailStatus; reason: string | null; attempts: number; sentAt: string | null },
  ): Promise<void> {
    await this.db
      .updateTable('notification_emails')
      .set({ status: s.status, reason: s.reason, attempts: s.attempts, sent_at: s.sentAt })
      .where('id', '=', id)
      .execute();
  }

  async listEmails(
    f: { status?: EmailStatus; projectId?: number },
    page: PageRequest,
  ): Promise<Paged<NotificationEmail>> {
    let base = this.db.selectFrom('notification_emails');
    if (f.status) base = base.where('status', '=', f.status);
    if (f.projectId !== undefined) base = base.where('project_id', '=', f.projectId);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'desc'), page);
    return { items: rows.map(toEmail), total };
  }

  // Hooks

  /**
   * Whether anything listens to the project's alerts: `send_email` on, or a webhook with alert events (a disabled
   * one too: an edit or a successful test enables it again without telling the caches).
   */
  async hasAlertListeners(projectId: number, trx: Queryable = this.db): Promise<boolean> {
    const r = await trx
      .selectNoFrom((eb) => [
        eb
          .exists(
            eb
              .selectFrom('project_alert_settings')
              .select('project_id')
              .where('project_id', '=', projectId)
              .where('send_email', '=', writeBool(true)),
          )
          .as('email'),
        eb
          .exists(
            eb
              .selectFrom('project_hooks')
              .select('id')
              .where('project_id', '=', projectId)
              .where('alert_events', '=', writeBool(true)),
          )
          .as('hooks'),
      ])
      .executeTakeFirstOrThrow();
    return readBool(r.email) || readBool(r.hooks);
  }

  /**
   * The GitLab event flags (`confidential_note_events` included) at least one of the project's hooks has on
   * (disabled hooks included).
   */
  async hookFlagsOn(projectId: number, trx: Queryable = this.db): Promise<Set<string>> {
    const rows = await trx
      .selectFrom('project_hooks')
      .select([...HOOK_EVENT_FLAG_NAMES, 'confidential_note_events', 'error_tracking_events'])
      .where('project_id', '=', projectId)
      .execute();
    const on = new Set<string>();
    for (const r of rows) {
      for (const f of HOOK_EVENT_FLAG_NAMES) if (readBool(r[f])) on.add(f);
      if (readBool(r.error_tracking_events)) on.add('error_tracking_events');
      if (r.confidential_note_events !== null && readBool(r.confidential_note_events))
        on.add('confidential_note_events');
    }
    return on;
  }

  /** A page of a project's hooks, oldest first. */
  async hooksPage(projectId: number, page: PageRequest): Promise<Paged<ProjectHook>> {
    const base = this.db.selectFrom('project_hooks').where('project_id', '=', projectId);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id'), page);
    return { items: rows.map(toHook), total };
  }

  async countHooks(projectId: number): Promise<number> {
    const r = await this.db
      .selectFrom('project_hooks')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async hooks(projectId: number): Promise<(ProjectHook & { tokenEncrypted: string | null })[]> {
    const rows = await this.db
      .selectFrom('project_hooks')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(toHook);
  }

  async hook(projectId: number, id: number, trx: Queryable = this.db) {
    const r = await trx
      .selectFrom('project_hooks')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toHook(r) : null;
  }

  async hookById(id: number) {
    const r = await this.db.selectFrom('project_hooks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toHook(r) : null;
  }

  async insertHook(projectId: number, h: HookInput, now: string): Promise<number> {
    const r = await this.db
      .insertInto('project_hooks')
      .values({
        project_id: projectId,
        ...hookColumns(h),
        disabled_reason: null,
        disabled_at: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return r.id;
  }

  /** Saves a hook's settings; an edit re-enables a disabled hook and clears its failure count. */
  async updateHook(id: number, h: HookInput, now: string): Promise<void> {
    await this.db
      .updateTable('project_hooks')
      .set({
        ...hookColumns(h),
        failures: 0,
        disabled_reason: null,
        disabled_at: null,
        disabled_until: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async deleteHook(id: number): Promise<void> {
    await this.db.deleteFrom('project_hooks').where('id', '=', id).execute();
  }

  /** A successful delivery: the failure count starts over and a disabled hook is active again. */
  async hookSucceeded(id: number): Promise<void> {
    await this.db
      .updateTable('project_hooks')
      .set({ failures: 0, disabled_reason: null, disabled_at: null, disabled_until: null })
      .where('id', '=', id)
      .execute();
  }

  /**
   * A failed attempt: counts it and, at `limit` failures in a row, disables the hook with `reason` (in one
   * statement, so concurrent failures count exactly). Returns the new count.
   */
  async hookFailed(id: number, limit: number, reason: string, now: string): Promise<number> {
    // The temporary disabling's end is set apart (`hookDisabledUntil`): the count decides it, and is exact here.
    const r = await this.db
      .updateTable('project_hooks')
      .set({
        failures: sql`failures + 1`,
        disabled_reason: sql`CASE WHEN disabled_reason IS NULL AND failures + 1 >= ${limit} THEN ${reason} ELSE disabled_reason END`,
        disabled_at: sql`CASE WHEN disabled_at IS NULL AND failures + 1 >= ${limit} THEN ${now} ELSE disabled_at END`,
      })
      .where('id', '=', id)
      .returning('failures')
      .executeTakeFirst();
    return r?.failures ?? 0;
  }

  /** Disables a failing hook until `until` (it sends nothing before). */
  async hookDisabledUntil(id: number, until: string): Promise<void> {
    await this.db.updateTable('project_hooks').set({ disabled_until: until }).where('id', '=', id).execute();
  }

  // Deliveries

  async insertDelivery(
    trx: Queryable,
    d: { hookId: number; objectKind: string; eventType: string; payload: unknown; dedupeKey: string },
    now: string,
  ): Promise<number | null> {
    const r = await trx
      .insertInto('hook_deliveries')
      .values({
        hook_id: d.hookId,
        object_kind: d.objectKind,
        event_type: d.eventType,
        payload: JSON.stringify(d.payload),
        dedupe_key: d.dedupeKey,
        status: 'pending',
        response_status: null,
        duration_ms: null,
        error: null,
        created_at: now,
        finished_at: null,
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    return r?.id ?? null;
  }

  async delivery(id: number): Promise<HookDelivery | null> {
    const r = await this.db.selectFrom('hook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toDelivery(r) : null;
  }

  async updateDelivery(
    id: number,
    d: {
      status: DeliveryStatus;
      responseStatus: number | null;
      durationMs: number | null;
      error: string | null;
      attempts: number;
      finishedAt: string | null;
    },
  ): Promise<void> {
    await this.db
      .updateTable('hook_deliveries')
      .set({
        status: d.status,
        response_status: d.responseStatus,
        duration_ms: d.durationMs,
        error: d.error,
        attempts: d.attempts,
        finished_at: d.finishedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  async deliveries(hookId: number, page: PageRequest): Promise<Paged<HookDelivery>> {
    const base = this.db.selectFrom('hook_deliveries').where('hook_id', '=', hookId);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'desc'), page);
    return { items: rows.map(toDelivery), total };
  }

  // Error rules

  /** A project's rules (in `trx` when given: the collector asks inside its transaction, which SQLite serialises). */
  async rules(projectId: number, trx: Queryable = this.db): Promise<ErrorRule[]> {
    const rows = await trx
      .selectFrom('error_notification_rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(toRule);
  }

  async rule(projectId: number, id: number): Promise<ErrorRule | null> {
    const r = await this.db
      .selectFrom('error_notification_rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toRule(r) : null;
  }

  async insertRule(projectId: number, r: RuleInput, now: string): Promise<number> {
    const row = await this.db
      .insertInto('error_notification_rules')
      .values({
        project_id: projectId,
        ...ruleColumns(r),
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async updateRule(id: number, r: RuleInput, now: string): Promise<void> {
    await this.db
      .updateTable('error_notification_rules')
      .set({
        ...ruleColumns(r),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async deleteRule(id: number): Promise<void> {
    await this.db.deleteFrom('error_notification_rules').where('id', '=', id).execute();
  }

  /** How many rules a project has (the plan limit). */
  async ruleCount(projectId: number): Promise<number> {
    const r = await this.db
      .selectFrom('error_notification_rules')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Claims a rule's notification about an error for the event `eventKey`: true when the rule has not fired for
   * the error since `since`, or fired for this very event (its job running again). One statement, so two
   * workers cannot both claim one interval.
   */
  async claimFiring(
    ruleId: number,
    errorId: number,
    eventKey: string,
    now: string,
    since: string,
  ): Promise<boolean> {
    const r = await this.db
      .insertInto('error_rule_firings')
      .values({ rule_id: ruleId, error_id: errorId, event_key: eventKey, fired_at: now })
      .onConflict((oc) =>
        oc
          .columns(['rule_id', 'error_id'])
          .doUpdateSet((eb) => ({
            event_key: eb.ref('excluded.event_key'),
            fired_at: eb.ref('excluded.fired_at'),
          }))
          .where((eb) =>
            eb.or([
              eb('error_rule_firings.fired_at', '<=', since),
              eb('error_rule_firings.event_key', '=', eb.ref('excluded.event_key')),
            ]),
          ),
      )
      .returning('rule_id')
      .executeTakeFirst();
    return r !== undefined;
  }

  /** Events of an error that occurred at or after `since` (for the threshold rule). */
  async eventsSince(errorId: number, since: string): Promise<number> {
    const r = await this.db
      .selectFrom('error_tracking_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('error_id', '=', errorId)
      .where('occurred_at', '>=', since)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }
}
