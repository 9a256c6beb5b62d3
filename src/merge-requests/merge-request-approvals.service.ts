import type { Clock } from '../clock.js';
import { conflict, forbidden, invalidFields, notFound, unauthorized } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService } from '../members/members.service.js';
import type { NotesService } from '../notes/notes.service.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import type {
  MergeRequestApprovalsRepository,
  MergeRequestRulesRepository,
} from './merge-request-approvals.repository.js';
import type { MergeRequest } from './merge-requests.js';
import { type MergeRequestsService, type MergeRequestView, noteableOf } from './merge-requests.service.js';
import type {
  ApprovalRule,
  ApprovalRuleInput,
  ApprovalRuleRecord,
  ApprovalSettings,
  MergeRequestRuleRecord,
} from './project-approval-rules.js';
import { type ProjectApprovalRulesService, unique } from './project-approval-rules.service.js';
import { SystemNoteText } from './system-notes.js';

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
  /** The merge request's own rules apply, not the project's. */
  readonly rulesOverwritten: boolean;
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
    private readonly rulesRepo: MergeRequestRulesRepository,
    private readonly mergeRequests: MergeRequestsService,
    private readonly projects: ProjectsService,
    private readonly projectRules: ProjectApprovalRulesService,
    private readonly members: Pick<MembersService, 'listAllOf'>,
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly passwords: Pick<UsersService, 'checkPassword'>,
    private readonly access: Access,
    private readonly notes: NotesService,
    private readonly clock: Clock,
  ) {
    mergeRequests.approvalsLeft = async (project, mr) =>
      !this.access.hasTier('merge_request_approvals')
        ? 0
        : (await this.compute(project, mr, null, 0)).approvalsLeft;
    mergeRequests.sourcePushed = (project, mr, pusher) => this.resetOnPush(project.id, mr, pusher);
  }

  /**
   * GitLab's `reset_approvals_on_push` (on by default): new commits on the source branch void every approval
   * given so far, whoever pushed them, so that what is merged is what was approved. The system note naming the
   * approvers, by the pusher, commits with the reset. Its names are read before the transaction (on SQLite a read
   * outside it would wait for it); an approval given in between is not among them, and the reset runs again.
   */
  private async resetOnPush(projectId: number, mr: MergeRequest, pusher: User | null): Promise<void> {
    if (!(await this.projectRules.settingsOf(projectId)).reset_approvals_on_push) return;
    for (let attempt = 1; ; attempt++) {
      const approvers = await this.approvers(mr.id);
      const done = await this.repo
        .transaction(async (trx) => {
          const removed = await this.repo.removeAll(trx, mr.id);
          const named = removed.flatMap((id) => approvers.get(id) ?? []);
          // The last attempt resets anyway, naming whom it knows: the approvals must go.
          if (named.length < removed.length && attempt < 3) throw new ApproverChanged();
          if (named.length > 0)
            await this.notes.addSystemNote(
              trx,
              noteableOf(mr),
              pusher?.id ?? null,
              SystemNoteText.approvalsReset(named),
            );
          return true;
        })
        .catch((err) => {
          if (err instanceof ApproverChanged) return false;
          throw err;
        });
      if (done) return;
    }
  }

  /** The users who approved the merge request, by id (an approval whose user is gone names nobody). */
  private async approvers(mergeRequestId: number): Promise<Map<number, User>> {
    const given = await this.repo.list(mergeRequestId);
    const users = await Promise.all(given.map((a) => this.users.findById(a.userId)));
    return new Map(given.flatMap((a, i) => (users[i] ? [[a.userId, users[i]] as const] : [])));
  }

  /** Who approved a merge request, in the order they approved, for the system (no caller check). */
  async approversForSystem(mergeRequestId: number): Promise<User[]> {
    return [...(await this.approvers(mergeRequestId)).values()];
  }

  async state(actor: User | null, idOrPath: string, iid: number): Promise<ApprovalState> {
    const mr = await this.mergeRequests.get(actor, idOrPath, iid);
    const { level } = await this.projects.find(actor, idOrPath);
    return { mergeRequest: mr, ...(await this.compute(mr.project, mr, actor, level)) };
  }

  /**
   * `POST .../approve`: 401 when the caller may not approve (again), or when the project requires the password to
   * approve and `password` is not the caller's (a wrong one counts as a failed sign-in, towards the lockout);
   * 409 when `sha` is not the source head.
   */
  async approve(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: { sha?: string; password?: string } = {},
  ): Promise<ApprovalState> {
    const user = this.access.signedIn(actor);
    const { sha, password } = input;
    const before = await this.state(user, idOrPath, iid);
    if (!before.userCanApprove) throw unauthorized();
    if (
      before.requirePasswordToApprove &&
      (!password || (await this.passwords.checkPassword(user.username, password))?.id !== user.id)
    )
      throw unauthorized();
    const head = before.mergeRequest.diffRefs?.headSha;
    if (sha !== undefined && sha !== head)
      throw conflict(`SHA does not match HEAD of source branch: ${head ?? 'none'}`);
    if (!(await this.repo.add(before.mergeRequest.id, user.id, this.clock.now().toISOString())))
      return this.state(user, idOrPath, iid);
    await this.notes.addSystemNote(null, noteableOf(before.mergeRequest), user.id, SystemNoteText.approved);
    const after = await this.state(user, idOrPath, iid);
    // GitLab's hooks: `approved` once nothing more is required, `approval` for an approval short of that.
    const mr = before.mergeRequest;
    await this.mergeRequests.emitEvent(
      mr.projectId,
      mr.iid,
      after.approved ? 'approved' : 'approval',
      user.id,
    );
    return after;
  }

  /**
   * `PUT .../reset_approvals`: withdraws every approval (202 in GitLab). GitLab allows it only to bot users of project
   * or group access tokens (`reset_merge_request_approvals`), and never on a merged request: anyone else gets 401.
   * svc has no bot users, so the rule here is the nearest it can state: Maintainers and up (admins are Owners), on a
   * request not merged.
   */
  async resetApprovals(actor: User | null, idOrPath: string, iid: number): Promise<void> {
    const { mr, level } = await this.mergeRequests.readable(actor, idOrPath, iid);
    // GitLab lets only the bot of a project or group access token reset approvals (automation re-requesting
    // review); a person, even a Maintainer, gets 401.
    if (!actor?.botSource || level < AccessLevel.Developer || mr.state === 'merged') throw unauthorized();
    await this.repo.transaction((trx) => this.repo.removeAll(trx, mr.id));
  }

  /** `POST .../unapprove`: 404 when the caller had not approved. */
  async unapprove(actor: User | null, idOrPath: string, iid: number): Promise<ApprovalState> {
    const user = this.access.signedIn(actor);
    const before = await this.state(user, idOrPath, iid);
    if (!(await this.repo.remove(before.mergeRequest.id, user.id))) throw notFound();
    await this.notes.addSystemNote(null, noteableOf(before.mergeRequest), user.id, SystemNoteText.unapproved);
    // GitLab's hooks: `unapproved` when the merge request was approved until now, `unapproval` otherwise.
    const mr = before.mergeRequest;
    await this.mergeRequests.emitEvent(
      mr.projectId,
      mr.iid,
      before.approved ? 'unapproved' : 'unapproval',
      user.id,
    );
    return this.state(user, idOrPath, iid);
  }

  private async compute(
    project: Project,
    mr: MergeRequest,
    actor: User | null,
    level: number,
  ): Promise<Omit<ApprovalState, 'mergeRequest'>> {
    const settings = await this.projectRules.settingsOf(project.id);
    const [{ rules, overwritten }, given] = await Promise.all([
      this.appliedRules(project.id, mr.id, settings),
      this.repo.list(mr.id),
    ]);
    const approvers = await Promise.all(given.map((a) => this.users.findById(a.userId)));
    const approvedBy = given.flatMap((a, i) => {
      const user = approvers[i];
      return user ? [{ user, approvedAt: a.createdAt }] : [];
    });
    const ids = new Set(approvedBy.map((a) => a.user.id));
    const committer = await this.committers(project, mr, settings);
    const ruleStates = await Promise.all(
      rules.map((rule) => this.ruleState(rule, ids, approvedBy, committer)),
    );
    const approvalsRequired = rules.length
      ? rules.reduce((n, r) => n + r.approvalsRequired, 0)
      : settings.approvals_before_merge;
    // An approval given before its user added a commit does not count either.
    const counted = approvedBy.filter((a) => !committer(a.user)).length;
    const approvalsLeft = rules.length
      ? ruleStates.reduce((n, r) => n + Math.max(0, r.rule.approvalsRequired - r.approvedBy.length), 0)
      : Math.max(0, settings.approvals_before_merge - counted);
    const userHasApproved = actor !== null && ids.has(actor.id);
    return {
      approvedBy,
      approvalsRequired,
      approvalsLeft,
      approved: approvalsLeft === 0,
      rules: ruleStates,
      rulesOverwritten: overwritten,
      userHasApproved,
      userCanApprove:
        actor !== null &&
        !userHasApproved &&
        !committer(actor) &&
        canApprove(actor, level, mr, settings, ruleStates),
      requirePasswordToApprove: settings.require_password_to_approve,
    };
  }

  /**
   * GitLab's "Prevent approvals by users who add commits" (`merge_requests_disable_committers_approval`): whether a
   * user authored or committed one of the merge request's commits (by their e-mail address). Nobody while off.
   */
  private async committers(
    project: Project,
    mr: MergeRequest,
    settings: ApprovalSettings,
  ): Promise<(user: User) => boolean> {
    if (!settings.merge_requests_disable_committers_approval) return () => false;
    const emails = await this.mergeRequests.commitEmails(project, mr);
    return (user) => emails.has(user.email.toLowerCase());
  }

  /**
   * The rules that apply to a merge request: its own once they were changed on it, else its project's. While the
   * project forbids overriding its rules, its rules apply to every merge request again (as in GitLab).
   */
  private async appliedRules(
    projectId: number,
    mergeRequestId: number,
    settings: ApprovalSettings,
  ): Promise<{ rules: ApprovalRule[]; overwritten: boolean }> {
    if (
      settings.disable_overriding_approvers_per_merge_request ||
      !(await this.rulesRepo.overwritten(mergeRequestId))
    )
      return { rules: await this.projectRules.rulesOf(projectId), overwritten: false };
    const [own, projectRules] = await Promise.all([
      this.rulesRepo.rules(mergeRequestId),
      this.projectRules.recordsOf(projectId),
    ]);
    const sources = new Map(projectRules.map((r) => [r.id, r]));
    const rules = await Promise.all(
      own.map(async (r) => {
        const from = r.sourceRuleId === null ? undefined : sources.get(r.sourceRuleId);
        return {
          ...(await this.projectRules.toRule(r)),
          source: from ? { approvalsRequired: from.approvalsRequired, overridden: differs(r, from) } : null,
        };
      }),
    );
    return { rules, overwritten: true };
  }

  // Rules set on a merge request (`POST/PUT/DELETE .../merge_requests/:iid/approval_rules`)

  /**
   * GitLab's `update_approvers`: Developers and above, on a merge request not yet merged, in a project that lets
   * merge requests override its rules (403 otherwise). Checks only: nothing is written.
   */
  private async editable(actor: User | null, idOrPath: string, iid: number) {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    const mr = await this.mergeRequests.get(actor, String(project.id), iid);
    const settings = await this.projectRules.settingsOf(project.id);
    if (mr.state === 'merged' || settings.disable_overriding_approvers_per_merge_request) throw forbidden();
    const applied = await this.appliedRules(project.id, mr.id, settings);
    return { project, mr, applied };
  }

  /** Gives the merge request its own rules (copies of the project's) if it has none yet. */
  private async overwrite(mr: MergeRequest, projectId: number): Promise<MergeRequestRuleRecord[]> {
    await this.rulesRepo.overwrite(
      mr.id,
      await this.projectRules.recordsOf(projectId),
      this.clock.now().toISOString(),
    );
    return this.rulesRepo.rules(mr.id);
  }

  private async ruleOf(actor: User | null, idOrPath: string, iid: number, id: number): Promise<RuleState> {
    const state = await this.state(actor, idOrPath, iid);
    const rule = state.rules.find((r) => r.rule.id === id);
    if (!rule) throw notFound('Approval Rule');
    return rule;
  }

  /**
   * A rule the merge request's id `id` names: one of its own once overwritten, else the project rule of that id
   * (whose copy is then changed). 404 when there is none.
   */
  private async target(
    mr: MergeRequest,
    projectId: number,
    applied: { rules: readonly ApprovalRule[]; overwritten: boolean },
    id: number,
  ): Promise<MergeRequestRuleRecord> {
    if (!applied.rules.some((r) => r.id === id)) throw notFound('Approval Rule');
    const own = await this.overwrite(mr, projectId);
    const rule = own.find((r) => (applied.overwritten ? r.id === id : r.sourceRuleId === id));
    if (!rule) throw notFound('Approval Rule');
    return rule;
  }

  async createRule(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: ApprovalRuleInput & {
      name: string;
      approvals_required: number;
      approval_project_rule_id?: number;
    },
  ): Promise<RuleState> {
    const { project, mr, applied } = await this.editable(actor, idOrPath, iid);
    // GitLab: with `approval_project_rule_id`, the project rule's name, users and groups are copied; only
    // `approvals_required` is the caller's.
    const sourceId = input.approval_project_rule_id;
    const source =
      sourceId === undefined
        ? null
        : (await this.projectRules.recordsOf(project.id)).find((r) => r.id === sourceId);
    if (source === undefined) throw invalidFields({ approval_project_rule_id: ['is invalid'] });
    if (source) atLeast(input.approvals_required, source.approvalsRequired);
    const rule = source
      ? { ...source, approvals_required: input.approvals_required }
      : {
          ...input,
          name: input.name.trim(),
          userIds: unique(input.user_ids),
          groupIds: unique(input.group_ids),
        };
    await this.projectRules.validateRuleInput({ ...input, name: rule.name }, async (n) =>
      applied.rules.some((r) => r.name === n),
    );
    await this.overwrite(mr, project.id);
    const created = await this.rulesRepo.insert(
      mr.id,
      {
        name: rule.name,
        approvalsRequired: input.approvals_required,
        userIds: rule.userIds,
        groupIds: rule.groupIds,
        sourceRuleId: source?.id ?? null,
      },
      this.clock.now().toISOString(),
    );
    if (!created) throw invalidFields({ name: ['has already been taken'] });
    return this.ruleOf(actor, String(project.id), iid, created.id);
  }

  /** One rule that applies to the merge request (`GET .../approval_rules/:approval_rule_id`). */
  async rule(actor: User | null, idOrPath: string, iid: number, id: number): Promise<RuleState> {
    return this.ruleOf(actor, idOrPath, iid, id);
  }

  async updateRule(
    actor: User | null,
    idOrPath: string,
    iid: number,
    id: number,
    input: ApprovalRuleInput,
  ): Promise<RuleState> {
    const { project, mr, applied } = await this.editable(actor, idOrPath, iid);
    const current = applied.rules.find((r) => r.id === id);
    const minimum = current && projectMinimum(current, applied.overwritten);
    if (minimum !== undefined && input.approvals_required !== undefined)
      atLeast(input.approvals_required, minimum);
    await this.projectRules.validateRuleInput(input, async (n) =>
      applied.rules.some((r) => r.name === n && r !== current),
    );
    const rule = await this.target(mr, project.id, applied, id);
    const changed = await this.rulesRepo.update(mr.id, rule.id, {
      ...(input.name !== undefined && { name: input.name.trim() }),
      ...(input.approvals_required !== undefined && { approvalsRequired: input.approvals_required }),
      ...(input.user_ids !== undefined && { userIds: unique(input.user_ids) }),
      ...(input.group_ids !== undefined && { groupIds: unique(input.group_ids) }),
    });
    if (!changed) throw invalidFields({ name: ['has already been taken'] });
    return this.ruleOf(actor, String(project.id), iid, rule.id);
  }

  async deleteRule(actor: User | null, idOrPath: string, iid: number, id: number): Promise<void> {
    const { project, mr, applied } = await this.editable(actor, idOrPath, iid);
    const current = applied.rules.find((r) => r.id === id);
    // A project rule (or a merge request's copy of one) is not the author's to drop: only rules of the merge
    // request's own may go.
    if (current && projectMinimum(current, applied.overwritten) !== undefined) throw forbidden();
    await this.rulesRepo.delete(mr.id, (await this.target(mr, project.id, applied, id)).id);
  }

  private async ruleState(
    rule: ApprovalRule,
    approvedIds: ReadonlySet<number>,
    approvedBy: readonly { user: User }[],
    excluded: (user: User) => boolean,
  ): Promise<RuleState> {
    const groupMembers = rule.groups.length
      ? (
          await this.members.listAllOf(
            rule.groups.map((g) => ({ type: 'namespace' as const, id: g.id })),
            { page: 1, perPage: 1000 },
          )
        ).items.map((m) => m.user)
      : [];
    // Users kept from approving (committers, when the project says so) are no eligible approvers either.
    const eligible = [
      ...new Map([...rule.users, ...groupMembers].filter((u) => !excluded(u)).map((u) => [u.id, u])).values(),
    ];
    const eligibleIds = new Set(eligible.map((u) => u.id));
    const by = approvedBy.map((a) => a.user).filter((u) => eligibleIds.has(u.id) && approvedIds.has(u.id));
    return { rule, eligible, approvedBy: by, approved: by.length >= rule.approvalsRequired };
  }
}

/**
 * The approvals a rule applying to a merge request may not go below: the project rule's (the rule itself until the
 * request has rules of its own, then the one its copy came from). Undefined for a rule of the request's own, or
 * one whose project rule was deleted since.
 */
function projectMinimum(rule: ApprovalRule, overwritten: boolean): number | undefined {
  return overwritten ? rule.source?.approvalsRequired : rule.approvalsRequired;
}

/** GitLab's validation of a merge request rule copied from a project rule (400 naming the field). */
function atLeast(approvalsRequired: number, minimum: number): void {
  if (approvalsRequired < minimum)
    throw invalidFields({ approvals_required: [`must be greater than or equal to ${minimum}`] });
}

/** Whether a merge request's copy of a project rule no longer matches it. */
function differs(own: ApprovalRuleRecord, source: ApprovalRuleRecord): boolean {
  const same = (a: readonly number[], b: readonly number[]) =>
    a.length === b.length && [...a].sort().join() === [...b].sort().join();
  return (
    own.approvalsRequired !== source.approvalsRequired ||
    !same(own.userIds, source.userIds) ||
    !same(own.groupIds, source.groupIds)
  );
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

/** An approval was given between reading the approvers and resetting: the reset runs again to name it. */
class ApproverChanged extends Error {}
