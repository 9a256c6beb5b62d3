import { AccessLevel } from '../members/members.js';
import type { Project } from '../projects/projects.js';

/**
 * Branch protection. svc has no protected-branches settings, so GitLab's defaults apply: the default branch is
 * protected (the instance default "fully protected": Maintainers push, Developers neither push nor merge), every
 * other branch is not. One place, so that every writer of branches asks the same question.
 */
export const isProtectedBranch = (project: Project, branch: string): boolean =>
  branch === project.defaultBranch;

/** Whether someone at `level` may push to `branch` (GitLab's `can_push_to_branch?` with default protection). */
export const canPushToBranch = (project: Project, level: number, branch: string): boolean =>
  level >= (isProtectedBranch(project, branch) ? AccessLevel.Maintainer : AccessLevel.Developer);
