import { AccessLevel } from '../members/members.js';
import type { Project } from '../projects/projects.js';

/**
 * Branch protection, the one rule every writer of branches asks (git pushes and the repository API alike). svc has
 * no protected-branches settings, and a git push has always let a Developer update any branch, so no branch is
 * protected: the API may not be stricter than `git push`, or a Developer refused by one would simply use the other.
 * GitLab's instance default protects the default branch; doing that means refusing such pushes in smart HTTP too
 * (their ref updates are already read in src/git/smart-http.ts, for push events), and both change here together.
 */
export const isProtectedBranch = (_project: Project, _branch: string): boolean => false;

/** Whether someone at `level` may push to `branch` (GitLab's `can_push_to_branch?`): Developers and above. */
export const canPushToBranch = (project: Project, level: number, branch: string): boolean =>
  level >= (isProtectedBranch(project, branch) ? AccessLevel.Maintainer : AccessLevel.Developer);
