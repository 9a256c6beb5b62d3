import { createHash } from 'node:crypto';
import { type AppError, forbidden, notFound, plainError, readOnlyError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { User } from '../users/users.js';
import { canPushToBranch, isProtectedBranch } from './branch-protection.js';
import type { Commit } from './commits.js';
import type { FileDiff } from './diff.js';
import type { GitAccessService, GitTarget } from './git-access.service.js';
import type { GitRepositoriesService } from './git-repositories.service.js';
import { type BlobEntry, type CommitStats, RepositoryReader, type TreeEntry } from './repository-reader.js';
import { ActionRefused, type FileAction, RepositoryWriter } from './repository-writer.js';

/** GitLab's answer when a push would go to a branch the caller may not push to. */
export const PUSH_REFUSED = 'You are not allowed to push into this branch';
const FILE_CHANGED = 'You are attempting to update a file that has changed since you started editing it.';

/** A branch with what GitLab's Branch entity says about it for this caller. */
export interface BranchView {
  readonly name: string;
  readonly commit: Commit;
  readonly merged: boolean;
  readonly protected: boolean;
  readonly developersCanPush: boolean;
  readonly developersCanMerge: boolean;
  readonly canPush: boolean;
  readonly default: boolean;
}

/** A file read from a commit (the files API). */
export interface FileView {
  readonly blob: BlobEntry;
  readonly content: Buffer;
  readonly contentSha256: string;
  readonly ref: string;
  readonly commitId: string;
  readonly lastCommitId: string;
}

/** The comparison of two commits (GitLab's Compare). */
export interface Comparison {
  readonly commits: readonly Commit[];
  readonly diffs: readonly FileDiff[];
  readonly same: boolean;
  readonly fromSha: string;
  readonly toSha: string;
}

/** A commit to make through the API: where it goes, where it starts, and what it changes. */
export interface CommitInput {
  readonly branch: string;
  /** The branch the commit starts from; `branch` when absent. */
  readonly startBranch?: string;
  readonly message: string;
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly actions: readonly FileAction[];
  /** Per path: the commit the caller last saw change it (optimistic check). */
  readonly lastCommitIds?: ReadonlyMap<string, string>;
  /** The refusal when a `lastCommitIds` check fails. */
  readonly changedMessage?: (path: string) => string;
}

/** Whether anyone in `actor`'s position sees the code of a project they see: public, or internal when signed in. */
const readsCode = (project: Project, actor: User | null): boolean =>
  project.visibility === 'public' || (project.visibility === 'internal' && actor !== null);

/** A 400 `{"message": "<message>"}`: GitLab's answer for a refused change of repository content. */
const refused = (message: string) => plainError('bad_request', message);

/**
 * Repository content through the API (GitLab's repository, files, branches and commits APIs): reads with git
 * plumbing, and writes as commits made without a work tree that go through the same path as a git push: the
 * read-only check of storage moves and the push tracking (`GitAccessService.beginPush`), and what a push
 * records afterwards (`GitAccessService.push`: merge request diff versions, project activity).
 */
export class RepositoryService {
  readonly reader: RepositoryReader;
  private readonly writer: RepositoryWriter;

  constructor(
    private readonly access: Access,
    private readonly repos: GitRepositoriesService,
    private readonly gitAccess: Pick<GitAccessService, 'beginPush' | 'push'>,
  ) {
    this.reader = new RepositoryReader(repos.git);
    this.writer = new RepositoryWriter(repos.git);
  }

  private path(project: Project): string {
    return this.repos.path('project', project.id, project.repositoryStorage);
  }

  /**
   * The project, for a caller who may read its code: anyone who sees a public project, any signed-in user for an
   * internal one, Reporters and up for a private one (a Guest sees the project, not its code). As git's fetch.
   */
  async readable(
    actor: User | null,
    idOrPath: string,
  ): Promise<{ project: Project; level: number; repo: string }> {
    const { project, level } = await this.access.project(actor, idOrPath);
    if (!readsCode(project, actor)) this.access.level(actor, level, AccessLevel.Reporter);
    return { project, level, repo: this.path(project) };
  }

  /**
   * The directory of the project's repository when `actor` (whose level in the project is `level`) may read its
   * code, as `readable` decides, else null: for features that show code-derived facts next to their own objects
   * (an error's suspect commit) and leave them out rather than refuse. A project whose repository feature is
   * disabled shows none.
   */
  codeDirectory(actor: User | null, project: Project, level: number): string | null {
    if (project.settings.accessLevels.repository === 'disabled') return null;
    const may = readsCode(project, actor) || level >= AccessLevel.Reporter;
    return may ? this.path(project) : null;
  }

  /** The project, for a caller who may push to it (Developer and up, as git's push); 404/401/403 otherwise. */
  private async writable(actor: User | null, idOrPath: string) {
    const { project, level } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    return { project, level, repo: this.path(project), user: actor! };
  }

  private async commitOf(repo: string, ref: string, resource = 'Commit'): Promise<string> {
    const sha = await this.reader.resolve(repo, ref);
    if (!sha) throw notFound(resource);
    return sha;
  }

  // Reads

  async tree(
    actor: User | null,
    idOrPath: string,
    q: { ref?: string; path?: string; recursive?: boolean },
  ): Promise<{ project: Project; entries: TreeEntry[] }> {
    const { project, repo } = await this.readable(actor, idOrPath);
    const sha = await this.commitOf(repo, q.ref || project.defaultBranch, 'Tree');
    const entries = await this.reader.tree(repo, sha, q.path ?? '', q.recursive ?? false);
    if (!entries) throw notFound('Tree');
    return { project, entries };
  }

  /** A file of a commit; `ref` absent means the default branch (the raw endpoint). */
  async file(actor: User | null, idOrPath: string, path: string, ref?: string): Promise<FileView> {
    const { project, repo } = await this.readable(actor, idOrPath);
    const name = ref ?? project.defaultBranch;
    const commitId = await this.commitOf(repo, name);
    const blob = await this.reader.blobAt(repo, commitId, path.replace(/^\/+/, ''));
    if (!blob) throw notFound('File');
    const [content, lastCommitId] = await Promise.all([
      this.reader.blobContent(repo, blob.id),
      this.reader.lastCommitFor(repo, commitId, blob.path),
    ]);
    return {
      blob,
      content,
      contentSha256: createHash('sha256').update(content).digest('hex'),
      ref: name,
      commitId,
      lastCommitId: lastCommitId ?? commitId,
    };
  }

  async blob(
    actor: User | null,
    idOrPath: string,
    sha: string,
  ): Promise<{ id: string; size: number; content: Buffer }> {
    const { repo } = await this.readable(actor, idOrPath);
    const blob = await this.reader.blob(repo, sha);
    if (!blob) throw notFound('Blob');
    return { ...blob, content: await this.reader.blobContent(repo, blob.id) };
  }

  /**
   * The branches, by name; `search` as GitLab's: a substring, case-insensitive, or anchored with `^` (prefix)
   * and `$` (suffix).
   */
  async branches(
    actor: User | null,
    idOrPath: string,
    search?: string,
  ): Promise<{ project: Project; branches: BranchView[] }> {
    const { project, level, repo } = await this.readable(actor, idOrPath);
    let heads = await this.reader.branches(repo);
    if (search) heads = heads.filter((b) => matchesSearch(b.name, search));
    heads.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const merged = await this.merged(repo, project);
    return { project, branches: heads.map((h) => this.branchView(project, level, h.name, h.commit, merged)) };
  }

  async branch(
    actor: User | null,
    idOrPath: string,
    name: string,
  ): Promise<{ project: Project; branch: BranchView }> {
    const { project, level, repo } = await this.readable(actor, idOrPath);
    return { project, branch: await this.loadBranch(project, level, repo, name) };
  }

  private async merged(repo: string, project: Project): Promise<Set<string>> {
    const head = await this.reader.branchHead(repo, project.defaultBranch);
    return head ? this.reader.mergedInto(repo, head) : new Set();
  }

  private async loadBranch(project: Project, level: number, repo: string, name: string): Promise<BranchView> {
    const head = await this.reader.branchHead(repo, name);
    if (!head) throw notFound('Branch');
    const [commit, merged] = await Promise.all([this.reader.commit(repo, head), this.merged(repo, project)]);
    return this.branchView(project, level, name, commit, merged);
  }

  private branchView(
    project: Project,
    level: number,
    name: string,
    commit: Commit,
    merged: ReadonlySet<string>,
  ): BranchView {
    const isDefault = name === project.defaultBranch;
    const isProtected = isProtectedBranch(project, name);
    return {
      name,
      commit,
      // GitLab does not call the default branch merged into itself.
      merged: !isDefault && merged.has(name),
      protected: isProtected,
      // GitLab answers these from the protection rules matching the branch: an unprotected branch has none
      // (false), and the default protection lets Developers neither push nor merge (false).
      developersCanPush: false,
      developersCanMerge: false,
      canPush: canPushToBranch(project, level, name),
      default: isDefault,
    };
  }

  /**
   * A page of the commits of `ref_name` (the default branch when absent; every branch and tag with `all`), newest
   * first. The total is not counted (GitLab does not either); `more` says whether another page follows. An unknown
   * ref has no commits.
   */
  async commits(
    actor: User | null,
    idOrPath: string,
    q: {
      refName?: string;
      since?: string;
      until?: string;
      path?: string;
      author?: string;
      firstParent?: boolean;
      topo?: boolean;
      all?: boolean;
    },
    page: PageRequest,
  ): Promise<{ project: Project; commits: Commit[]; more: boolean }> {
    const { project, repo } = await this.readable(actor, idOrPath);
    const head = q.all ? null : await this.reader.resolve(repo, q.refName || project.defaultBranch);
    if (!q.all && !head) return { project, commits: [], more: false };
    const path = q.path?.replace(/^\/+/, '') || undefined;
    const rows = await this.reader.log(repo, head, {
      ...(q.since && { since: q.since }),
      ...(q.until && { until: q.until }),
      ...(path && { path }),
      ...(q.author && { author: q.author }),
      ...(q.firstParent && { firstParent: true }),
      ...(q.topo && { topo: true }),
      skip: (page.page - 1) * page.perPage,
      limit: page.perPage + 1,
    });
    return { project, commits: rows.slice(0, page.perPage), more: rows.length > page.perPage };
  }

  /** One commit (a sha, branch or tag), with its stats against its first parent. */
  async commit(
    actor: User | null,
    idOrPath: string,
    ref: string,
  ): Promise<{ project: Project; commit: Commit; stats: CommitStats }> {
    const { project, repo } = await this.readable(actor, idOrPath);
    return { project, ...(await this.commitWithStats(repo, await this.commitOf(repo, ref))) };
  }

  private async commitWithStats(repo: string, sha: string): Promise<{ commit: Commit; stats: CommitStats }> {
    const commit = await this.reader.commit(repo, sha);
    return { commit, stats: await this.reader.stats(repo, this.reader.parentOf(commit), sha) };
  }

  /** A commit's file diffs against its first parent (the empty tree for a root commit). */
  async commitDiff(actor: User | null, idOrPath: string, ref: string): Promise<FileDiff[]> {
    const { repo } = await this.readable(actor, idOrPath);
    const commit = await this.reader.commit(repo, await this.commitOf(repo, ref));
    return this.reader.diff(repo, this.reader.parentOf(commit), commit.id);
  }

  /**
   * GitLab's compare: the commits of `from..to` (oldest first) and the diff from the merge base of the two
   * (`from...to`), or straight from `from` with `straight`.
   */
  async compare(
    actor: User | null,
    idOrPath: string,
    q: { from: string; to: string; straight: boolean },
  ): Promise<{ project: Project; comparison: Comparison }> {
    const { project, repo } = await this.readable(actor, idOrPath);
    const [from, to] = await Promise.all([
      this.reader.resolve(repo, q.from),
      this.reader.resolve(repo, q.to),
    ]);
    if (!from || !to) throw notFound('Ref');
    const base = q.straight ? from : ((await this.reader.mergeBase(repo, from, to)) ?? from);
    const [commits, diffs] = await Promise.all([
      this.reader.between(repo, from, to),
      this.reader.diff(repo, base, to),
    ]);
    return { project, comparison: { commits, diffs, same: from === to, fromSha: from, toSha: to } };
  }

  // Writes

  /** Creates `name` at the commit `ref` names (GitLab's Branches::CreateService answers). */
  async createBranch(
    actor: User | null,
    idOrPath: string,
    name: string,
    ref: string,
  ): Promise<{ project: Project; branch: BranchView }> {
    const { project, level, repo, user } = await this.writable(actor, idOrPath);
    if (ref.trim() === '') throw refused('Ref is missing');
    if (!(await this.reader.validBranchName(repo, name))) throw refused('Branch name is invalid');
    if (await this.reader.branchHead(repo, name)) throw refused('Branch already exists');
    const sha = await this.reader.resolve(repo, ref);
    if (!sha) throw refused(`Failed to create branch '${name}': invalid reference name '${ref}'`);
    if (!canPushToBranch(project, level, name))
      throw refused('You are not allowed to push code to protected branches on this project.');
    await this.pushed(project, user, async () => {
      await this.moveBranch(repo, name, sha, null, () =>
        refused(`Failed to create branch '${name}': Branch name conflicts with existing branch hierarchy.`),
      );
    });
    return { project, branch: await this.loadBranch(project, level, repo, name) };
  }

  /** Deletes a branch: never the default one; a protected one only by those who may push to it. */
  async deleteBranch(actor: User | null, idOrPath: string, name: string): Promise<void> {
    const { project, level, repo, user } = await this.writable(actor, idOrPath);
    const head = await this.reader.branchHead(repo, name);
    if (!head) throw notFound('Branch');
    if (name === project.defaultBranch) throw refused('The default branch of a project cannot be deleted.');
    if (isProtectedBranch(project, name) && !canPushToBranch(project, level, name))
      throw forbidden('You are not allowed to delete protected branches from this project.');
    await this.pushed(project, user, () =>
      this.repos.git.run(['update-ref', '-d', `refs/heads/${name}`, head], { cwd: repo }).then(
        () => undefined,
        () => {
          throw refused('Failed to remove branch');
        },
      ),
    );
  }

  /**
   * Whether the caller may push to `branch` of the project; the commit endpoint asks this first (403), the files
   * endpoints leave it to `commitFiles` (400), as GitLab does.
   */
  async mayPush(actor: User | null, idOrPath: string, branch: string): Promise<void> {
    const { project, level } = await this.writable(actor, idOrPath);
    if (!canPushToBranch(project, level, branch)) throw forbidden(PUSH_REFUSED);
  }

  /**
   * Makes one commit of `input.actions` on `input.branch` (created from `startBranch` when it differs), with
   * GitLab's Commits::CreateService checks and answers; returns the commit with its stats.
   */
  async commitFiles(
    actor: User | null,
    idOrPath: string,
    input: CommitInput,
  ): Promise<{ project: Project; commit: Commit; stats: CommitStats }> {
    const { project, level, repo, user } = await this.writable(actor, idOrPath);
    if (!canPushToBranch(project, level, input.branch)) throw refused(PUSH_REFUSED);
    if (project.repositoryReadOnly) throw readOnlyError();
    const startBranch = input.startBranch ?? input.branch;
    const empty = (await this.reader.branches(repo)).length === 0;
    const parent = empty ? null : await this.reader.branchHead(repo, startBranch);
    if (!empty && !parent) throw refused('You can only create or edit files when you are on a branch');
    const newBranch = startBranch !== input.branch;
    if (newBranch) {
      if (!empty && (await this.reader.branchHead(repo, input.branch)))
        throw refused(
          `A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`,
        );
      if (!(await this.reader.validBranchName(repo, input.branch)))
        throw refused(
          `Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`,
        );
    } else if (empty && !(await this.reader.validBranchName(repo, input.branch))) {
      throw refused('Branch name is invalid');
    }
    if (parent && input.lastCommitIds) {
      for (const [path, seen] of input.lastCommitIds) {
        const last = await this.reader.lastCommitFor(repo, parent, path.replace(/^\/+/, ''));
        if (last !== null && last !== seen)
          throw refused((input.changedMessage ?? (() => FILE_CHANGED))(path));
      }
    }
    const sha = await this.pushed(project, user, async () => {
      let commit: string;
      try {
        commit = await this.writer.commit(repo, {
          parent,
          actions: input.actions,
          message: input.message,
          author: { name: input.authorName ?? user.name, email: input.authorEmail ?? user.email },
          committer: { name: user.name, email: user.email },
        });
      } catch (err) {
        if (err instanceof ActionRefused) throw refused(err.message);
        throw err;
      }
      await this.moveBranch(repo, input.branch, commit, newBranch || !parent ? null : parent, () =>
        refused(`Could not update refs/heads/${input.branch}. Please refresh and try again.`),
      );
      return commit;
    });
    return { project, ...(await this.commitWithStats(repo, sha)) };
  }

  /** `update-ref` with the old value (compare-and-swap); `old` null: the branch must not exist yet. */
  private async moveBranch(
    repo: string,
    name: string,
    to: string,
    old: string | null,
    onConflict: () => AppError,
  ): Promise<void> {
    try {
      await this.repos.git.run(['update-ref', `refs/heads/${name}`, to, old ?? '0'.repeat(to.length)], {
        cwd: repo,
      });
    } catch {
      throw onConflict();
    }
  }

  /**
   * Runs a ref change as a push: refused while the repository is read-only (a storage move), recorded for moves
   * while it runs, and followed by what a push records. Returns what `work` returns.
   */
  private async pushed<T>(project: Project, user: User, work: () => Promise<T>): Promise<T> {
    if (project.repositoryReadOnly) throw readOnlyError();
    const target: GitTarget = {
      kind: 'project',
      id: project.id,
      storage: project.repositoryStorage,
      readOnly: project.repositoryReadOnly,
      canRead: true,
      canWrite: true,
    };
    const end = await this.gitAccess.beginPush(target);
    if (!end) throw readOnlyError();
    const run = work();
    await this.gitAccess.push(
      user,
      target,
      run.then(() => true),
      end,
    );
    return run;
  }
}

/** GitLab's branch search: `^x` a prefix, `x$` a suffix, otherwise a substring; case-insensitive. */
export function matchesSearch(name: string, search: string): boolean {
  const n = name.toLowerCase();
  let s = search.toLowerCase();
  const prefix = s.startsWith('^');
  const suffix = s.endsWith('$');
  if (prefix) s = s.slice(1);
  if (suffix) s = s.slice(0, -1);
  if (prefix && suffix) return n === s;
  if (prefix) return n.startsWith(s);
  if (suffix) return n.endsWith(s);
  return n.includes(s);
}
