import type { Clock } from '../clock.js';
import type { Tier } from '../config.js';
import { conflict, notFound, unauthorized } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { MembersRepository } from '../members/members.repository.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersRepository } from '../users/users.repository.js';
import type { ApprovalRule, ApprovalSettings } from './approvals.js';
import type { ApprovalsService } from './approvals.service.js';
import type { MergeRequest } from './merge-requests.js';
import type { MergeRequestsService, MergeRequestView } from './merge-requests.service.js';
import type { MergeRequestApprovalsRepository } from './mr-approvals.repository.js';

/** One approval rule as it stands on a merge request. */
export interface RuleState {
  readonly rule: ApprovalRule;
  /** The rule's users and the direct members of its groups. */
  readonly eligible: readonly User[];
  readonly approvedBy: readonly User[];
  readonly approved: boolean;
}

/** Where a merge request's approvals stand, for one caller (`/approvals`, `/approval_state`). */
export interface ApprovalState {
  readonly mergeRequest: MergeRequestView;
  readonly approvedBy: readonly { readonly user: User; readonly approvedAt: string }[];
  readonly approvalsRequired: number;
  readonly approvalsLeft: number;
  readonly approved: boolean;
  readonly rules: readonly RuleState[];
  readonly userHasApproved: boolean;
  readonly userCanApprove: boolean;
  readonly requirePasswordToApprove: boolean;
}

/**
 * Approvals of merge requests: who approved, what is still required (the project's rules, else its
 * `approvals_before_merge`), approve and unapprove. In Premium and Ultimate a merge request that still needs
 * approvals cannot be merged; in Free approvals are optional, as in GitLab.
 */
export class MergeRequestApprovalsService {
  constructor(
    private readonly repo: MergeRequestApprovalsRepository,
    private readonly mergeRequests: MergeRequestsService,
    private readonly projects: ProjectsService,
    private readonly approvals: ApprovalsService,
    private readonly members: MembersRepository,
    private readonly users: UsersRepository,
    private readonly tier: Tier,
    private readonly clock: Clock,
  ) {
    mergeRequests.approvalsLeft = async (project, mr) =>
      this.tier === 'free' ? 0 : (await this.compute(project, mr, null, 0)).approvalsLeft;
  }

  async state(actor: User | null, idOrPath: string, iid: number): Promise<ApprovalState> {
    const mr = await this.mergeRequests.get(actor, idOrPath, iid);
    const { level } = await this.projects.find(actor, idOrPath);
    return { mergeRequest: mr, ...(await this.compute(mr.project, mr, actor, level)) };
  }

  /** `POST .../approve`: 401 when the caller may not approve (again), 409 when `sha` is not the source head. */
  async approve(actor: User | null, idOrPath: string, iid: number, sha?: string): Promise<ApprovalState> {
    if (!actor) throw unauthorized();
    const before = await this.state(actor, idOrPath, iid);
    if (!before.userCanApprove) throw unauthorized();
    // svc keeps no second factor for approvals: a project that requires the password cannot be approved through
    // the API until it does (GitLab answers 401 to a wrong or missing password too).
    if (before.requirePasswordToApprove) throw unauthorized();
    const head = before.mergeRequest.diffRefs?.headSha;
    if (sha !== undefined && sha !== head)
      throw conflict(`SHA does not match HEAD of source branch: ${head ?? 'none'}`);
    await this.repo.add(before.mergeRequest.id, actor.id, this.clock.now().toISOString());
    return this.state(actor, idOrPath, iid);
  }

  /** `POST .../unapprove`: 404 when the caller had not approved. */
  async unapprove(actor: User | null, idOrPath: string, iid: number): Promise<ApprovalState> {
    if (!actor) throw unauthorized();
    const before = await this.state(actor, idOrPath, iid);
    if (!(await this.repo.remove(before.mergeRequest.id, actor.id))) throw notFound();
    return this.state(actor, idOrPath, iid);
  }

  private async compute(
    project: Project,
    mr: MergeRequest,
    actor: User | null,
    level: number,
  ): Promise<Omit<ApprovalState, 'mergeRequest'>> {
    const [settings, rules, given] = await Promise.all([
      this.approvals.settingsOf(project.id),
      this.approvals.rulesOf(project.id),
      this.repo.list(mr.id),
    ]);
    const approvers = await Promise.all(given.map((a) => this.users.findById(a.userId)));
    const approvedBy = given.flatMap((a, i) => {
      const user = approvers[i];
      return user ? [{ user, approvedAt: a.createdAt }] : [];
    });
    const ids = new Set(approvedBy.map((a) => a.user.id));
    const ruleStates = await Promise.all(rules.map((rule) => this.ruleState(rule, ids, approvedBy)));
    const approvalsRequired = rules.length
      ? rules.reduce((n, r) => n + r.approvalsRequired, 0)
      : settings.approvals_before_merge;
    const approvalsLeft = rules.length
      ? ruleStates.reduce((n, r) => n + Math.max(0, r.rule.approvalsRequired - r.approvedBy.length), 0)
      : Math.max(0, settings.approvals_before_merge - approvedBy.length);
    const userHasApproved = actor !== null && ids.has(actor.id);
    return {
      approvedBy,
      approvalsRequired,
      approvalsLeft,
      approved: approvalsLeft === 0,
      rules: ruleStates,
      userHasApproved,
      userCanApprove:
        actor !== null && !userHasApproved && canApprove(actor, level, mr, settings, ruleStates),
      requirePasswordToApprove: settings.require_password_to_approve,
    };
  }

  private async ruleState(
    rule: ApprovalRule,
    approvedIds: ReadonlySet<number>,
    approvedBy: readonly { user: User }[],
  ): Promise<RuleState> {
    const groupMembers = rule.groups.length
      ? (
          await this.members.listAll(
            rule.groups.map((g) => ({ type: 'namespace' as const, id: g.id })),
            { page: 1, perPage: 1000 },
          )
        ).items.map((m) => m.user)
      : [];
    const eligible = [...new Map([...rule.users, ...groupMembers].map((u) => [u.id, u])).values()];
    const eligibleIds = new Set(eligible.map((u) => u.id));
    const by = approvedBy.map((a) => a.user).filter((u) => eligibleIds.has(u.id) && approvedIds.has(u.id));
    return { rule, eligible, approvedBy: by, approved: by.length >= rule.approvalsRequired };
  }
}

/**
 * GitLab's rule: an open merge request may be approved by Developers and above, and by any eligible approver of
 * its rules; its author only when the project allows authors to approve.
 */
function canApprove(
  actor: User,
  level: number,
  mr: MergeRequest,
  settings: ApprovalSettings,
  rules: readonly RuleState[],
): boolean {
  if (mr.state !== 'opened') return false;
  if (mr.authorId === actor.id && !settings.merge_requests_author_approval) return false;
  return level >= AccessLevel.Developer || rules.some((r) => r.eligible.some((u) => u.id === actor.id));
}
