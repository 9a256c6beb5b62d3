import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import {
  isUniqueViolation,
  readBool,
  readNullableTimestamp,
  readTimestamp,
  writeBool,
} from '../db/dialect.js';
import { nextIid } from '../db/internal-ids.js';
import { fetchPage } from '../db/paged.js';
import type { Database, MergeRequestsTable } from '../db/schema.js';
import { AppError, conflict, invalidFields, notFound, readOnlyError } from '../errors.js';
import { GitError } from '../git/git.js';
import type { RepositoriesService } from '../git/repositories.service.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../paging.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersRepository } from '../users/users.repository.js';
import { type FileDiff, parseDiff } from './diff.js';

export type DetailedMergeStatus =
  | 'mergeable'
  | 'conflict'
  | 'not_open'
  | 'draft_status'
  | 'checking'
  | 'need_rebase'
  | 'broken_status';

export interface MergeRequest {
  readonly id: number;
  readonly projectId: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string;
  readonly sourceBranch: string;
  readonly targetBranch: string;
  readonly state: 'opened' | 'closed' | 'merged';
  readonly draft: boolean;
  readonly authorId: number | null;
  readonly mergeUserId: number | null;
  readonly mergedAt: string | null;
  readonly closedAt: string | null;
  readonly closedById: number | null;
  readonly mergeCommitSha: string | null;
  /** Set on the request by its author: delete the source branch when merging. */
  readonly forceRemoveSourceBranch: boolean | null;
  /** Set by the merge: whether the source branch was deleted. */
  readonly shouldRemoveSourceBranch: boolean | null;
  /** Kept at merge time: the merge base and the source head that were merged. */
  readonly mergedDiff: { readonly baseSha: string; readonly headSha: string } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The commits a merge request's diff is between: merge base, target head (start) and source head. */
export interface DiffRefs {
  readonly baseSha: string;
  readonly startSha: string;
  readonly headSha: string;
}

/** A merge request with what svc computed from the repository and the users it refers to. */
export interface MergeRequestView extends MergeRequest {
  readonly project: Project;
  readonly detailedMergeStatus: DetailedMergeStatus;
  /** The v4 `merge_status`: whether git can merge the branches (unchecked for closed requests). */
  readonly mergeStatus: 'can_be_merged' | 'cannot_be_merged' | 'unchecked';
  readonly diffRefs: DiffRefs | null;
  readonly author: User | null;
  readonly mergeUser: User | null;
  readonly closedBy: User | null;
}

/** A commit as `git log` reports it. */
export interface Commit {
  readonly id: string;
  readonly parentIds: readonly string[];
  readonly title: string;
  readonly message: string;
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authoredDate: string;
  readonly committerName: string;
  readonly committerEmail: string;
  readonly committedDate: string;
}

export interface MergeRequestFilter {
  readonly state: 'opened' | 'closed' | 'merged' | 'all';
  readonly sourceBranch?: string;
  readonly targetBranch?: string;
}

/** The partial unique index allowing one open merge request per project, source and target branch (0008). */
const ONE_OPEN_INDEX = {
  name: 'merge_requests_one_open',
  table: 'merge_requests',
  columns: ['project_id', 'source_branch', 'target_branch'],
};
/** GitLab's 409 for a second open merge request of a branch pair (`branch_conflict`). */
const duplicateOpen = (iid: number | null) =>
  conflict(`Another open merge request already exists for this source branch: !${iid ?? '?'}`);

const DRAFT = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s)/i;

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
    draft: DRAFT.test(r.title),
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
    createdAt: readTimestamp(r.created_at),
    updatedAt: readTimestamp(r.updated_at),
  };
}

/** Merge requests on the project's real repository: merges are real merge commits made with git. */
export class MergeRequestsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly projects: ProjectsService,
    private readonly repos: RepositoriesService,
    private readonly users: UsersRepository,
    private readonly clock: Clock,
  ) {}

  private path(p: Project): string {
    return this.repos.path('project', p.id, p.repositoryStorage);
  }

  private async head(p: Project, branch: string): Promise<string | null> {
    const out = await this.repos.git
      .run(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: this.path(p) })
      .catch(() => '');
    return out.trim() || null;
  }

  /** Merges `source` into `target` in memory (git merge-tree): the tree, or null on conflicts. */
  private async mergeTree(p: Project, target: string, source: string): Promise<string | null> {
    try {
      const out = await this.repos.git.run(['merge-tree', '--write-tree', target, source], {
        cwd: this.path(p),
      });
      return out.split('\n')[0]!.trim();
    } catch (err) {
      // Exit status 1 is git's "the merge has conflicts"; branches without a common history cannot be
      // merged either. Anything else is a real failure.
      if (err instanceof GitError && (err.exitCode === 1 || /unrelated histories/.test(err.message)))
        return null;
      throw err;
    }
  }

  private user(id: number | null): Promise<User | null> {
    return id === null ? Promise.resolve(null) : this.users.findById(id);
  }

  private async view(p: Project, mr: MergeRequest): Promise<MergeRequestView> {
    const [author, mergeUser, closedBy, diffRefs] = await Promise.all([
      this.user(mr.authorId),
      this.user(mr.mergeUserId),
      this.user(mr.closedById),
      this.diffRefs(p, mr),
    ]);
    return {
      ...mr,
      project: p,
      author,
      mergeUser,
      closedBy,
      diffRefs,
      ...(await this.status(p, mr, diffRefs)),
    };
  }

  /** The diff's commits: as kept at merge time for merged requests, otherwise from the branches now. */
  private async diffRefs(p: Project, mr: MergeRequest): Promise<DiffRefs | null> {
    const cwd = this.path(p);
    if (mr.state === 'merged' && mr.mergedDiff && mr.mergeCommitSha) {
      const start = await this.repos.git
        .run(['rev-parse', `${mr.mergeCommitSha}^1`], { cwd })
        .catch(() => mr.mergedDiff!.baseSha);
      return { ...mr.mergedDiff, startSha: start.trim() };
    }
    const [target, source] = await Promise.all([
      this.head(p, mr.targetBranch),
      this.head(p, mr.sourceBranch),
    ]);
    if (!target || !source) return null;
    // Unrelated histories have no merge base; the diff is then against the target head.
    const base = await this.repos.git.run(['merge-base', target, source], { cwd }).catch(() => target);
    return { baseSha: base.trim(), startSha: target, headSha: source };
  }

  /** GitLab's merge statuses, computed from the repository now (so never "checking"). */
  private async status(
    p: Project,
    mr: MergeRequest,
    refs: DiffRefs | null,
  ): Promise<Pick<MergeRequestView, 'detailedMergeStatus' | 'mergeStatus'>> {
    if (mr.state === 'merged') return { detailedMergeStatus: 'not_open', mergeStatus: 'can_be_merged' };
    if (mr.state === 'closed') return { detailedMergeStatus: 'not_open', mergeStatus: 'unchecked' };
    const mergeable = refs !== null && (await this.mergeTree(p, refs.startSha, refs.headSha)) !== null;
    const mergeStatus = mergeable ? 'can_be_merged' : 'cannot_be_merged';
    if (mr.draft) return { detailedMergeStatus: 'draft_status', mergeStatus };
    if (!refs) return { detailedMergeStatus: 'broken_status', mergeStatus };
    return { detailedMergeStatus: mergeable ? 'mergeable' : 'conflict', mergeStatus };
  }

  private async row(p: Project, iid: number) {
    const r = await this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', p.id)
      .where('iid', '=', iid)
      .executeTakeFirst();
    if (!r) throw notFound('Merge Request');
    return r;
  }

  /** The iid of the open merge request for a source and target branch, if any. */
  private async openFor(projectId: number, source: string, target: string): Promise<number | null> {
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

  async create(
    actor: User | null,
    idOrPath: string,
    input: {
      source_branch: string;
      target_branch: string;
      title: string;
      description?: string;
      remove_source_branch?: boolean;
    },
  ): Promise<MergeRequestView> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Developer);
    const errors: Record<string, string[]> = {};
    if (!input.title.trim()) errors.title = ["can't be blank"];
    if (input.source_branch === input.target_branch)
      errors.branch_conflict = ['You can’t use same project/branch for source and target'];
    if (!(await this.head(project, input.source_branch))) errors.source_branch = ['is invalid'];
    if (!(await this.head(project, input.target_branch))) errors.target_branch = ['is invalid'];
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    const existing = await this.openFor(project.id, input.source_branch, input.target_branch);
    if (existing !== null) throw duplicateOpen(existing);
    const now = this.clock.now().toISOString();
    // The iid and the row in one transaction; the partial unique index `merge_requests_one_open` (migration 0008)
    // lets one of concurrent requests for a branch pair win: the others roll back (no iid spent) and get the 409.
    const iid = await this.db
      .transaction()
      .execute(async (trx) => {
        const next = await nextIid(trx, project.id, 'merge_requests');
        await trx
          .insertInto('merge_requests')
          .values({
            project_id: project.id,
            iid: next,
            title: input.title.trim(),
            description: input.description ?? '',
            source_branch: input.source_branch,
            target_branch: input.target_branch,
            state: 'opened',
            author_id: actor!.id,
            merge_user_id: null,
            merged_at: null,
            closed_at: null,
            closed_by_id: null,
            merge_commit_sha: null,
            force_remove_source_branch:
              input.remove_source_branch === undefined ? null : writeBool(input.remove_source_branch),
            should_remove_source_branch: null,
            diff_base_sha: null,
            diff_head_sha: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
        return next;
      })
      .catch(async (err: unknown) => {
        if (!isUniqueViolation(err, ONE_OPEN_INDEX)) throw err;
        throw duplicateOpen(await this.openFor(project.id, input.source_branch, input.target_branch));
      });
    return this.get(actor, String(project.id), iid);
  }

  async list(
    actor: User | null,
    idOrPath: string,
    filter: MergeRequestFilter,
    page: PageRequest,
  ): Promise<Paged<MergeRequestView>> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    let base = this.db.selectFrom('merge_requests').where('project_id', '=', project.id);
    if (filter.state !== 'all') base = base.where('state', '=', filter.state);
    if (filter.sourceBranch !== undefined) base = base.where('source_branch', '=', filter.sourceBranch);
    if (filter.targetBranch !== undefined) base = base.where('target_branch', '=', filter.targetBranch);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('iid', 'desc'), page);
    return { items: await Promise.all(rows.map((r) => this.view(project, toMr(r)))), total };
  }

  async get(actor: User | null, idOrPath: string, iid: number): Promise<MergeRequestView> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    return this.view(project, toMr(await this.row(project, iid)));
  }

  async update(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: {
      title?: string;
      description?: string;
      target_branch?: string;
      state_event?: 'close' | 'reopen';
      remove_source_branch?: boolean;
    },
  ): Promise<MergeRequestView> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Developer);
    const mr = toMr(await this.row(project, iid));
    if (input.title !== undefined && !input.title.trim()) throw invalidFields({ title: ["can't be blank"] });
    if (input.target_branch !== undefined && !(await this.head(project, input.target_branch)))
      throw invalidFields({ target_branch: ['is invalid'] });
    if (mr.state === 'merged' && (input.state_event || input.target_branch))
      throw new AppError(405, { message: '405 Method Not Allowed' });
    const now = this.clock.now().toISOString();
    const opensPair =
      (input.state_event === 'reopen' && mr.state !== 'opened') ||
      (input.target_branch !== undefined && input.state_event !== 'close' && mr.state === 'opened');
    const targetBranch = input.target_branch ?? mr.targetBranch;
    if (opensPair) {
      const existing = await this.openFor(project.id, mr.sourceBranch, targetBranch);
      if (existing !== null && existing !== mr.iid) throw duplicateOpen(existing);
    }
    await this.db
      .updateTable('merge_requests')
      .set({
        ...(input.title !== undefined && { title: input.title.trim() }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.target_branch !== undefined && { target_branch: input.target_branch }),
        ...(input.remove_source_branch !== undefined && {
          force_remove_source_branch: writeBool(input.remove_source_branch),
        }),
        ...(input.state_event === 'close' && { state: 'closed', closed_at: now, closed_by_id: actor!.id }),
        ...(input.state_event === 'reopen' && { state: 'opened', closed_at: null, closed_by_id: null }),
        updated_at: now,
      })
      .where('id', '=', mr.id)
      .execute()
      .catch(async (err: unknown) => {
        if (!isUniqueViolation(err, ONE_OPEN_INDEX)) throw err;
        throw duplicateOpen(await this.openFor(project.id, mr.sourceBranch, targetBranch));
      });
    return this.get(actor, String(project.id), iid);
  }

  /** Merges with a real merge commit on the target branch; refused clearly when it cannot be merged. */
  async merge(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: { merge_commit_message?: string; sha?: string; should_remove_source_branch?: boolean },
  ): Promise<MergeRequestView> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Developer);
    if (project.repositoryReadOnly) throw readOnlyError();
    const mr = toMr(await this.row(project, iid));
    if (mr.state !== 'opened') throw new AppError(405, { message: '405 Method Not Allowed' });
    if (mr.draft)
      throw new AppError(406, { message: '406 Branch cannot be merged: the merge request is a draft' });
    const [target, source] = await Promise.all([
      this.head(project, mr.targetBranch),
      this.head(project, mr.sourceBranch),
    ]);
    if (!target || !source)
      throw new AppError(406, { message: '406 Branch cannot be merged: a branch is missing' });
    if (input.sha !== undefined && input.sha !== source) {
      throw new AppError(409, { message: 'SHA does not match HEAD of source branch' });
    }
    const tree = await this.mergeTree(project, target, source);
    if (tree === null)
      throw new AppError(406, { message: '406 Branch cannot be merged: the branches have conflicts' });
    const path = this.path(project);
    const base = (await this.repos.git.run(['merge-base', target, source], { cwd: path })).trim();
    const merger = actor!;
    const message =
      input.merge_commit_message ??
      `Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'\n\n${mr.title}\n\nSee merge request !${mr.iid}`;
    const env = {
      GIT_AUTHOR_NAME: merger.name,
      GIT_AUTHOR_EMAIL: merger.email,
      GIT_COMMITTER_NAME: merger.name,
      GIT_COMMITTER_EMAIL: merger.email,
    };
    const commit = (
      await this.repos.git.run(['commit-tree', tree, '-p', target, '-p', source, '-m', message], {
        cwd: path,
        env,
      })
    ).trim();
    // Compare-and-swap: a push to the target since we read it makes this fail rather than lose that push.
    try {
      await this.repos.git.run(['update-ref', `refs/heads/${mr.targetBranch}`, commit, target], {
        cwd: path,
      });
    } catch {
      throw new AppError(409, { message: 'The target branch changed during the merge; try again' });
    }
    const removeSource = input.should_remove_source_branch ?? mr.forceRemoveSourceBranch ?? false;
    // Deleted only if nobody pushed to it meanwhile (old value given): their commits are not lost.
    if (removeSource)
      await this.repos.git
        .run(['update-ref', '-d', `refs/heads/${mr.sourceBranch}`, source], { cwd: path })
        .catch(() => undefined);
    const now = this.clock.now().toISOString();
    await this.db
      .updateTable('merge_requests')
      .set({
        state: 'merged',
        merge_user_id: merger.id,
        merged_at: now,
        merge_commit_sha: commit,
        should_remove_source_branch:
          input.should_remove_source_branch === undefined
            ? null
            : writeBool(input.should_remove_source_branch),
        diff_base_sha: base,
        diff_head_sha: source,
        updated_at: now,
      })
      .where('id', '=', mr.id)
      .execute();
    await this.projects.touchActivity(project.id);
    return this.get(actor, String(project.id), iid);
  }

  /** The merge request's file diffs (against the merge base; kept as they were for merged requests). */
  async diffs(actor: User | null, idOrPath: string, iid: number): Promise<FileDiff[]> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    return this.diffBetween(project, await this.diffRefs(project, toMr(await this.row(project, iid))));
  }

  /** The merge request with its diffs (the v4 `/changes` endpoint), reading the repository once. */
  async changes(
    actor: User | null,
    idOrPath: string,
    iid: number,
  ): Promise<{ mr: MergeRequestView; diffs: FileDiff[] }> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.view(project, toMr(await this.row(project, iid)));
    return { mr, diffs: await this.diffBetween(project, mr.diffRefs) };
  }

  private async diffBetween(project: Project, refs: DiffRefs | null): Promise<FileDiff[]> {
    if (!refs) return [];
    const out = await this.repos.git.run(
      ['-c', 'core.quotePath=false', 'diff', '-M', '--no-color', '--full-index', refs.baseSha, refs.headSha],
      { cwd: this.path(project) },
    );
    return parseDiff(out);
  }

  /** The merge request's commits, newest first (GitLab's order). */
  async commits(
    actor: User | null,
    idOrPath: string,
    iid: number,
  ): Promise<{ project: Project; commits: Commit[] }> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    const refs = await this.diffRefs(project, toMr(await this.row(project, iid)));
    if (!refs) return { project, commits: [] };
    // Fields separated by NUL, records by RS (0x1e): messages may hold any other character.
    const format = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00');
    const out = await this.repos.git.run(
      ['log', `--format=${format}%x1e`, `${refs.baseSha}..${refs.headSha}`],
      {
        cwd: this.path(project),
      },
    );
    const commits = out
      .split('\x1e')
      .map((r) => r.replace(/^\n/, ''))
      .filter((r) => r !== '')
      .map((r) => {
        const [id, parents, an, ae, ad, cn, ce, cd, body] = r.split('\0') as string[];
        const message = body!.replace(/\n+$/, '\n');
        return {
          id: id!,
          parentIds: parents ? parents.split(' ') : [],
          title: message.split('\n')[0]!,
          message,
          authorName: an!,
          authorEmail: ae!,
          authoredDate: ad!,
          committerName: cn!,
          committerEmail: ce!,
          committedDate: cd!,
        };
      });
    return { project, commits };
  }

  /** Deletes a merge request (GitLab: Owners and admins); its branches and commits stay. */
  async delete(actor: User | null, idOrPath: string, iid: number): Promise<void> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Owner);
    const row = await this.row(project, iid);
    await this.db.deleteFrom('merge_requests').where('id', '=', row.id).execute();
  }
}
