import type { Kysely } from 'kysely';
import { isUniqueViolation, readTimestamp } from '../db/dialect.js';
import type { Database, Queryable } from '../db/schema.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type {
  EscalationPolicy,
  EscalationRule,
  EscalationStatus,
  PageJob,
  RuleRecord,
} from './escalation.js';

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

  /** The project's policy with its rules in order, or null (in `trx` when given: intake asks inside its own). */
  async policy(projectId: number, trx: Queryable = this.db): Promise<EscalationPolicy | null> {
    const p = await trx
      .selectFrom('escalation_policies')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    if (!p) return null;
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
      name: p.name,
      description: p.description,
      rules,
      repeat: p.repeat,
      ackTimeoutMinutes: p.ack_timeout_minutes,
      createdAt: readTimestamp(p.created_at),
      updatedAt: readTimestamp(p.updated_at),
    };
  }

  /** A schedule of the project by its iid (for rule targets). */
  async schedule(projectId: number, iid: number): Promise<{ id: number; iid: number; name: string } | null> {
    const r = await this.db
      .selectFrom('oncall_schedules')
      .select(['id', 'iid', 'name'])
      .where('project_id', '=', projectId)
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

  async schedules(projectId: number): Promise<{ id: number; iid: number; name: string }[]> {
    return this.db
      .selectFrom('oncall_schedules')
      .select(['id', 'iid', 'name'])
      .where('project_id', '=', projectId)
      .orderBy('iid')
      .execute();
  }

  /** Inserts a policy with its rules (position: their order); false when the project has one already. */
  async insertPolicy(
    projectId: number,
    p: PolicyFields,
    rules: readonly RuleRecord[],
    now: string,
  ): Promise<boolean> {
    try {
      await this.insertPolicyAndRules(projectId, p, rules, now);
      return true;
    } catch (err) {
      // Two creations at once: the unique project_id lets one through.
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  private async insertPolicyAndRules(
    projectId: number,
    p: PolicyFields,
    rules: readonly RuleRecord[],
    now: string,
  ): Promise<void> {
    await this.transaction(async (trx) => {
      const row = await trx
        .insertInto('escalation_policies')
        .values({
          project_id: projectId,
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
  async pendingPages(alertId: number): Promise<PageJob[]> {
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
    alertId: number,
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

  async dropPending(trx: Queryable, alertId: number): Promise<void> {
    await this.dropPendingLike(trx, `escalation:${alertId}:%`);
  }

  /** Drops the pending acknowledgement timeouts of an alert (acknowledged again, or resolved). */
  async dropAckTimeouts(trx: Queryable, alertId: number): Promise<void> {
    await this.dropPendingLike(trx, `escalation-ack:${alertId}:%`);
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
