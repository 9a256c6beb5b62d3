import type { Kysely, Selectable, Transaction } from 'kysely';
import { isUniqueViolation, readBool, readTimestamp, writeBool } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { ApprovalRuleRecord, MergeRequestRuleRecord } from './project-approval-rules.js';
import { ruleChange, toRule } from './project-approval-rules.repository.js';

/** Approvals given to merge requests: who approved which request, and when. */
export class MergeRequestApprovalsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The approvals of a merge request, oldest first. */
  async list(mergeRequestId: number): Promise<{ userId: number; createdAt: string }[]> {
    const rows = await this.db
      .selectFrom('merge_request_approvals')
      .select(['user_id', 'created_at'])
      .where('merge_request_id', '=', mergeRequestId)
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => ({ userId: r.user_id, createdAt: readTimestamp(r.created_at) }));
  }

  /** Records an approval; false when the user had already approved (concurrent requests included). */
  async add(mergeRequestId: number, userId: number, now: string): Promise<boolean> {
    try {
      await this.db
        .insertInto('merge_request_approvals')
        .values({ merge_request_id: mergeRequestId, user_id: userId, created_at: now })
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** Withdraws an approval; false when there was none. */
  async remove(mergeRequestId: number, userId: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('merge_request_approvals')
      .where('merge_request_id', '=', mergeRequestId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Runs `fn` in one transaction (a reset and the system note that records it). */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /**
   * Withdraws every approval of a merge request (new commits were pushed to it), in the caller's transaction: the
   * users whose approvals were removed, in the order they approved.
   */
  async removeAll(trx: Transaction<Database>, mergeRequestId: number): Promise<number[]> {
    const rows = await trx
      .deleteFrom('merge_request_approvals')
      .where('merge_request_id', '=', mergeRequestId)
      .returning(['id', 'user_id'])
      .execute();
    return rows.sort((a, b) => a.id - b.id).map((r) => r.user_id);
  }
}

function toMergeRequestRule(r: Selectable<Database['merge_request_approval_rules']>): MergeRequestRuleRecord {
  return { ...toRule(r), sourceRuleId: r.approval_project_rule_id };
}

/** Approval rules set on merge requests (which then replace the project's rules for them). */
export class MergeRequestRulesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Whether the merge request's own rules apply (its rules were changed on it once). */
  async overwritten(mergeRequestId: number): Promise<boolean> {
    const r = await this.db
      .selectFrom('merge_requests')
      .select('approval_rules_overwritten')
      .where('id', '=', mergeRequestId)
      .executeTakeFirst();
    return r !== undefined && readBool(r.approval_rules_overwritten);
  }

  async rules(mergeRequestId: number): Promise<MergeRequestRuleRecord[]> {
    const rows = await this.db
      .selectFrom('merge_request_approval_rules')
      .selectAll()
      .where('merge_request_id', '=', mergeRequestId)
      .orderBy('id')
      .execute();
    return rows.map(toMergeRequestRule);
  }

  /**
   * Gives the merge request its own rules, starting as copies of `projectRules`, once: of concurrent callers one
   * copies, the others find it done.
   */
  async overwrite(
    mergeRequestId: number,
    projectRules: readonly ApprovalRuleRecord[],
    now: string,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const flipped = await trx
        .updateTable('merge_requests')
        .set({ approval_rules_overwritten: writeBool(true) })
        .where('id', '=', mergeRequestId)
        .where('approval_rules_overwritten', '=', writeBool(false))
        .executeTakeFirst();
      if (Number(flipped.numUpdatedRows) === 0 || projectRules.length === 0) return;
      await trx
        .insertInto('merge_request_approval_rules')
        .values(
          projectRules.map((r) => ({
            merge_request_id: mergeRequestId,
            name: r.name,
            approvals_required: r.approvalsRequired,
            user_ids: JSON.stringify(r.userIds),
            group_ids: JSON.stringify(r.groupIds),
            approval_project_rule_id: r.id,
            created_at: now,
          })),
        )
        .execute();
    });
  }

  /** Adds a rule; null when the merge request has a rule of that name (concurrent requests included). */
  async insert(
    mergeRequestId: number,
    rule: Omit<MergeRequestRuleRecord, 'id'>,
    now: string,
  ): Promise<MergeRequestRuleRecord | null> {
    try {
      const row = await this.db
        .insertInto('merge_request_approval_rules')
        .values({
          merge_request_id: mergeRequestId,
          name: rule.name,
          approvals_required: rule.approvalsRequired,
          user_ids: JSON.stringify(rule.userIds),
          group_ids: JSON.stringify(rule.groupIds),
          approval_project_rule_id: rule.sourceRuleId,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toMergeRequestRule(row);
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  /** Changes a rule of the merge request; false when its new name is taken by another of its rules. */
  async update(
    mergeRequestId: number,
    id: number,
    change: Partial<Omit<MergeRequestRuleRecord, 'id' | 'sourceRuleId'>>,
  ): Promise<boolean> {
    try {
      await this.db
        .updateTable('merge_request_approval_rules')
        .set(ruleChange(change))
        .where('merge_request_id', '=', mergeRequestId)
        .where('id', '=', id)
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async delete(mergeRequestId: number, id: number): Promise<void> {
    await this.db
      .deleteFrom('merge_request_approval_rules')
      .where('merge_request_id', '=', mergeRequestId)
      .where('id', '=', id)
      .execute();
  }
}
