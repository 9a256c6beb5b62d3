import type { Kysely } from 'kysely';
import { isUniqueViolation, readTimestamp } from '../db/dialect.js';
import type { Database } from '../db/schema.js';

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
}
