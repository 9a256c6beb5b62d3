import type { Clock } from '../clock.js';
import type { ErrorEvent, TrackedError } from '../error-tracking/error-tracking.js';
import type { ErrorTrackingService } from '../error-tracking/error-tracking.service.js';
import { stackFrames } from '../error-tracking/events.js';
import type { Commit } from '../git/commits.js';
import type { RepositoryService } from '../git/repository.service.js';
import type { GitLimits } from '../git/repository-reader.js';
import type { MergeRequestApprovalsService } from '../merge-requests/merge-request-approvals.service.js';
import type { MergeRequestsService } from '../merge-requests/merge-requests.service.js';
import type { OncallService } from '../oncall/oncall.service.js';
import type { Project } from '../projects/projects.js';
import { TtlCache } from '../ttl-cache.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { culpritFrame, releaseCommitNames, repositoryPathOf, type SuspectCommit } from './suspect-commits.js';

/**
 * Which commit of a project's repository a release names, or null. The one place that answers it, so that releases
 * recorded with their commits (sentry-cli's `releases set-commits`) can be asked first once they are kept.
 */
export type ReleaseCommit = (project: Project, repo: string, release: string) => Promise<string | null>;

/** A release that names a commit by itself: a SHA, `name@sha`, `name@version+sha`, `git describe`'s `-g<sha>`. */
export function releaseCommitFromName(reader: Pick<RepositoryService['reader'], 'resolve'>): ReleaseCommit {
  return async (_project, repo, release) => {
    for (const name of releaseCommitNames(release)) {
      const sha = await reader.resolve(repo, name);
      if (sha) return sha;
    }
    return null;
  };
}

/** What the git part of a lookup found: immutable for a commit, a path and a line, so it is cached by them. */
interface Blamed {
  readonly commit: Commit;
  readonly mergeCommit: string | null;
  readonly path: string;
  readonly line: number;
}

/** The bounds of one lookup. */
export interface SuspectLimits {
  /** Each git call's time limit. */
  readonly gitTimeoutMs: number;
  /** Each git call's output limit (the file list of a large repository). */
  readonly gitMaxBytes: number;
  /** How many first-parent commits of the release the merge that brought the commit is looked for in. */
  readonly mergeDepth: number;
  readonly cacheTtlMs: number;
  readonly cacheEntries: number;
}

export const DEFAULT_SUSPECT_LIMITS: SuspectLimits = {
  gitTimeoutMs: 3_000,
  gitMaxBytes: 32 * 1024 * 1024,
  mergeDepth: 5_000,
  cacheTtlMs: 10 * 60_000,
  cacheEntries: 2_000,
};

/**
 * An error's suspect commits, computed when the error is read: the release of its latest event names a commit, the
 * culprit frame's file and line are blamed in it, and the commit's merge request, its approvers and whether its
 * author is on call now are looked up. Only callers who may read the project's code see them; a lookup that fails or
 * runs out of time gives none, and the error is read all the same.
 */
export class SuspectCommitsService {
  private readonly blamed: TtlCache<string, Blamed | null>;
  /** Where a failed lookup is reported (the server sets its logger); the error is answered without suspects. */
  log: (msg: string, extra?: Record<string, unknown>) => void = () => undefined;

  constructor(
    private readonly errors: Pick<ErrorTrackingService, 'getWithLatestEvent'>,
    private readonly repository: Pick<RepositoryService, 'codeDirectory' | 'reader'>,
    private readonly mergeRequests: Pick<MergeRequestsService, 'mergedCommit'>,
    private readonly approvals: Pick<MergeRequestApprovalsService, 'approversForSystem'>,
    private readonly oncall: Pick<OncallService, 'onCallNowFor'>,
    private readonly users: Pick<UsersService, 'findById' | 'findByEmail'>,
    private readonly releaseCommit: ReleaseCommit,
    clock: Clock,
    private readonly limits: SuspectLimits = DEFAULT_SUSPECT_LIMITS,
  ) {
    this.blamed = new TtlCache(clock, limits.cacheTtlMs, limits.cacheEntries);
  }

  /** An error (Reporter, as `ErrorTrackingService.get`) with its suspect commits. */
  async errorWithSuspects(
    actor: User | null,
    idOrPath: string,
    errorId: string,
  ): Promise<{ project: Project; error: TrackedError; suspects: SuspectCommit[] }> {
    const { project, level, error, latest } = await this.errors.getWithLatestEvent(actor, idOrPath, errorId);
    const repo = this.repository.codeDirectory(actor, project, level);
    if (!repo || !latest) return { project, error, suspects: [] };
    try {
      return { project, error, suspects: await this.suspects(project, repo, latest) };
    } catch (err) {
      this.log('suspect commit lookup failed', { err, projectId: project.id, errorId: error.id });
      return { project, error, suspects: [] };
    }
  }

  private async suspects(project: Project, repo: string, event: ErrorEvent): Promise<SuspectCommit[]> {
    if (!event.release) return [];
    const frame = culpritFrame(stackFrames(event.payload));
    if (!frame) return [];
    const release = await this.releaseCommit(project, repo, event.release);
    if (!release) return [];
    const key = JSON.stringify([
      project.id,
      release,
      frame.absPath,
      frame.filename,
      frame.module,
      frame.lineNo,
    ]);
    const found = await this.blamed.get(key, () => this.blame(repo, release, frame));
    return found ? [await this.describe(project, found)] : [];
  }

  /** The git part: the file of the frame in the release, the commit that last changed its line, its merge. */
  private async blame(
    repo: string,
    release: string,
    frame: Parameters<typeof repositoryPathOf>[0],
  ): Promise<Blamed | null> {
    const limits: GitLimits = { timeoutMs: this.limits.gitTimeoutMs, maxBytes: this.limits.gitMaxBytes };
    const reader = this.repository.reader;
    const path = repositoryPathOf(frame, await reader.filePaths(repo, release, limits));
    if (!path || frame.lineNo === null) return null;
    const line = await reader.blameLine(repo, release, path, frame.lineNo, limits);
    if (!line) return null;
    const [commit, mergeCommit] = await Promise.all([
      reader.commit(repo, line.commit),
      reader.mergeOf(repo, line.commit, release, this.limits.mergeDepth, limits),
    ]);
    return { commit, mergeCommit, path, line: frame.lineNo };
  }

  /** The database part, read every time: who the author is, the merge request and its approvers, who is on call. */
  private async describe(project: Project, b: Blamed): Promise<SuspectCommit> {
    const mr = await this.mergeRequests.mergedCommit(project.id, b.commit.id, b.mergeCommit);
    const [byEmail, mrAuthor, approvedBy, onCall] = await Promise.all([
      this.users.findByEmail(b.commit.authorEmail),
      mr?.authorId ? this.users.findById(mr.authorId) : null,
      mr ? this.approvals.approversForSystem(mr.id) : [],
      this.oncall.onCallNowFor(project),
    ]);
    const author = byEmail ?? mrAuthor;
    return {
      commit: b.commit,
      path: b.path,
      line: b.line,
      author,
      authorOnCall: author ? (onCall.get(author.id) ?? []) : [],
      mergeRequest: mr ? { mr, author: mrAuthor, approvedBy } : null,
    };
  }
}
