import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation, readTimestamp } from '../db/dialect.js';
import type { Database, EscalationPoliciesTable, Queryable } from '../db/schema.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type {
  EscalationPolicy,
  EscalationRule,
  EscalationStatus,
  PageJob,
  PolicyOwner,
  RuleRecord,
} from './escalation.js';

/** The column naming a policy's or a schedule's owner. */
const ownerColumn = (o: PolicyOwner) => (o.type === 'project' ? 'project_id' : 'group_id');

/** How far up the group tree a policy is looked for (GitLab nests groups at most 20 deep). */
const MAX_GROUP_DEPTH = 20;
/** A one-use acknowledge link's token, as stored (its digest only). */
export interface AckToken {
  readonly id: number;
  readonly projectId: number;
  readonly targetType: 'alert' | 'incident';
  readonly targetId: number;
  readonly userId: number | null;
  readonly expiresAt: string;
  readonly usedAt: string | null;
}

/** A policy's own fields, as saved. */
export interface PolicyFields {
  readonly name: string;
  readonly description: string | null;
  readonly repeat: number;
  readonly ackTimeoutMinutes: number | null;
}

/** Escalation policies and rules; the pending page jobs and recorded pages of an alert. */
export class EscalationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  transaction<T>(fn: (trx: UnitOfWork) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** The policy of a project or group with its rules in order, or null (in `trx` when given). */
  async policy(owner: PolicyOwner, trx: Queryable = this.db): Promise<EscalationPolicy | null> {
    const p = await trx
      .selectFrom('escalation_policies')
      .selectAll()
      .where(ownerColumn(owner), '=', owner.id)
      .executeTakeFirst();
    return p ? this.withRules(p, trx) : null;
  }

  /**
   * The policy that escalates a project's alerts: its own, else the nearest of its groups' (its namespace, then up
   * the tree); null when none has one. In `trx` when given: intake asks inside its own.
   */
  async effectivePolicy(projectId: number, trx: Queryable = this.db): Promise<EscalationPolicy | null> {
    const own = await this.policy({ type: 'project', id: projectId }, trx);
    if (own) return own;
    const project = await trx
      .selectFrom('projects')
      .select('namespace_id')
      .where('id', '=', projectId)
      .executeTakeFirst();
    const chain: number[] = [];
    let next: number | null = project?.namespace_id ?? null;
    while (next !== null && chain.length < MAX_GROUP_DEPTH) {
      const ns = await trx
        .selectFrom('namespaces')
        .select(['id', 'kind', 'parent_id'])
        .where('id', '=', next)
        .executeTakeFirst();
      if (!ns || ns.kind !== 'group') break;
      chain.push(ns.id);
      next = ns.parent_id;
    }
    if (chain.length === 0) return null;
    const rows = await trx
      .selectFrom('escalation_policies')
      .selectAll()
      .where('group_id', 'in', chain)
      .execute();
    const nearest = chain.map((id) => rows.find((r) => r.group_id === id)).find((r) => r !== undefined);
    return nearest ? this.withRules(nearest, trx) : null;
  }

  private async withRules(p: Selectable<EscalationPoliciesTable>, trx: Queryable): Promise<EscalationPolicy> {
    const rows = await trx
      .selectFrom('escalation_rules as r')
      .leftJoin('oncall_schedules as s', 's.id', 'r.oncall_schedule_id')
      .leftJoin('chat_integrations as c', 'c.id', 'r.chat_integration_id')
      .select([
        'r.chat_integration_id',
        'c.slug as chat_slug',
        'r.id',
        'r.position',
        'r.elapsed_time_seconds',
        'r.status',
        'r.oncall_schedule_id',
        'r.user_id',
        's.iid as schedule_iid',
        's.name as schedule_name',
      ])
      .where('r.policy_id', '=', p.id)
      .orderBy('r.position')
      .execute();
    const rules: EscalationRule[] = rows.map((r) => ({
      id: r.id,
      position: r.position,
      elapsedTimeSeconds: r.elapsed_time_seconds,
      status: r.status as EscalationStatus,
      schedule:
        r.oncall_schedule_id === null
          ? null
          : { id: r.oncall_schedule_id, iid: r.schedule_iid ?? 0, name: r.schedule_name ?? '' },
      userId: r.user_id,
      chatIntegration:
        r.chat_integration_id === null ? null : { id: r.chat_integration_id, slug: r.chat_slug ?? '' },
    }));
    return {
      id: p.id,
      projectId: p.project_id,
      groupId: p.group_id,
      name: p.name,
      description: p.description,
      rules,
      repeat: p.repeat,
      ackTimeoutMinutes: p.ack_timeout_minutes,
      createdAt: readTimestamp(p.created_at),
      updatedAt: readTimestamp(p.updated_at),
    };
  }

  /** A schedule of the project or group by its iid (for rule targets). */
  async schedule(owner: PolicyOwner, iid: number): Promise<{ id: number; iid: number; name: string } | null> {
    const r = await this.db
      .selectFrom('oncall_schedules')
      .select(['id', 'iid', 'name'])
      .where(ownerColumn(owner), '=', owner.id)
      .where('iid', '=', iid)
      .executeTakeFirst();
    return r ?? null;
  }

  async scheduleById(id: number): Promise<{ iid: number; name: string } | null> {
    const r = await this.db
      .selectFrom('oncall_schedules')
      .select(['iid', 'name'])
      .where('id', '=', id)
      .executeTakeFirst();
    return r ?? null;
  }

  async schedules(owner: PolicyOwner): Promise<{ id: number; iid: number; name: string }[]> {
    return this.db
      .selectFrom('oncall_schedules')
      .select(['id', 'iid', 'name'])
      .where(ownerColumn(owner), '=', owner.id)
      .orderBy('iid')
      .execute();
  }

  /** Inserts a policy with its rules (position: their order); false when the owner has one already. */
  async insertPolicy(
    owner: PolicyOwner,
    p: PolicyFields,
    rules: readonly RuleRecord[],
    now: string,
  ): Promise<boolean> {
    try {
      await this.insertPolicyAndRules(owner, p, rules, now);
      return true;
    } catch (err) {
      // Two creations at once: the unique project_id (group_id) lets one through.
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  private async insertPolicyAndRules(
    owner: PolicyOwner,
    p: PolicyFields,
    rules: readonly RuleRecord[],
    now: string,
  ): Promise<void> {
    await this.transaction(async (trx) => {
      const row = await trx
        .insertInto('escalation_policies')
        .values({
          project_id: owner.type === 'project' ? owner.id : null,
          group_id: owner.type === 'group' ? owner.id : null,
          name: p.name,
          description: p.description,
          repeat: p.repeat,
          ack_timeout_minutes: p.ackTimeoutMinutes,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.insertRules(trx, row.id, rules);
    });
  }

  /** Saves a policy; `rules`, when given, replace its rules (new rule ids). */
  async updatePolicy(
    id: number,
    p: PolicyFields,
    rules: readonly RuleRecord[] | null,
    now: string,
  ): Promise<void> {
    await this.transaction(async (trx) => {
      await trx
        .updateTable('escalation_policies')
        .set({
          name: p.name,
          description: p.description,
          repeat: p.repeat,
          ack_timeout_minutes: p.ackTimeoutMinutes,
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      if (rules === null) return;
      await trx.deleteFrom('escalation_rules').where('policy_id', '=', id).execute();
      await this.insertRules(trx, id, rules);
    });
  }

  private async insertRules(trx: UnitOfWork, policyId: number, rules: readonly RuleRecord[]): Promise<void> {
    if (rules.length === 0) return;
    await trx
      .insertInto('escalation_rules')
      .values(
        rules.map((r, position) => ({
          policy_id: policyId,
          position,
          elapsed_time_seconds: r.elapsedTimeSeconds,
          status: r.status,
          oncall_schedule_id: r.scheduleId,
          user_id: r.userId,
          chat_integration_id: r.chatIntegrationId ?? null,
        })),
      )
      .execute();
  }

  async deletePolicy(id: number): Promise<void> {
    await this.db.deleteFrom('escalation_policies').where('id', '=', id).execute();
  }

  /** The pending page jobs of an alert (their payloads: the rules as they were when it came). */
  async pendingPages(alertId: number | string): Promise<PageJob[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select('payload')
      .where('unique_key', 'like', `escalation:${alertId}:%`)
      .where('state', '=', 'pending')
      .execute();
    return rows.map((r) => JSON.parse(r.payload) as PageJob);
  }

  /** The pages recorded for an alert: rule, user, when, and the e-mail's state. */
  async pages(
    alertId: number | string,
  ): Promise<
    { ruleId: number; round: number; cycle: number | null; userId: number; at: string; emailStatus: string }[]
  > {
    const rows = await this.db
      .selectFrom('notification_emails')
      .select(['dedupe_key', 'user_id', 'created_at', 'status'])
      .where('dedupe_key', 'like', `page:${alertId}:%`)
      .orderBy('id')
      .execute();
    return rows.map((r) => {
      // `page:<alertId>:<ruleId>[:c<cycle>][:r<round>]:<userId>`
      const parts = r.dedupe_key.split(':');
      const tag = (t: string) =>
        parts
          .slice(3, -1)
          .find((x) => x.startsWith(t))
          ?.slice(1);
      return {
        ruleId: Number(parts[2]),
        round: Number(tag('r') ?? 0),
        cycle: tag('c') === undefined ? null : Number(tag('c')),
        userId: r.user_id ?? Number(parts[parts.length - 1]),
        at: readTimestamp(r.created_at),
        emailStatus: r.status,
      };
    });
  }

  /** Drops the pending page jobs of an alert (it was resolved: nothing of it pages any more). */
  /** Makes the project's held pages (see `runPage`) due at `now`. */
  async releaseHeld(projectId: number, now: string): Promise<void> {
    const held = await this.db
      .selectFrom('jobs')
      .select(['id', 'payload'])
      .where('unique_key', 'like', 'escalation:%:held:%')
      .where('state', '=', 'pending')
      .where('locked_by', 'is', null)
      .execute();
    const ids = held
      .filter((r) => (JSON.parse(r.payload) as PageJob).projectId === projectId)
      .map((r) => r.id);
    if (ids.length > 0)
      await this.db.updateTable('jobs').set({ run_at: now }).where('id', 'in', ids).execute();
  }

  async dropPending(trx: Queryable, alertId: number | string): Promise<void> {
    await this.dropPendingLike(trx, `escalation:${alertId}:%`);
  }

  /** Drops the pending acknowledgement timeouts of an alert (acknowledged again, or resolved). */
  async dropAckTimeouts(trx: Queryable, alertId: number | string): Promise<void> {
    await this.dropPendingLike(trx, `escalation-ack:${alertId}:%`);
  }

  // One-use acknowledge links

  async insertAckToken(
    trx: Queryable,
    t: {
      digest: string;
      projectId: number;
      targetType: 'alert' | 'incident';
      targetId: number;
      userId: number | null;
      expiresAt: string;
    },
    now: string,
  ): Promise<void> {
    await trx
      .insertInto('acknowledge_tokens')
      .values({
        token_digest: t.digest,
        project_id: t.projectId,
        target_type: t.targetType,
        target_id: t.targetId,
        user_id: t.userId,
        expires_at: t.expiresAt,
        used_at: null,
        created_at: now,
      })
      .execute();
  }

  /** The token of a digest (in `trx` when given: the acknowledgement reads it again under its lock). */
  async ackToken(digest: string, trx: Queryable = this.db): Promise<AckToken | null> {
    const r = await trx
      .selectFrom('acknowledge_tokens')
      .selectAll()
      .where('token_digest', '=', digest)
      .executeTakeFirst();
    if (!r) return null;
    return {
      id: r.id,
      projectId: r.project_id,
      targetType: r.target_type === 'incident' ? 'incident' : 'alert',
      targetId: r.target_id,
      userId: r.user_id,
      expiresAt: readTimestamp(r.expires_at),
      usedAt: r.used_at === null ? null : readTimestamp(r.used_at),
    };
  }

  /** Marks a token used unless it was: true for the one caller that used it (a conditional update). */
  async spendAckToken(trx: Queryable, id: number, now: string): Promise<boolean> {
    const r = await trx
      .updateTable('acknowledge_tokens')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  private async dropPendingLike(trx: Queryable, pattern: string): Promise<void> {
    await trx
      .deleteFrom('jobs')
      .where('unique_key', 'like', pattern)
      .where('state', '=', 'pending')
      .where('locked_by', 'is', null)
      .execute();
  }
}
