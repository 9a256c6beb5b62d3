import type { Kysely, Selectable, Transaction } from 'kysely';
import {
  isUniqueViolation,
  readBool,
  readNullableTimestamp,
  readTimestamp,
  writeBool,
} from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, MergeRequestsTable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import {
  isDraftTitle,
  type MergeRequest,
  type MergeRequestFilter,
  type NewMergeRequest,
} from './merge-requests.js';

/** The partial unique index allowing one open merge request per project, source and target branch (0008). */
const ONE_OPEN_INDEX = {
  name: 'merge_requests_one_open',
  table: 'merge_requests',
  columns: ['project_id', 'source_branch', 'target_branch'],
};

function toMr(r: Selectable<MergeRequestsTable>): MergeRequest {
  return {
    id: r.id,
    projectId: r.project_id,
    iid: r.iid,
    title: r.title,
    description: r.description,
    sourceBranch: r.source_branch,
    targetBranch: r.target_branch,
    state: r.state as MergeRequest['state'],
    draft: isDraftTitle(r.title),
    authorId: r.author_id,
    mergeUserId: r.merge_user_id,
    mergedAt: readNullableTimestamp(r.merged_at),
    closedAt: readNullableTimestamp(r.closed_at),
    closedById: r.closed_by_id,
    mergeCommitSha: r.merge_commit_sha,
    forceRemoveSourceBranch:
      r.force_remove_source_branch === null ? null : readBool(r.force_remove_source_branch),
    shouldRemoveSourceBranch:
      r.should_remove_source_branch === null ? null : readBool(r.should_remove_source_branch),
    mergedDiff:
      r.diff_base_sha && r.diff_head_sha ? { baseSha: r.diff_base_sha, headSha: r.diff_head_sha } : null,
    mergeError: r.merge_error ?? null,
    rebaseInProgress: r.rebase_jid !== null && r.rebase_jid !== undefined,
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

/** Merge request rows. */
export class MergeRequestsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(projectId: number, iid: number): Promise<MergeRequest | null> {
    const r = await this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('iid', '=', iid)
      .executeTakeFirst();
    return r ? toMr(r) : null;
  }

  /** The iid of the open merge request for a source and target branch, if any. */
  async openFor(projectId: number, source: string, target: string): Promise<number | null> {
    const open = await this.db
      .selectFrom('merge_requests')
      .select('iid')
      .where('project_id', '=', projectId)
      .where('source_branch', '=', source)
      .where('target_branch', '=', target)
      .where('state', '=', 'opened')
      .executeTakeFirst();
    return open?.iid ?? null;
  }

  /**
   * Inserts an open merge request with the project's next iid, in one transaction; null when another open one
   * for the branch pair won the partial unique index `merge_requests_one_open` (migration 0008): then nothing
   * was stored and no iid spent.
   */
  async insert(mr: NewMergeRequest, now: string): Promise<number | null> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const next = await nextIid(trx, mr.projectId, 'merge_requests');
        await trx
          .insertInto('merge_requests')
          .values({
            project_id: mr.projectId,
            iid: next,
            title: mr.title,
            description: mr.description,
            source_branch: mr.sourceBranch,
            target_branch: mr.targetBranch,
            state: 'opened',
            author_id: mr.authorId,
            merge_user_id: null,
            merged_at: null,
            closed_at: null,
            closed_by_id: null,
            merge_commit_sha: null,
            force_remove_source_branch:
              mr.forceRemoveSourceBranch === null ? null : writeBool(mr.forceRemoveSourceBranch),
            should_remove_source_branch: null,
            diff_base_sha: null,
            diff_head_sha: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
        return next as number | null;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, ONE_OPEN_INDEX)) return null;
        throw err;
      });
  }

  async list(projectId: number, filter: MergeRequestFilter, page: PageRequest): Promise<Paged<MergeRequest>> {
    let base = this.db.selectFrom('merge_requests').where('project_id', '=', projectId);
    if (filter.state !== 'all') base = base.where('state', '=', filter.state);
    if (filter.sourceBranch !== undefined) base = base.where('source_branch', '=', filter.sourceBranch);
    if (filter.targetBranch !== undefined) base = base.where('target_branch', '=', filter.targetBranch);
    if (filter.iids !== undefined)
      base = base.where('iid', 'in', filter.iids.length > 0 ? [...filter.iids] : [-1]);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('iid', 'desc'), page);
    return { items: rows.map(toMr), total };
  }

  /**
   * Updates the editable fields and the state; false when the change would open a second merge request for the
   * branch pair (the partial unique index refused it; nothing changed).
   */
  async update(
    id: number,
    change: {
      title?: string;
      description?: string;
      targetBranch?: string;
      forceRemoveSourceBranch?: boolean;
      close?: { byId: number };
      reopen?: boolean;
    },
    now: string,
  ): Promise<boolean> {
    return this.db
      .updateTable('merge_requests')
      .set({
        ...(change.title !== undefined && { title: change.title }),
        ...(change.description !== undefined && { description: change.description }),
        ...(change.targetBranch !== undefined && { target_branch: change.targetBranch }),
        ...(change.forceRemoveSourceBranch !== undefined && {
          force_remove_source_branch: writeBool(change.forceRemoveSourceBranch),
        }),
        ...(change.close && {
          state: 'closed',
          closed_at: now,
          closed_by_id: change.close.byId,
          merge_error: null,
        }),
        ...(change.reopen && { state: 'opened', closed_at: null, closed_by_id: null }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute()
      .then(
        () => true,
        (err: unknown) => {
          if (isUniqueViolation(err, ONE_OPEN_INDEX)) return false;
          throw err;
        },
      );
  }

  /** Records a merge: who merged, the merge commit and the diff that was merged. */
  async markMerged(
    id: number,
    m: {
      mergeUserId: number;
      mergeCommitSha: string;
      shouldRemoveSourceBranch: boolean | null;
      baseSha: string;
      headSha: string;
    },
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('merge_requests')
      .set({
        state: 'merged',
        merge_user_id: m.mergeUserId,
        merged_at: now,
        merge_commit_sha: m.mergeCommitSha,
        should_remove_source_branch:
          m.shouldRemoveSourceBranch === null ? null : writeBool(m.shouldRemoveSourceBranch),
        diff_base_sha: m.baseSha,
        diff_head_sha: m.headSha,
        merge_error: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('merge_requests').where('id', '=', id).execute();
  }

  /**
   * The merged requests of a project whose merge commit is one of `mergeCommits`, or whose merged source head is
   * `head`; oldest first.
   */
  async mergedWith(
    projectId: number,
    mergeCommits: readonly string[],
    head: string,
  ): Promise<MergeRequest[]> {
    const rows = await this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('state', '=', 'merged')
      .where((eb) =>
        eb.or([
          ...(mergeCommits.length > 0 ? [eb('merge_commit_sha', 'in', [...mergeCommits])] : []),
          eb('diff_head_sha', '=', head),
        ]),
      )
      .orderBy('id')
      .limit(20)
      .execute();
    return rows.map(toMr);
  }

  async findById(id: number): Promise<MergeRequest | null> {
    const r = await this.db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toMr(r) : null;
  }

  /**
   * Marks a rebase in progress (GitLab's `rebase_jid`) on an open merge request that has none, and enqueues its job
   * (`enqueue`, in the same transaction): false when the request is not open or a rebase already runs.
   */
  async startRebase(
    id: number,
    jid: string,
    enqueue: (trx: Transaction<Database>) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('merge_requests')
        .set({ rebase_jid: jid })
        .where('id', '=', id)
        .where('state', '=', 'opened')
        .where('rebase_jid', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await enqueue(trx);
      return true;
    });
  }

  /** The id of the rebase in progress, if any. */
  async rebaseJid(id: number): Promise<string | null> {
    const r = await this.db
      .selectFrom('merge_requests')
      .select('rebase_jid')
      .where('id', '=', id)
      .executeTakeFirst();
    return r?.rebase_jid ?? null;
  }

  /** Ends the rebase `jid` (if it is still the one in progress) with its error, null when it succeeded. */
  async endRebase(id: number, jid: string, mergeError: string | null, now: string): Promise<void> {
    await this.db
      .updateTable('merge_requests')
      .set({ rebase_jid: null, merge_error: mergeError, updated_at: now })
      .where('id', '=', id)
      .where('rebase_jid', '=', jid)
      .execute();
  }
}
