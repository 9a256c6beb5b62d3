import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import type { PushTracker } from '../cluster/push-tracker.js';
import {
  AppError,
  conflict,
  forbidden,
  invalidFields,
  notFound,
  plainError,
  READ_ONLY_MESSAGE,
  readOnlyError,
  unauthorized,
} from '../errors.js';
import { type Commit, LOG_FORMAT, parseLog } from '../git/commits.js';
import { type FileDiff, parseDiff } from '../git/diff.js';
import { GitError } from '../git/git.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import type { Outbox, ProjectEvent } from '../ingest/outbox.js';
import type { JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { Noteable } from '../notes/notes.js';
import type { NotesService } from '../notes/notes.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import {
  MergeRefusedError,
  type MergeRequest,
  type MergeRequestFilter,
  type MergeRequestVersion,
} from './merge-requests.js';
import type { MergeRequestsRepository } from './merge-requests.repository.js';
import { SystemNoteText } from './system-notes.js';
import type { MergeRequestVersionsRepository } from './versions.repository.js';

export type DetailedMergeStatus =
  | 'mergeable'
  | 'conflict'
  | 'not_open'
  | 'draft_status'
  | 'checking'
  | 'need_rebase'
  | 'broken_status'
  | 'not_approved';

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

export type { Commit } from '../git/commits.js';

/** GitLab's 409 for a second open merge request of a branch pair (`branch_conflict`). */
const duplicateOpen = (iid: number | null) =>
  conflict(`Another open merge request already exists for this source branch: !${iid ?? '?'}`);

/** Rebases a merge request's source branch onto its target (GitLab's RebaseWorker). */
export const REBASE_JOB = 'merge_request.rebase';

/** GitLab's `merge_error` after a rebase git could not do (RebaseService::REBASE_ERROR). */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

/** GitLab's MergeabilityCheckService answers (400 from `GET .../merge_ref`). */
const NOT_MERGEABLE = 'Merge request is not mergeable';
const REF_NOT_UPDATED = 'Merge ref cannot be updated';

/** GitLab's answer when a rebase cannot start: the request is not open, or a rebase already runs. */
const resourceLock = () => plainError('conflict', '409 Conflict: Resource lock');

/** `@username` mentions outside code (GitLab's user references, roughly: the markdown renderer skips code). */
function mentionedUsernames(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
  return [...prose.matchAll(/(?<![\w@.])@([a-zA-Z0-9_][a-zA-Z0-9_.-]*[a-zA-Z0-9_])/g)].map((m) => m[1]!);
}

/** What a rebase job carries: the merge request, who asked, and the id marking it in progress. */
interface RebaseJob {
  readonly mergeRequestId: number;
  readonly userId: number;
  readonly jid: string;
}

/** A merge request as the notes feature knows it. */
export const noteableOf = (mr: MergeRequest): Noteable => ({
  type: 'MergeRequest',
  id: mr.id,
  iid: mr.iid,
  projectId: mr.projectId,
});

/** Merge requests on the project's real repository: merges are real merge commits made with git. */
export class MergeRequestsService {
  /**
   * Approvals a merge request still needs before it may be merged; set by the merge request approvals service
   * (which reads merge requests through this one), none until then.
   */
  approvalsLeft: (project: Project, mr: MergeRequest) => Promise<number> = async () => 0;

  /**
   * Called when an open merge request's source branch is found at another commit than its latest diff version's
   * (new commits, or a rewritten branch), before the new version is recorded; set by the approvals service, which
   * removes the approvals the project wants given again. `pusher`: who pushed, when a push recorded it.
   */
  sourcePushed: (project: Project, mr: MergeRequest, pusher: User | null) => Promise<void> = async () =>
    undefined;

  constructor(
    private readonly mrs: MergeRequestsRepository,
    private readonly versionsRepo: MergeRequestVersionsRepository,
    private readonly projects: ProjectsService,
    private readonly access: Access,
    private readonly repos: GitRepositoriesService,
    private readonly users: Pick<UsersService, 'findById' | 'findByUsername'>,
    private readonly notes: NotesService,
    private readonly clock: Clock,
    /** Pushes in progress: every write to a repository here is recorded as a push is (storage moves wait for it). */
    private readonly pushes: Pick<PushTracker, 'begin'>,
    private readonly jobs: JobQueue,
    /** Where temporary work trees (rebases) live: under svc's data directory. */
    private readonly scratchDir: string,
    /** Where merge request events for project hooks are written; none: no events. */
    private readonly outbox: Pick<Outbox, 'emit'> | null = null,
  ) {
    jobs.register(REBASE_JOB, async (job) => this.runRebase(job.payload as RebaseJob));
  }

  /**
   * Runs `write` as a push would: refused while a storage move makes the repository read-only, and recorded for the
   * moves of every process while it runs (a move scheduled meanwhile waits for it; see PushTracker).
   */
  private async writing<T>(p: Project, write: (path: string) => Promise<T>): Promise<T> {
    if (p.repositoryReadOnly) throw readOnlyError();
    const end = await this.pushes.begin(`project:${p.id}`);
    if (!end) throw readOnlyError();
    try {
      // Read again once recorded: a move that ended since `p` was read switched the storage, and none can start now.
      const now = await this.projects.findById(p.id);
      if (!now) throw notFound('Project');
      return await write(this.path(now));
    } finally {
      await end();
    }
  }

  /**
   * Writes a merge request event for project hooks (GitLab's `action`), after the change it tells of committed
   * (the merge request's writes have no transaction to share; see `Outbox.emit`).
   */
  async emitEvent(
    projectId: number,
    iid: number,
    action: Extract<ProjectEvent, { kind: 'merge_request' }>['action'],
    userId: number | null,
    extra: Pick<Extract<ProjectEvent, { kind: 'merge_request' }>, 'changes' | 'oldrev'> = {},
  ): Promise<void> {
    await this.outbox?.emit('project.event', {
      kind: 'merge_request',
      eventId: randomUUID(),
      projectId,
      iid,
      action,
      userId,
      ...extra,
    });
  }

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
  private mergeTree(p: Project, target: string, source: string): Promise<string | null> {
    return this.mergeTreeIn(this.path(p), target, source);
  }

  /** `mergeTree` in the repository at `path` (the one a write goes to: its objects must hold the tree). */
  private async mergeTreeIn(path: string, target: string, source: string): Promise<string | null> {
    try {
      const out = await this.repos.git.run(['merge-tree', '--write-tree', target, source], {
        cwd: path,
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
    if (!mergeable) return { detailedMergeStatus: 'conflict', mergeStatus };
    // Git could merge it; the merge rules may still refuse it (GitLab checks approvals after the git state).
    if ((await this.approvalsLeft(p, mr)) > 0) return { detailedMergeStatus: 'not_approved', mergeStatus };
    return { detailedMergeStatus: 'mergeable', mergeStatus };
  }

  private async find(p: Project, iid: number): Promise<MergeRequest> {
    const mr = await this.mrs.find(p.id, iid);
    if (!mr) throw notFound('Merge Request');
    return mr;
  }

  /**
   * A merge request the caller may read, with the caller's level in its project, without computing its status
   * (for its notes): 404 when hidden, 401/403 below Reporter, as for reading it.
   */
  async readable(
    actor: User | null,
    idOrPath: string,
    iid: number,
  ): Promise<{ project: Project; mr: MergeRequest; level: number }> {
    const { project, level } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    return { project, mr: await this.find(project, iid), level };
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
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    const errors: Record<string, string[]> = {};
    if (!input.title.trim()) errors.title = ["can't be blank"];
    if (input.source_branch === input.target_branch)
      errors.branch_conflict = ['You can’t use same project/branch for source and target'];
    if (!(await this.head(project, input.source_branch))) errors.source_branch = ['is invalid'];
    if (!(await this.head(project, input.target_branch))) errors.target_branch = ['is invalid'];
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    const existing = await this.mrs.openFor(project.id, input.source_branch, input.target_branch);
    if (existing !== null) throw duplicateOpen(existing);
    // Concurrent requests for a branch pair: the database lets one win; the others get the 409.
    const iid = await this.mrs.insert(
      {
        projectId: project.id,
        title: input.title.trim(),
        description: input.description ?? '',
        sourceBranch: input.source_branch,
        targetBranch: input.target_branch,
        authorId: actor!.id,
        forceRemoveSourceBranch: input.remove_source_branch ?? null,
      },
      this.clock.now().toISOString(),
    );
    if (iid === null)
      throw duplicateOpen(await this.mrs.openFor(project.id, input.source_branch, input.target_branch));
    await this.recordVersion(project, await this.find(project, iid), null);
    await this.emitEvent(project.id, iid, 'open', actor!.id);
    return this.get(actor, String(project.id), iid);
  }

  async list(
    actor: User | null,
    idOrPath: string,
    filter: MergeRequestFilter,
    page: PageRequest,
  ): Promise<Paged<MergeRequestView>> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const { items, total } = await this.mrs.list(project.id, filter, page);
    return { items: await Promise.all(items.map((mr) => this.view(project, mr))), total };
  }

  /** A merge request as it is now, for the system (its events' payloads): no caller check; null when gone. */
  async viewForSystem(projectId: number, iid: number): Promise<MergeRequestView | null> {
    const project = await this.projects.findById(projectId);
    const mr = project && (await this.mrs.find(project.id, iid));
    return project && mr ? this.view(project, mr) : null;
  }

  /**
   * The merge request that merged `commit`, for the system (no caller check): the one whose merge commit is `commit`
   * or `mergeCommit` (the merge that brought `commit` into a branch), else one whose merged source head was
   * `commit`. Null when none did.
   */
  async mergedCommit(
    projectId: number,
    commit: string,
    mergeCommit: string | null,
  ): Promise<MergeRequest | null> {
    const found = await this.mrs.mergedWith(
      projectId,
      mergeCommit ? [commit, mergeCommit] : [commit],
      commit,
    );
    return (
      found.find((mr) => mr.mergeCommitSha === commit) ??
      found.find((mr) => mr.mergeCommitSha === mergeCommit) ??
      found[0] ??
      null
    );
  }

  async get(actor: User | null, idOrPath: string, iid: number): Promise<MergeRequestView> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    return this.view(project, await this.find(project, iid));
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
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    const mr = await this.find(project, iid);
    if (input.title !== undefined && !input.title.trim()) throw invalidFields({ title: ["can't be blank"] });
    if (input.target_branch !== undefined && !(await this.head(project, input.target_branch)))
      throw invalidFields({ target_branch: ['is invalid'] });
    if (mr.state === 'merged' && (input.state_event || input.target_branch))
      throw new MergeRefusedError('not_open');
    const now = this.clock.now().toISOString();
    const opensPair =
      (input.state_event === 'reopen' && mr.state !== 'opened') ||
      (input.target_branch !== undefined && input.state_event !== 'close' && mr.state === 'opened');
    const targetBranch = input.target_branch ?? mr.targetBranch;
    if (opensPair) {
      const existing = await this.mrs.openFor(project.id, mr.sourceBranch, targetBranch);
      if (existing !== null && existing !== mr.iid) throw duplicateOpen(existing);
    }
    const updated = await this.mrs.update(
      mr.id,
      {
        ...(input.title !== undefined && { title: input.title.trim() }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.target_branch !== undefined && { targetBranch: input.target_branch }),
        ...(input.remove_source_branch !== undefined && {
          forceRemoveSourceBranch: input.remove_source_branch,
        }),
        ...(input.state_event === 'close' && { close: { byId: actor!.id } }),
        ...(input.state_event === 'reopen' && { reopen: true }),
      },
      now,
    );
    if (!updated) throw duplicateOpen(await this.mrs.openFor(project.id, mr.sourceBranch, targetBranch));
    if (input.state_event === 'close' && mr.state === 'opened')
      await this.notes.addSystemNote(null, noteableOf(mr), actor!.id, SystemNoteText.closed);
    if (input.state_event === 'reopen' && mr.state === 'closed')
      await this.notes.addSystemNote(null, noteableOf(mr), actor!.id, SystemNoteText.reopened);
    // A new target (or a reopened request whose branches moved) is a new diff.
    const after = await this.find(project, iid);
    await this.recordVersion(project, after, null);
    if (input.state_event === 'close' && mr.state === 'opened')
      await this.emitEvent(project.id, iid, 'close', actor!.id);
    else if (input.state_event === 'reopen' && mr.state === 'closed')
      await this.emitEvent(project.id, iid, 'reopen', actor!.id);
    else {
      // GitLab's `changes`: each attribute the update changed, before and after.
      const changes: Record<string, { previous: unknown; current: unknown }> = {};
      const fields = [
        ['title', mr.title, after.title],
        ['description', mr.description, after.description],
        ['target_branch', mr.targetBranch, after.targetBranch],
        ['draft', mr.draft, after.draft],
      ] as const;
      for (const [name, previous, current] of fields)
        if (previous !== current) changes[name] = { previous, current };
      if (Object.keys(changes).length > 0)
        await this.emitEvent(project.id, iid, 'update', actor!.id, {
          changes: { ...changes, updated_at: { previous: mr.updatedAt, current: after.updatedAt } },
        });
    }
    return this.get(actor, String(project.id), iid);
  }

  /** Merges with a real merge commit on the target branch; refused clearly when it cannot be merged. */
  async merge(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: { merge_commit_message?: string; sha?: string; should_remove_source_branch?: boolean },
  ): Promise<MergeRequestView> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    if (project.repositoryReadOnly) throw readOnlyError();
    const mr = await this.find(project, iid);
    if (mr.state !== 'opened') throw new MergeRefusedError('not_open');
    if (mr.draft) throw new MergeRefusedError('draft');
    const [target, source] = await Promise.all([
      this.head(project, mr.targetBranch),
      this.head(project, mr.sourceBranch),
    ]);
    if (!target || !source) throw new MergeRefusedError('branch_missing');
    if (input.sha !== undefined && input.sha !== source) throw new MergeRefusedError('sha_mismatch');
    if ((await this.approvalsLeft(project, mr)) > 0) throw new MergeRefusedError('not_approved');
    const tree = await this.mergeTree(project, target, source);
    if (tree === null) throw new MergeRefusedError('conflicts');
    const path = this.path(project);
    const base = (await this.repos.git.run(['merge-base', target, source], { cwd: path })).trim();
    const merger = actor!;
    const message = input.merge_commit_message ?? this.mergeMessage(mr);
    const env = {
      GIT_AUTHOR_NAME: merger.name,
      GIT_AUTHOR_EMAIL: merger.email,
      GIT_COMMITTER_NAME: merger.name,
      GIT_COMMITTER_EMAIL: merger.email,
    };
    const removeSource = input.should_remove_source_branch ?? mr.forceRemoveSourceBranch ?? false;
    const commit = await this.writing(project, async (path) => {
      // Written again where the write goes (a storage move may have switched the repository since).
      const merged = await this.mergeTreeIn(path, target, source);
      if (merged === null) throw new MergeRefusedError('conflicts');
      const made = (
        await this.repos.git.run(['commit-tree', merged, '-p', target, '-p', source, '-m', message], {
          cwd: path,
          env,
        })
      ).trim();
      // Compare-and-swap: a push to the target since we read it makes this fail rather than lose that push.
      try {
        await this.repos.git.run(['update-ref', `refs/heads/${mr.targetBranch}`, made, target], {
          cwd: path,
        });
      } catch {
        throw new MergeRefusedError('target_changed');
      }
      // Deleted only if nobody pushed to it meanwhile (old value given): their commits are not lost.
      if (removeSource)
        await this.repos.git
          .run(['update-ref', '-d', `refs/heads/${mr.sourceBranch}`, source], { cwd: path })
          .catch(() => undefined);
      return made;
    });
    await this.mrs.markMerged(
      mr.id,
      {
        mergeUserId: merger.id,
        mergeCommitSha: commit,
        shouldRemoveSourceBranch: input.should_remove_source_branch ?? null,
        baseSha: base,
        headSha: source,
      },
      this.clock.now().toISOString(),
    );
    await this.notes.addSystemNote(null, noteableOf(mr), merger.id, SystemNoteText.merged);
    await this.projects.touchActivity(project.id);
    await this.emitEvent(project.id, iid, 'merge', merger.id);
    return this.get(actor, String(project.id), iid);
  }

  /** The merge request's file diffs (against the merge base; kept as they were for merged requests). */
  async diffs(actor: User | null, idOrPath: string, iid: number): Promise<FileDiff[]> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    return this.diffBetween(project, await this.diffRefs(project, await this.find(project, iid)));
  }

  /** The merge request with its diffs (the v4 `/changes` endpoint), reading the repository once. */
  async changes(
    actor: User | null,
    idOrPath: string,
    iid: number,
  ): Promise<{ mr: MergeRequestView; diffs: FileDiff[] }> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.view(project, await this.find(project, iid));
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
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const refs = await this.diffRefs(project, await this.find(project, iid));
    return { project, commits: refs ? await this.commitsBetween(project, refs) : [] };
  }

  /**
   * The e-mail addresses (lower case) that authored or committed the merge request's commits, for the approvals
   * service (no caller check): who added commits to it.
   */
  async commitEmails(project: Project, mr: MergeRequest): Promise<Set<string>> {
    const refs = await this.diffRefs(project, mr);
    const commits = refs ? await this.commitsBetween(project, refs) : [];
    return new Set(commits.flatMap((c) => [c.authorEmail.toLowerCase(), c.committerEmail.toLowerCase()]));
  }

  /** The commits of `base..head`, newest first. */
  private async commitsBetween(project: Project, refs: Omit<DiffRefs, 'startSha'>): Promise<Commit[]> {
    const out = await this.repos.git.run(
      ['log', `--format=${LOG_FORMAT}`, `${refs.baseSha}..${refs.headSha}`],
      {
        cwd: this.path(project),
      },
    );
    return parseLog(out);
  }

  /** The default merge commit message (GitLab's `default_merge_commit_message`). */
  private mergeMessage(mr: MergeRequest): string {
    return `Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'\n\n${mr.title}\n\nSee merge request !${mr.iid}`;
  }

  /** A commit's id and parents, or null when `ref` names none. */
  private async commitAt(p: Project, ref: string): Promise<{ id: string; parents: string[] } | null> {
    const out = await this.repos.git
      .run(['rev-list', '--parents', '-n', '1', ref, '--'], { cwd: this.path(p) })
      .catch(() => '');
    const [id, ...parents] = out.trim().split(' ');
    return id ? { id, parents } : null;
  }

  /**
   * `GET .../merge_ref`: the merge commit of the source head into the target head at `refs/merge-requests/:iid/merge`
   * (GitLab's MergeToRefService through MergeabilityCheckService with `recheck`), written when missing or out of date,
   * as the merge request's author (GitLab's choice), with the default merge message. 400 with GitLab's messages when
   * git cannot merge the branches or the ref cannot be written. The write is a push for storage moves (read-only:
   * refused; in progress: recorded).
   */
  async mergeRef(actor: User | null, idOrPath: string, iid: number): Promise<string> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.find(project, iid);
    const ref = `refs/merge-requests/${mr.iid}/merge`;
    const existing = await this.commitAt(project, ref);
    if (mr.state !== 'opened') {
      // A closed or merged request keeps the ref it had; none is written any more.
      if (existing) return existing.id;
      throw plainError('bad_request', NOT_MERGEABLE);
    }
    const [target, source] = await Promise.all([
      this.head(project, mr.targetBranch),
      this.head(project, mr.sourceBranch),
    ]);
    if (!target || !source) throw plainError('bad_request', NOT_MERGEABLE);
    const upToDate = (c: { parents: string[] } | null) =>
      c !== null && c.parents.length === 2 && c.parents[0] === target && c.parents[1] === source;
    if (upToDate(existing)) return existing!.id;
    const tree = await this.mergeTree(project, target, source);
    if (tree === null) throw plainError('bad_request', NOT_MERGEABLE);
    const by = (await this.user(mr.authorId)) ?? actor;
    if (!by) throw plainError('bad_request', REF_NOT_UPDATED);
    const env = {
      GIT_AUTHOR_NAME: by.name,
      GIT_AUTHOR_EMAIL: by.email,
      GIT_COMMITTER_NAME: by.name,
      GIT_COMMITTER_EMAIL: by.email,
    };
    return this.writing(project, async (cwd) => {
      const merged = await this.mergeTreeIn(cwd, target, source);
      if (merged === null) throw plainError('bad_request', NOT_MERGEABLE);
      const commit = (
        await this.repos.git.run(
          ['commit-tree', merged, '-p', target, '-p', source, '-m', this.mergeMessage(mr)],
          {
            cwd,
            env,
          },
        )
      ).trim();
      // Compare-and-swap on the value read: a concurrent request that wrote it first wins, and its ref is answered.
      const old = existing?.id ?? '0'.repeat(commit.length);
      const swapped = await this.repos.git.run(['update-ref', ref, commit, old], { cwd }).then(
        () => true,
        () => false,
      );
      if (swapped) return commit;
      const now = await this.commitAt(project, ref);
      if (upToDate(now)) return now!.id;
      throw plainError('bad_request', REF_NOT_UPDATED);
    });
  }

  /**
   * `GET .../participants`: GitLab's Participable order (reviewers, assignees, the authors of the notes oldest first,
   * the author, then the users mentioned in the title, description and notes), each once, keeping only users who may
   * read the merge request. svc's merge requests have no assignees or reviewers yet.
   */
  async participants(actor: User | null, idOrPath: string, iid: number): Promise<User[]> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.find(project, iid);
    const noteable = noteableOf(mr);
    const notes = [];
    for (let page = 1; ; page++) {
      const batch = await this.notes.list(
        noteable,
        { orderBy: 'created_at', sort: 'asc' },
        { page, perPage: 100 },
      );
      notes.push(...batch.items);
      if (batch.items.length < 100) break;
    }
    const seen = new Set<number>();
    const found: User[] = [];
    const add = (u: User | null) => {
      if (u && !seen.has(u.id)) {
        seen.add(u.id);
        found.push(u);
      }
    };
    for (const n of notes) add(n.author);
    add(await this.user(mr.authorId));
    const names = [mr.title, mr.description, ...notes.map((n) => n.body)].flatMap(mentionedUsernames);
    for (const name of new Set(names.map((n) => n.toLowerCase()))) add(await this.users.findByUsername(name));
    const readers = await Promise.all(
      found.map((u) => this.access.allowsProject(u, String(project.id), AccessLevel.Reporter)),
    );
    return found.filter((_, i) => readers[i]);
  }

  /**
   * `PUT .../rebase`: starts a rebase of the source branch onto the target head (GitLab's `rebase_async`) and answers
   * whether it is still in progress. The caller must be able to push to the source branch (Developer): 403 with
   * GitLab's messages otherwise, or when the branch is gone; 409 `Resource lock` when the request is not open or a
   * rebase already runs; the read-only error during a storage move. `skip_ci` is taken and has nothing to skip.
   */
  async rebase(actor: User | null, idOrPath: string, iid: number, _skipCi = false): Promise<boolean> {
    const { project, level } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.find(project, iid);
    if (!actor) throw unauthorized();
    if (!(await this.head(project, mr.sourceBranch))) throw forbidden('Source branch does not exist');
    if (level < AccessLevel.Developer) throw forbidden('Cannot push to source branch');
    if (project.repositoryReadOnly) throw readOnlyError();
    const jid = randomUUID();
    const started = await this.mrs.startRebase(mr.id, jid, (trx) =>
      this.jobs.enqueue(REBASE_JOB, { mergeRequestId: mr.id, userId: actor.id, jid } satisfies RebaseJob, {
        trx,
      }),
    );
    if (!started) throw resourceLock();
    return (await this.mrs.rebaseJid(mr.id)) !== null;
  }

  /**
   * The rebase job: replays the source branch's own commits onto the target head in a temporary clone under the data
   * directory (sharing the repository's objects; removed afterwards), then moves the branch only if nobody pushed to
   * it meanwhile. Commits keep their authors; the user who asked is their committer.
   * Conflicts (or any git failure) leave the branch as it was and set GitLab's `merge_error`; success clears it and,
   * like a push, records the merge request's new diff version.
   */
  private async runRebase(job: RebaseJob): Promise<void> {
    const mr = await this.mrs.findById(job.mergeRequestId);
    if (!mr || (await this.mrs.rebaseJid(mr.id)) !== job.jid) return;
    const project = await this.projects.findById(mr.projectId);
    const user = await this.users.findById(job.userId);
    let error: string | null = null;
    try {
      if (!project || !user) throw new GitError('the project or the user is gone');
      if (await this.replaySource(project, mr, user)) {
        await this.recordVersions(project.id, user).catch(() => undefined);
        await this.projects.touchActivity(project.id);
      }
    } catch (err) {
      error = err instanceof AppError && err.kind === 'read_only' ? READ_ONLY_MESSAGE : REBASE_ERROR;
    } finally {
      await this.mrs.endRebase(mr.id, job.jid, error, this.clock.now().toISOString());
    }
  }

  /** Rebases the source branch (see runRebase); whether the branch moved. */
  private async replaySource(p: Project, mr: MergeRequest, user: User): Promise<boolean> {
    const [target, source] = await Promise.all([
      this.head(p, mr.targetBranch),
      this.head(p, mr.sourceBranch),
    ]);
    if (!target || !source) throw new GitError('a branch is missing');
    await mkdir(this.scratchDir, { recursive: true, mode: 0o700 });
    const dir = await mkdtemp(join(this.scratchDir, 'rebase-'));
    const git = this.repos.git;
    const repo = this.path(p);
    try {
      await git.run(['clone', '--quiet', '--shared', '--no-checkout', repo, dir]);
      await git.run(['checkout', '--quiet', '--detach', source], { cwd: dir });
      const env = { GIT_COMMITTER_NAME: user.name, GIT_COMMITTER_EMAIL: user.email };
      await git.run(['-c', 'core.hooksPath=/dev/null', 'rebase', '--quiet', target], { cwd: dir, env });
      const rebased = (await git.run(['rev-parse', 'HEAD'], { cwd: dir })).trim();
      if (rebased === source) return false;
      await this.writing(p, async (target) => {
        // The new commits go to the repository under a keep-around ref (svc's own, hidden from clients, as the
        // commits of every diff version are), then the branch moves by compare-and-swap: a push to it meanwhile
        // makes the rebase fail rather than lose that push.
        await git.run(['push', '--quiet', target, `HEAD:refs/keep-around/${rebased}`], { cwd: dir });
        await git.run(['update-ref', `refs/heads/${mr.sourceBranch}`, rebased, source], { cwd: target });
      });
      return true;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  // Diff versions

  /**
   * After a push to a project: a new diff version for each of its open merge requests whose source head moved.
   * Read once: the branch heads (one git call) and the latest version of each open merge request. `pusher` is who
   * pushed (the system notes name them).
   */
  async recordVersions(projectId: number, pusher: User | null = null): Promise<void> {
    const project = await this.projects.findById(projectId);
    if (!project) return;
    const open = await this.mrs.list(projectId, { state: 'opened' }, { page: 1, perPage: 1000 });
    if (open.items.length === 0) return;
    const heads = await this.branchHeads(project);
    for (const mr of open.items) {
      const last = await this.versionsRepo.latest(mr.id);
      if (last?.headSha !== heads.get(mr.sourceBranch)) await this.recordVersion(project, mr, pusher);
    }
  }

  private async branchHeads(p: Project): Promise<Map<string, string>> {
    const out = await this.repos.git.run(
      ['for-each-ref', '--format=%(objectname) %(refname:strip=2)', 'refs/heads'],
      { cwd: this.path(p) },
    );
    return new Map(
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => [l.slice(l.indexOf(' ') + 1), l.slice(0, l.indexOf(' '))] as const),
    );
  }

  /**
   * Records the merge request's diff as a new version when it differs from the latest one (another head or merge
   * base). The commits are kept with `refs/keep-around/<sha>` (hidden from clients), so that a version stays
   * readable after a force push. Nothing is written to a read-only repository (a storage move copies it). A version
   * after the first gets the system notes of the push: the approvals it reset, the commits it added, by `pusher`
   * (null when a read or an update found the branch moved: who pushed is not known then).
   */
  private async recordVersion(p: Project, mr: MergeRequest, pusher: User | null): Promise<void> {
    if (mr.state !== 'opened' || p.repositoryReadOnly) return;
    const refs = await this.diffRefs(p, mr);
    if (!refs) return;
    // Concurrent recorders (two pushes, a push and a read) race on the version number: one adds it, the others
    // read again and find it recorded.
    for (let attempt = 0; attempt < 3; attempt++) {
      const last = await this.versionsRepo.latest(mr.id);
      if (last && last.headSha === refs.headSha && last.baseSha === refs.baseSha) return;
      // Here, where every new version is recorded (by the push, or by a read that came first), so that no path
      // records the new head without the approvals given to the old one being dealt with. Before the version:
      // should this fail, the next recorder still sees the head moved.
      if (last && last.headSha !== refs.headSha) await this.sourcePushed(p, mr, pusher);
      const cwd = this.path(p);
      const keep = [...new Set([refs.baseSha, refs.startSha, refs.headSha])];
      await this.repos.git.run(['update-ref', '--stdin'], {
        cwd,
        input: keep.map((sha) => `update refs/keep-around/${sha} ${sha}\n`).join(''),
      });
      const [names, patch] = await Promise.all([
        this.repos.git.run(['diff', '--name-only', '-z', '-M', refs.baseSha, refs.headSha], { cwd }),
        this.repos.git.run(['diff', '-M', refs.baseSha, refs.headSha], { cwd }),
      ]);
      const patchId = patch
        ? (await this.repos.git.run(['patch-id', '--stable'], { cwd, input: patch })).split(' ')[0] || null
        : null;
      const added = await this.versionsRepo.add(
        {
          mergeRequestId: mr.id,
          number: (last?.number ?? 0) + 1,
          ...refs,
          realSize: names.split('\0').filter((n) => n !== '').length,
          patchIdSha: patchId,
        },
        this.clock.now().toISOString(),
      );
      if (added === null) continue;
      if (last && last.headSha !== refs.headSha) {
        await this.noteCommitsAdded(p, mr, last, { id: added, ...refs }, pusher);
        // GitLab's merge request hook on new commits: an update with the previous head as `oldrev`.
        await this.emitEvent(p.id, mr.iid, 'update', pusher?.id ?? null, { oldrev: last.headSha });
      }
      return;
    }
  }

  /**
   * GitLab's "added N commits" note: the commits of the new version that the previous one did not have (none after
   * a push that only removed or rewrote commits to ones already there).
   */
  private async noteCommitsAdded(
    p: Project,
    mr: MergeRequest,
    previous: MergeRequestVersion,
    version: DiffRefs & { id: number },
    pusher: User | null,
  ): Promise<void> {
    const cwd = this.path(p);
    const out = await this.repos.git.run(
      ['log', '--format=%H %s', `${version.baseSha}..${version.headSha}`, '--not', previous.headSha],
      { cwd },
    );
    const commits = out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => ({ id: l.slice(0, l.indexOf(' ')), title: l.slice(l.indexOf(' ') + 1) }));
    if (commits.length === 0) return;
    const compare = `/${p.fullPath}/-/merge_requests/${mr.iid}/diffs?diff_id=${version.id}&start_sha=${previous.headSha}`;
    await this.notes.addSystemNote(
      null,
      noteableOf(mr),
      pusher?.id ?? null,
      SystemNoteText.commitsAdded(commits, compare),
    );
  }

  /** `GET .../versions`: newest first. Records the current diff first if no push recorded it (older requests). */
  async versions(
    actor: User | null,
    idOrPath: string,
    iid: number,
    page: PageRequest,
  ): Promise<Paged<MergeRequestVersion>> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.find(project, iid);
    await this.recordVersion(project, mr, null);
    return this.versionsRepo.list(mr.id, page);
  }

  /** `GET .../versions/:version_id`: the version with its commits and file diffs. */
  async version(
    actor: User | null,
    idOrPath: string,
    iid: number,
    versionId: number,
  ): Promise<{ project: Project; version: MergeRequestVersion; commits: Commit[]; diffs: FileDiff[] }> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    const mr = await this.find(project, iid);
    const version = await this.versionsRepo.find(mr.id, versionId);
    if (!version) throw notFound('Merge Request Diff');
    const [commits, diffs] = await Promise.all([
      this.commitsBetween(project, version),
      this.diffBetween(project, version),
    ]);
    return { project, version, commits, diffs };
  }

  /** Deletes a merge request (GitLab: Owners and admins); its branches and commits stay. */
  async delete(actor: User | null, idOrPath: string, iid: number): Promise<void> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Owner);
    const mr = await this.find(project, iid);
    await this.mrs.delete(mr.id);
    await this.notes.deleteAllOf(null, noteableOf(mr));
  }
}
