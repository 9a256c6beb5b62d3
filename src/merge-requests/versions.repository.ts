import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation, readTimestamp } from '../db/dialect.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, MergeRequestDiffsTable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { MergeRequestVersion, NewMergeRequestVersion } from './merge-requests.js';

function toVersion(r: Selectable<MergeRequestDiffsTable>): MergeRequestVersion {
  return {
    id: r.id,
    mergeRequestId: r.merge_request_id,
    number: r.number,
    baseSha: r.base_commit_sha,
    startSha: r.start_commit_sha,
    headSha: r.head_commit_sha,
    realSize: r.real_size,
    patchIdSha: r.patch_id_sha,
    createdAt: readTimestamp(r.created_at),
  };
}

/** The diff versions of merge requests (GitLab's `merge_request_diffs`). */
export class MergeRequestVersionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async latest(mergeRequestId: number): Promise<MergeRequestVersion | null> {
    const r = await this.db
      .selectFrom('merge_request_diffs')
      .selectAll()
      .where('merge_request_id', '=', mergeRequestId)
      .orderBy('number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r ? toVersion(r) : null;
  }

  /** Newest first, as GitLab lists them. */
  async list(mergeRequestId: number, page: PageRequest): Promise<Paged<MergeRequestVersion>> {
    const base = this.db.selectFrom('merge_request_diffs').where('merge_request_id', '=', mergeRequestId);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('number', 'desc'), page);
    return { items: rows.map(toVersion), total };
  }

  async find(mergeRequestId: number, id: number): Promise<MergeRequestVersion | null> {
    const r = await this.db
      .selectFrom('merge_request_diffs')
      .selectAll()
      .where('merge_request_id', '=', mergeRequestId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toVersion(r) : null;
  }

  /** Adds version `number`: its id; null when another recorder added that number first (nothing was stored). */
  async add(v: NewMergeRequestVersion, now: string): Promise<number | null> {
    try {
      const r = await this.db
        .insertInto('merge_request_diffs')
        .values({
          merge_request_id: v.mergeRequestId,
          number: v.number,
          base_commit_sha: v.baseSha,
          start_commit_sha: v.startSha,
          head_commit_sha: v.headSha,
          real_size: v.realSize,
          patch_id_sha: v.patchIdSha,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return r.id;
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }
}
