import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { conflict, invalidFields, notFound, readOnlyError } from '../errors.js';
import { GitError } from '../git/git.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import type { Outbox, ProjectEvent } from '../ingest/outbox.js';
import { AccessLevel } from '../members/members.js';
import type { Noteable } from '../notes/notes.js';
import type { NotesService } from '../notes/notes.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { type FileDiff, parseDiff } from './diff.js';
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

/** GitLab's 409 for a second open merge request of a branch pair (`branch_conflict`). */
const duplicateOpen = (iid: number | null) =>
  conflict(`Another open merge request already exists for this source branch: !${iid ?? '?'}`);

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
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly notes: NotesService,
    private readonly clock: Clock,
    /** Where merge request events for project hooks are written; none: no events. */
    private readonly outbox: Pick<Outbox, 'emit'> | null = null,
  ) {}

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
      throw new MergeRefusedError('target_changed');
    }
    const removeSource = input.should_remove_source_branch ?? mr.forceRemoveSourceBranch ?? false;
    // Deleted only if nobody pushed to it meanwhile (old value given): their commits are not lost.
    if (removeSource)
      await this.repos.git
        .run(['update-ref', '-d', `refs/heads/${mr.sourceBranch}`, source], { cwd: path })
        .catch(() => undefined);
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
    // Fields separated by NUL, records by RS (0x1e): messages may hold any other character.
    const format = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00');
    const out = await this.repos.git.run(
      ['log', `--format=${format}%x1e`, `${refs.baseSha}..${refs.headSha}`],
      { cwd: this.path(project) },
    );
    return out
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
