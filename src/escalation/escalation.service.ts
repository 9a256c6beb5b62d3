import type { AlertStatus } from '../alerts/alerts.js';
import type { AlertsService } from '../alerts/alerts.service.js';
import type { Clock } from '../clock.js';
import { digest, randomToken } from '../crypto.js';
import { forbidden, notFound, paramError, plainError } from '../errors.js';
import type { Outbox } from '../ingest/outbox.js';
import type { Issue, IssueView } from '../issues/issues.js';
import type { IssuesService } from '../issues/issues.service.js';
import type { Job, JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService } from '../members/members.service.js';
import type { Namespace } from '../namespaces/namespaces.js';
import type { NotificationsService, PagedSubject } from '../notifications/notifications.service.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SilencesService } from '../silences/silences.service.js';
import { TtlCache } from '../ttl-cache.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import {
  ACK_LINK_TTL_MS,
  type AckTimeoutJob,
  ackKey,
  ESCALATION_STATUSES,
  type EscalationPolicy,
  type EscalationRule,
  type EscalationStatus,
  jobKey,
  MAX_ACK_TIMEOUT_MINUTES,
  MAX_DESCRIPTION,
  MAX_ELAPSED_SECONDS,
  MAX_NAME,
  MAX_REPEAT,
  MAX_RULES,
  type OnCallLookup,
  orderRules,
  type PageJob,
  type PolicyOwner,
  pageKey,
  type RuleRecord,
  rulePages,
  targetRef,
} from './escalation.js';
import type { AckToken, EscalationRepository, PolicyFields } from './escalation.repository.js';

export const ESCALATION_PAGE_JOB = 'escalation_page';
export const ESCALATION_ACK_TIMEOUT_JOB = 'escalation_ack_timeout';

/**
 * Repeating rules whose last is due at once would page again at once, round after round: a policy that repeats
 * needs a last rule with some elapsed time.
 */
function checkRepeat(repeat: number, rules: readonly { elapsedTimeSeconds: number }[]): void {
  if (repeat > 0 && (rules[rules.length - 1]?.elapsedTimeSeconds ?? 0) === 0)
    throw invalid('Repeat needs a last rule with an elapsed time above 0 seconds');
}

/** What happened to an alert that concerns its escalation (the `alert.changed` outbox event). */
type AlertEvent = 'new' | 'resolved' | 'acknowledged' | 'retriggered';

/** A 400 with GitLab's service message (`{"message": "..."}`). */
const invalid = (message: string) => plainError('invalid', message);

/**
 * Whose policy a call is about: a project (its id or full path) or a group (`{ group: id or full path }`). A group's
 * policy escalates the alerts of every project below it that has no policy of its own.
 */
export type EscalationRef = string | { readonly group: string };

/** The owner of a policy, loaded (exactly one of `project` and `group`). */
interface PolicyScope {
  readonly owner: PolicyOwner;
  readonly project: Project | null;
  readonly group: Namespace | null;
}

/** "project" or "group", for messages. */
const noun = (scope: PolicyScope) => (scope.project ? 'project' : 'group');
const Noun = (scope: PolicyScope) => (scope.project ? 'Project' : 'Group');

/** A rule as the API takes it: the target by `oncall_schedule_iid`, `username` or `user_id` (exactly one). */
export interface RuleInput {
  readonly elapsedTimeSeconds?: number;
  readonly status?: string;
  readonly oncallScheduleIid?: number;
  readonly username?: string;
  readonly userId?: number;
  /** A chat integration of the project (its slug) to page. */
  readonly integrationSlug?: string;
}

export interface PolicyInput {
  readonly name?: string;
  readonly description?: string | null;
  readonly rules?: readonly RuleInput[];
  readonly repeat?: number;
  readonly ackTimeoutMinutes?: number | null;
}

/** A rule with its user target loaded. */
export type RuleView = EscalationRule & { readonly user: User | null };
/** A policy with its rules' users loaded, as the API shows it. */
export type PolicyView = Omit<EscalationPolicy, 'rules'> & { readonly rules: readonly RuleView[] };

/** One rule's escalation of one alert, with users loaded. */
export interface RuleEscalationView {
  readonly ruleId: number;
  readonly elapsedTimeSeconds: number | null;
  readonly status: EscalationStatus | null;
  readonly schedule: { readonly iid: number; readonly name: string } | null;
  readonly user: User | null;
  readonly dueAt: string | null;
  readonly state: 'pending' | 'paged' | 'skipped';
  readonly pages: readonly {
    readonly round: number;
    readonly cycle: number | null;
    readonly user: User | null;
    readonly at: string;
    readonly emailStatus: string;
  }[];
}

/** What an acknowledge link shows before it is used (`GET /-/acknowledge/:token`). */
export interface AckLinkView {
  /** `valid`: the button acknowledges; the others change nothing. */
  readonly state: 'valid' | 'used' | 'expired' | 'unknown';
  readonly projectPath?: string;
  readonly target?: {
    readonly kind: 'alert' | 'incident';
    readonly iid: number;
    readonly title: string;
    readonly status: string;
  };
  readonly user?: string | null;
}

/** What using an acknowledge link did (`POST /-/acknowledge/:token`). */
export type AckOutcome = AckLinkView & {
  /** Whether this request used the token (false: it could not be used, nothing changed). */
  readonly usedNow: boolean;
  /** Whether it acknowledged (false when used on an alert or incident no longer triggered). */
  readonly acknowledged: boolean;
};

/** What this service reads and drives of other features (ports, wired in the composition root). */
export interface EscalationSources {
  /** Reads alerts; triggers an acknowledged one again when its acknowledgement times out; acknowledges by link. */
  alerts: Pick<
    AlertsService,
    'alertForSystem' | 'alertByIdForSystem' | 'retriggerAcknowledged' | 'acknowledgeByLink'
  >;
  /** Incidents paged by hand: read, started, acknowledged by link, triggered again, their timelines. */
  incidents: Pick<
    IssuesService,
    | 'incidentForSystem'
    | 'incidentById'
    | 'viewForSystem'
    | 'startPaging'
    | 'acknowledgeByLink'
    | 'retriggerAcknowledged'
    | 'recordTimelineEvent'
  >;
  users: Pick<UsersService, 'findById' | 'findByUsername'>;
  /** Who may be paged: active members of the project, direct or inherited (and a personal namespace's owner). */
  members: Pick<MembersService, 'memberIdsAtLeast' | 'groupMemberIdsAtLeast'>;
  /** Records the page e-mails and the webhook event. */
  notifications: Pick<NotificationsService, 'page'>;
  /** The silences holding an alert's pages back when they are due. */
  silences: Pick<SilencesService, 'silencing'>;
  /** The chat integrations a rule may page (their channel), by slug. */
  chat?: {
    integrationOf(projectId: number, slug: string): Promise<{ id: number } | null>;
    pageChannel(
      p: {
        project: Project;
        subject: PagedSubject;
        keyBase: string;
        recipients: readonly { username: string }[];
        policyName: string;
      },
      integrationId: number,
    ): Promise<void>;
  };
}

/**
 * Escalation policies (Premium and Ultimate): Reporters read, Maintainers manage, Free gets 403. A new alert in a
 * project with a policy enqueues, in the intake transaction, one job per rule due at the alert's creation plus the
 * rule's elapsed time; the job pages the rule's targets unless the alert was acknowledged (for `acknowledged`
 * rules), resolved or ignored by then. Pages are recorded with unique keys, so a job that runs again after a
 * crash pages nobody twice; the e-mails are sent by the notification jobs.
 */
export class EscalationService {
  /**
   * Each project's effective policy (its own, else its nearest group's), read by intake per new alert (a project
   * without one costs a cached lookup). Cleared on any policy change, and on any change of the project tree.
   */
  private readonly policies: TtlCache<number, EscalationPolicy | null>;
  private readonly listeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly repo: EscalationRepository,
    private readonly projects: ProjectsService,
    private readonly sources: EscalationSources,
    private readonly onCall: OnCallLookup,
    private readonly jobs: JobQueue,
    private readonly access: Access,
    private readonly clock: Clock,
    /** Writes the events of an acknowledgement by link in its transaction. */
    private readonly outbox: Outbox,
    /** Where acknowledge links point. */
    private readonly externalUrl: string,
    cacheTtlMs = 1000,
  ) {
    this.policies = new TtlCache(clock, cacheTtlMs);
    jobs.register(ESCALATION_PAGE_JOB, (job) => this.runPage(job), 'urgent');
    jobs.register(ESCALATION_ACK_TIMEOUT_JOB, (job) => this.runAckTimeout(job), 'urgent');
  }

  /** Calls `fn` after a policy changed (the composition root announces it to the other processes). */
  onChange(fn: () => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  /** Forgets the cached policies (a policy changed, here or in another process). */
  invalidate(): void {
    this.policies.clear();
  }

  private async changed(): Promise<void> {
    this.policies.clear();
    for (const fn of this.listeners) await fn();
  }

  private async scope(actor: User | null, ref: EscalationRef, level: number): Promise<PolicyScope> {
    if (typeof ref !== 'string') {
      const { group } = await this.access.group(actor, ref.group, level);
      this.access.tier('escalation_policies');
      return { owner: { type: 'group', id: group.id }, project: null, group };
    }
    const { project } = await this.access.project(actor, ref, level);
    this.access.tier('escalation_policies');
    return { owner: { type: 'project', id: project.id }, project, group: null };
  }

  /**
   * The policy that escalates a project's alerts and incidents: the project's own, else the nearest ancestor
   * group's (its namespace first), else null. The one lookup every escalation starts from (intake's new alerts,
   * the page jobs, paging by hand), cached per project; pass the caller's transaction when inside one (on SQLite a
   * query outside it would wait for it forever).
   */
  async effectivePolicy(projectId: number, trx?: UnitOfWork): Promise<EscalationPolicy | null> {
    return this.policies.get(projectId, () => this.repo.effectivePolicy(projectId, trx));
  }

  private async view(policy: EscalationPolicy): Promise<PolicyView> {
    const rules = await Promise.all(
      policy.rules.map(async (r) => ({
        ...r,
        user: r.userId === null ? null : await this.sources.users.findById(r.userId),
      })),
    );
    return { ...policy, rules };
  }

  /** `GET .../escalation_policies`: the project's (group's) own policy, or none (Reporter). */
  async list(actor: User | null, idOrPath: EscalationRef): Promise<PolicyView[]> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    const policy = await this.repo.policy(project.owner);
    return policy ? [await this.view(policy)] : [];
  }

  async get(actor: User | null, idOrPath: EscalationRef, policyId: number): Promise<PolicyView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    return this.view(await this.existing(project, policyId));
  }

  private async existing(project: PolicyScope, policyId: number): Promise<EscalationPolicy> {
    const policy = await this.repo.policy(project.owner);
    if (!policy || policy.id !== policyId) throw notFound('Escalation policy');
    return policy;
  }

  /** `POST`: 400 when the project (group) has a policy already (GitLab: one per project), or for a bad rule. */
  async create(actor: User | null, idOrPath: EscalationRef, input: PolicyInput): Promise<PolicyView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const one = `${Noun(project)} can only have one escalation policy`;
    if (await this.repo.policy(project.owner)) throw invalid(one);
    const fields = this.fields(input, null);
    if (input.rules === undefined) throw paramError('rules is missing');
    const rules = await this.rules(project, input.rules);
    checkRepeat(fields.repeat, rules);
    if (!(await this.repo.insertPolicy(project.owner, fields, rules, this.clock.now().toISOString())))
      throw invalid(one);
    await this.changed();
    return this.view((await this.repo.policy(project.owner))!);
  }

  /** `PUT`: changes the name and description; `rules`, when given, replace the rules. */
  async update(
    actor: User | null,
    idOrPath: EscalationRef,
    policyId: number,
    input: PolicyInput,
  ): Promise<PolicyView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.existing(project, policyId);
    const fields = this.fields(input, current);
    const rules = input.rules === undefined ? null : await this.rules(project, input.rules);
    checkRepeat(fields.repeat, rules ?? current.rules);
    await this.repo.updatePolicy(current.id, fields, rules, this.clock.now().toISOString());
    await this.changed();
    return this.view((await this.repo.policy(project.owner))!);
  }

  /** `DELETE`: the policy and its rules; escalations in progress stop (their jobs find no policy). */
  async delete(actor: User | null, idOrPath: EscalationRef, policyId: number): Promise<PolicyView> {
    const project = await this.scope(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.view(await this.existing(project, policyId));
    await this.repo.deletePolicy(current.id);
    await this.changed();
    return current;
  }

  /** The project's (group's) on-call schedules (for the UI's target choice; Reporter). */
  async schedules(actor: User | null, idOrPath: EscalationRef) {
    const project = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    return this.repo.schedules(project.owner);
  }

  private fields(input: PolicyInput, current: EscalationPolicy | null): PolicyFields {
    const name = (input.name ?? current?.name ?? '').trim();
    if (name === '') throw paramError('name is missing');
    if (name.length > MAX_NAME) throw invalid(`Name is too long (maximum is ${MAX_NAME} characters)`);
    const description = input.description !== undefined ? input.description : (current?.description ?? null);
    if (description !== null && description.length > MAX_DESCRIPTION)
      throw invalid(`Description is too long (maximum is ${MAX_DESCRIPTION} characters)`);
    const repeat = input.repeat ?? current?.repeat ?? 0;
    if (!Number.isInteger(repeat) || repeat < 0 || repeat > MAX_REPEAT)
      throw invalid(`Repeat must be an integer from 0 to ${MAX_REPEAT}`);
    const ackTimeoutMinutes =
      input.ackTimeoutMinutes !== undefined ? input.ackTimeoutMinutes : (current?.ackTimeoutMinutes ?? null);
    if (
      ackTimeoutMinutes !== null &&
      (!Number.isInteger(ackTimeoutMinutes) ||
        ackTimeoutMinutes < 1 ||
        ackTimeoutMinutes > MAX_ACK_TIMEOUT_MINUTES)
    )
      throw invalid(`Ack timeout minutes must be an integer from 1 to ${MAX_ACK_TIMEOUT_MINUTES}`);
    return { name, description, repeat, ackTimeoutMinutes };
  }

  /** Checks the rules (GitLab's limits and messages) and resolves their targets; in GitLab's order. */
  private async rules(project: PolicyScope, input: readonly RuleInput[]): Promise<RuleRecord[]> {
    if (input.length === 0) throw invalid('Escalation policies must have at least one rule');
    if (input.length > MAX_RULES) throw invalid(`Maximum of ${MAX_RULES} rules are permitted`);
    let members: ReadonlySet<number> | null = null;
    const out: RuleRecord[] = [];
    for (const r of input) {
      const elapsed = r.elapsedTimeSeconds;
      if (elapsed === undefined) throw paramError('rules[elapsed_time_seconds] is missing');
      if (!Number.isInteger(elapsed) || elapsed < 0 || elapsed > MAX_ELAPSED_SECONDS)
        throw invalid(`Elapsed time seconds must be an integer from 0 to ${MAX_ELAPSED_SECONDS}`);
      if (r.status === undefined) throw paramError('rules[status] is missing');
      if (!ESCALATION_STATUSES.includes(r.status as EscalationStatus))
        throw paramError('rules[status] does not have a valid value (acknowledged, resolved)');
      const targets = [r.oncallScheduleIid, r.username, r.userId, r.integrationSlug].filter(
        (t) => t !== undefined,
      );
      if (targets.length !== 1)
        throw invalid(
          'Each rule needs exactly one target: oncall_schedule_iid, username, user_id or integration_slug',
        );
      let scheduleId: number | null = null;
      let userId: number | null = null;
      let chatIntegrationId: number | null = null;
      if (r.integrationSlug !== undefined) {
        // Chat integrations belong to projects: a group's policy cannot page one.
        const chat =
          project.project && (await this.sources.chat?.integrationOf(project.project.id, r.integrationSlug));
        if (!chat)
          throw invalid(
            'Integration-based escalation rules must have a chat integration set up in the project',
          );
        chatIntegrationId = chat.id;
      } else if (r.oncallScheduleIid !== undefined) {
        const schedule = await this.repo.schedule(project.owner, r.oncallScheduleIid);
        if (!schedule)
          throw invalid(`Schedule-based escalation rules must have a schedule in the same ${noun(project)}`);
        scheduleId = schedule.id;
      } else {
        const user =
          r.username !== undefined
            ? await this.sources.users.findByUsername(r.username)
            : await this.sources.users.findById(r.userId!);
        members ??= project.project
          ? await this.sources.members.memberIdsAtLeast(project.project, AccessLevel.Guest)
          : await this.sources.members.groupMemberIdsAtLeast(project.group!, AccessLevel.Guest);
        if (!user || !members.has(user.id))
          throw invalid(`User-based escalation rules must have a user with access to the ${noun(project)}`);
        userId = user.id;
      }
      out.push({
        elapsedTimeSeconds: elapsed,
        status: r.status as EscalationStatus,
        scheduleId,
        userId,
        ...(chatIntegrationId !== null && { chatIntegrationId }),
      });
    }
    const same = (a: RuleRecord, b: RuleRecord) =>
      a.elapsedTimeSeconds === b.elapsedTimeSeconds &&
      a.status === b.status &&
      a.scheduleId === b.scheduleId &&
      a.userId === b.userId &&
      (a.chatIntegrationId ?? null) === (b.chatIntegrationId ?? null);
    if (out.some((r, i) => out.findIndex((o) => same(o, r)) !== i))
      throw invalid('Rules must be unique (the same target, status and elapsed time twice)');
    return orderRules(out);
  }

  // The engine

  /**
   * Whether an alert event concerns escalation: on a paid tier, a resolved alert (its pending pages are dropped)
   * or a new one in a project with a policy (a cached lookup in the caller's transaction). Intake writes no outbox
   * row otherwise.
   */
  async wantsAlertEvent(trx: UnitOfWork, projectId: number, event: AlertEvent): Promise<boolean> {
    if (!this.access.hasTier('escalation_policies')) return false;
    if (event === 'resolved') return true;
    const policy = await this.effectivePolicy(projectId, trx);
    if (event === 'acknowledged') return policy !== null && policy.ackTimeoutMinutes !== null;
    return policy !== null;
  }

  /**
   * An alert was created or resolved (the outbox's handler, after the intake or status change committed). A new
   * alert in a project with a policy gets one job per rule, due at its creation plus the rule's elapsed time (the policy as
   * it is now: later changes apply to later alerts). A resolved alert's pending jobs are dropped (they would
   * find it resolved anyway).
   */
  async alertChanged(
    trx: UnitOfWork,
    projectId: number,
    iid: number,
    event: AlertEvent,
    alertId: number,
    /** When the alert was created (pages are due from then); now when absent. */
    createdAt?: string,
  ): Promise<void> {
    if (!this.access.hasTier('escalation_policies')) return;
    if (event === 'resolved') {
      await this.repo.dropPending(trx, alertId);
      await this.repo.dropAckTimeouts(trx, alertId);
      return;
    }
    // Inside the caller's transaction: on SQLite a query outside it would wait for it forever.
    const policy = await this.effectivePolicy(projectId, trx);
    if (!policy) return;
    const at = createdAt ? new Date(createdAt) : this.clock.now();
    if (event === 'acknowledged') {
      if (policy.ackTimeoutMinutes === null) return;
      // A new acknowledgement restarts the timer: the earlier one's job goes.
      await this.repo.dropAckTimeouts(trx, alertId);
      const job: AckTimeoutJob = {
        projectId,
        alertId,
        iid,
        policyId: policy.id,
        minutes: policy.ackTimeoutMinutes,
      };
      await this.jobs.enqueue(ESCALATION_ACK_TIMEOUT_JOB, job, {
        trx,
        runAt: new Date(at.getTime() + policy.ackTimeoutMinutes * 60_000),
        uniqueKey: ackKey(alertId, at.getTime()),
      });
      return;
    }
    // Triggered again after a timed-out acknowledgement: the rules run again from the first, as new pages (the
    // first run's jobs still pending, of `resolved` rules, go: the new run pages those rules anew).
    if (event === 'retriggered') await this.repo.dropPending(trx, alertId);
    const cycle = event === 'retriggered' ? at.getTime() : undefined;
    await this.enqueueRound(trx, policy, projectId, { id: alertId, iid }, at, 0, cycle);
  }

  /** Whether a paged incident's change concerns escalation (a paid tier: its pages and timeouts exist there). */
  wantsIncidentEvent(): boolean {
    return this.access.hasTier('escalation_policies');
  }

  /**
   * A paged incident's status changed (the outbox's handler, after the change committed): resolved or closed drops
   * its pending pages and acknowledgement timeout; acknowledged starts its policy's acknowledgement timeout (a new
   * acknowledgement restarts it); triggered again, by hand or by a timeout, runs the rules again from the first,
   * as new pages.
   */
  async incidentChanged(
    trx: UnitOfWork,
    projectId: number,
    issueId: number,
    iid: number,
    event: 'resolved' | 'acknowledged' | 'retriggered',
    at: string,
  ): Promise<void> {
    if (!this.access.hasTier('escalation_policies')) return;
    const ref = targetRef(issueId, true);
    if (event === 'resolved') {
      await this.repo.dropPending(trx, ref);
      await this.repo.dropAckTimeouts(trx, ref);
      return;
    }
    const incident = await this.sources.incidents.incidentForSystem(projectId, iid, trx);
    const policy = await this.effectivePolicy(projectId, trx);
    if (!incident || incident.id !== issueId || !policy || policy.id !== incident.escalationPolicyId) return;
    const when = new Date(at);
    if (event === 'acknowledged') {
      await this.repo.dropAckTimeouts(trx, ref);
      if (policy.ackTimeoutMinutes === null) return;
      const job: AckTimeoutJob = {
        projectId,
        alertId: issueId,
        incident: true,
        iid,
        policyId: policy.id,
        minutes: policy.ackTimeoutMinutes,
      };
      await this.jobs.enqueue(ESCALATION_ACK_TIMEOUT_JOB, job, {
        trx,
        runAt: new Date(when.getTime() + policy.ackTimeoutMinutes * 60_000),
        uniqueKey: ackKey(ref, when.getTime()),
      });
      return;
    }
    await this.repo.dropPending(trx, ref);
    await this.enqueueRound(
      trx,
      policy,
      projectId,
      { id: issueId, iid, incident: true },
      when,
      0,
      when.getTime(),
    );
  }

  /**
   * `POST .../issues/:iid/page`: starts an escalation policy on an incident (Developer, GitLab's
   * `update_escalation_status`; Premium and Ultimate). The policy is `policyId`, else the project's; 400 when there
   * is none, or when the incident is closed or already being escalated with it (triggered). In one transaction:
   * the incident takes the policy and is triggered (notes and timeline events), and the first round is queued as a
   * new run (its own keys: paging again later pages anew).
   */
  async pageIncident(
    actor: User | null,
    idOrPath: string,
    iid: number,
    policyId?: number,
  ): Promise<IssueView> {
    const { project, user, incident, policy } = await this.pageable(actor, idOrPath, iid, (p) => {
      if (policyId !== undefined && p?.id !== policyId) throw notFound('Escalation policy');
      if (!p)
        throw invalid(
          'The project has no escalation policy: create one (incident_management/escalation_policies) to page',
        );
      return p;
    });
    if (incident.escalationPolicyId === policy.id && incident.escalationStatus === 'triggered')
      throw invalid(`This incident is already escalated with '${policy.name}'.`);
    await this.startPaging(project, user, incident, policy);
    return this.sources.incidents.viewForSystem(project, iid);
  }

  /**
   * GitLab's `/page <policy name>` quick action in a note: the same as `pageIncident`, by the policy's name, with
   * GitLab's messages; an unknown policy or one already escalating the incident changes nothing (the message says
   * why). Returns what changed (GitLab's `commands_changes`) and the message.
   */
  async pageByQuickAction(
    actor: User | null,
    idOrPath: string,
    iid: number,
    name: string,
  ): Promise<{ changes: Record<string, unknown>; message: string } | null> {
    // As GitLab, the command exists only for whoever may page this incident (Developer, a paid tier, an incident):
    // for anyone else (null) the line is plain text of the comment.
    const user = this.access.signedIn(actor);
    const { project, level } = await this.access.project(user, idOrPath);
    const incident = await this.sources.incidents.incidentForSystem(project.id, iid);
    if (!incident || level < AccessLevel.Developer || !this.access.hasTier('escalation_policies'))
      return null;
    const wanted = name.trim();
    const policy = await this.effectivePolicy(project.id);
    if (!policy || policy.name.toLowerCase() !== wanted.toLowerCase())
      return { changes: {}, message: `Policy '${wanted}' does not exist.` };
    if (incident.state === 'closed')
      return { changes: {}, message: 'A closed incident cannot be paged: reopen it first.' };
    if (incident.escalationPolicyId === policy.id && incident.escalationStatus === 'triggered')
      return { changes: {}, message: `This incident is already escalated with '${policy.name}'.` };
    await this.startPaging(project, user, incident, policy);
    return {
      changes: { escalation_status: { policy: { id: policy.id, name: policy.name } } },
      message: 'Started escalation for this incident.',
    };
  }

  /** The incident a caller may page, and the policy `choose` picks from the project's. */
  private async pageable<P extends EscalationPolicy | null>(
    actor: User | null,
    idOrPath: string,
    iid: number,
    choose: (policy: EscalationPolicy | null) => P,
  ): Promise<{ project: Project; user: User; incident: Issue; policy: P }> {
    const user = this.access.signedIn(actor);
    const { project, level } = await this.access.project(user, idOrPath);
    const incident = await this.sources.incidents.incidentForSystem(project.id, iid);
    if (!incident) {
      // A plain issue cannot be paged (GitLab offers `/page` on incidents only); a missing one is a 404.
      throw notFound('Incident');
    }
    if (level < AccessLevel.Developer) throw forbidden();
    this.access.tier('escalation_policies');
    if (incident.state === 'closed') throw invalid('A closed incident cannot be paged: reopen it first');
    return { project, user, incident, policy: choose(await this.effectivePolicy(project.id)) };
  }

  private async startPaging(
    project: Project,
    user: User,
    incident: Issue,
    policy: EscalationPolicy,
  ): Promise<void> {
    const ref = targetRef(incident.id, true);
    await this.repo.transaction(async (trx) => {
      const now = this.clock.now();
      await this.sources.incidents.startPaging(
        trx,
        { projectId: project.id, iid: incident.iid },
        user,
        { id: policy.id, name: policy.name },
        now.toISOString(),
      );
      // A run in progress (another policy's, or one acknowledged) gives way to the new one.
      await this.repo.dropPending(trx, ref);
      await this.repo.dropAckTimeouts(trx, ref);
      await this.enqueueRound(
        trx,
        policy,
        project.id,
        { id: incident.id, iid: incident.iid, incident: true },
        now,
        0,
        now.getTime(),
      );
    });
    this.jobs.wake();
  }

  /**
   * An acknowledgement's timeout: the alert, still acknowledged under the same policy, is triggered again (the
   * alerts service writes the note and the `retriggered` event in one transaction, so a re-run finds it triggered
   * and does nothing).
   */
  private async runAckTimeout(job: Job): Promise<void> {
    const j = job.payload as AckTimeoutJob;
    if (!this.access.hasTier('escalation_policies')) return;
    const policy = await this.effectivePolicy(j.projectId);
    if (!policy || policy.id !== j.policyId || policy.ackTimeoutMinutes === null) return;
    if (j.incident)
      await this.sources.incidents.retriggerAcknowledged(j.projectId, j.alertId, j.policyId, j.minutes);
    else await this.sources.alerts.retriggerAcknowledged(j.projectId, j.iid, j.alertId, j.minutes);
  }

  /**
   * One round of the rules for an alert: a job per rule, due at the round's start plus the rule's elapsed time,
   * with a unique key per alert, rule and round (a round queued twice, by a re-run job, is queued once).
   */
  private async enqueueRound(
    trx: UnitOfWork | undefined,
    policy: EscalationPolicy,
    projectId: number,
    target: { id: number; iid: number; incident?: boolean },
    start: Date,
    round: number,
    cycle?: number,
  ): Promise<void> {
    const lastId = policy.rules[policy.rules.length - 1]?.id;
    const ref = targetRef(target.id, target.incident);
    for (const rule of policy.rules) {
      const dueAt = new Date(start.getTime() + rule.elapsedTimeSeconds * 1000);
      const job: PageJob = {
        projectId,
        alertId: target.id,
        ...(target.incident && { incident: true as const }),
        iid: target.iid,
        policyId: policy.id,
        ruleId: rule.id,
        elapsedTimeSeconds: rule.elapsedTimeSeconds,
        status: rule.status,
        scheduleId: rule.schedule?.id ?? null,
        userId: rule.userId,
        ...(rule.chatIntegration && { chatIntegrationId: rule.chatIntegration.id }),
        dueAt: dueAt.toISOString(),
        round,
        last: rule.id === lastId,
        ...(cycle !== undefined && { cycle }),
      };
      await this.jobs.enqueue(ESCALATION_PAGE_JOB, job, {
        trx,
        runAt: dueAt,
        uniqueKey: jobKey(ref, rule.id, round, cycle),
      });
    }
  }

  /**
   * A silence of the project was expired early or changed: its held pages are checked again now (those still
   * silenced are held again until their silences' new end).
   */
  async silencesChanged(projectId: number): Promise<void> {
    await this.repo.releaseHeld(projectId, this.clock.now().toISOString());
    this.jobs.wake();
  }

  /**
   * One rule's page for one alert, at (or after) its due time. Idempotent: the page keys are unique (per round). The
   * last rule's job of a round queues the next round, starting at its due time, while the alert is still triggered
   * and the policy (as it is now) has rounds left; the next round's jobs have unique keys, so a re-run queues none
   * twice and pages nobody twice.
   */
  private async runPage(job: Job): Promise<void> {
    const j = job.payload as PageJob;
    if (!this.access.hasTier('escalation_policies')) return;
    const project = await this.projects.findById(j.projectId);
    if (!project) return;
    // A deleted policy stops its escalations (a new one applies to later alerts only), as does one that no longer
    // applies (the project got its own, or moved out of the group).
    const policy = await this.effectivePolicy(project.id);
    if (!policy || policy.id !== j.policyId) return;
    const ref = targetRef(j.alertId, j.incident);
    let status: AlertStatus;
    let subject: PagedSubject;
    /** The incident whose timeline tells of the page (the incident paged, or the one the alert opened). */
    let timelineIid: number | null;
    if (j.incident) {
      const incident = await this.sources.incidents.incidentForSystem(project.id, j.iid);
      // Paged with another policy since (its own run goes on), or gone.
      if (!incident || incident.id !== j.alertId || incident.escalationPolicyId !== j.policyId) return;
      status = incident.state === 'closed' ? 'resolved' : (incident.escalationStatus ?? 'triggered');
      subject = { kind: 'incident', incident };
      timelineIid = incident.iid;
    } else {
      const alert = await this.sources.alerts.alertForSystem(project.id, j.iid);
      if (!alert || alert.id !== j.alertId) return;
      status = alert.status;
      subject = { kind: 'alert', alert };
      timelineIid = alert.incidentIid;
    }
    if (!rulePages(j.status, status)) return;
    // A silenced alert pages nobody: the page is held until the silences end (or are expired early, see
    // `silencesChanged`), then checked afresh: it goes out if the alert is still in a state its rule pages for.
    // Silences match alerts; an incident paged by hand is paged.
    const silencing =
      subject.kind === 'alert' ? await this.sources.silences.silencing(project.id, subject.alert) : [];
    if (silencing.length > 0) {
      const end = new Date(Math.max(...silencing.map((s) => new Date(s.endsAt).getTime())));
      // Another key than the running job's (which is deleted when this returns), under the alert's prefix.
      await this.jobs.enqueue(ESCALATION_PAGE_JOB, { ...j, dueAt: end.toISOString() } satisfies PageJob, {
        runAt: end,
        uniqueKey: `${jobKey(ref, j.ruleId, j.round ?? 0, j.cycle ?? undefined)}:held:${end.getTime()}`,
      });
      return;
    }
    const round = j.round ?? 0;
    let schedule: { iid: number; name: string } | null = null;
    let ids: number[];
    if (j.scheduleId !== null) {
      schedule = await this.repo.scheduleById(j.scheduleId);
      // A deleted schedule has nobody on call.
      ids = schedule ? await this.onCall.onCallUserIds(j.scheduleId, new Date(j.dueAt)) : [];
    } else {
      ids = j.userId === null ? [] : [j.userId];
    }
    const users: User[] = [];
    const members =
      ids.length > 0
        ? await this.sources.members.memberIdsAtLeast(project, AccessLevel.Guest)
        : new Set<number>();
    for (const id of [...new Set(ids)]) {
      const u = await this.sources.users.findById(id);
      // Blocked users, and users who left the project since the rule was made, are not paged.
      if (u && u.state === 'active' && members.has(u.id)) users.push(u);
    }
    const keyBase = pageKey(ref, j.ruleId, round, j.cycle);
    // A rule that pages a chat integration pages its channel, no one by e-mail.
    if (j.chatIntegrationId != null)
      await this.sources.chat?.pageChannel(
        { project, subject, keyBase, recipients: [], policyName: policy.name },
        j.chatIntegrationId,
      );
    const target = j.userId === null ? null : await this.sources.users.findById(j.userId);
    const position = policy.rules.findIndex((r) => r.id === j.ruleId);
    const ruleName = `rule ${position < 0 ? '?' : position + 1} (after ${j.elapsedTimeSeconds} s${
      schedule ? `, schedule **${schedule.name}**` : ''
    })`;
    if (j.chatIntegrationId == null)
      await this.sources.notifications.page({
        project,
        subject,
        keyBase,
        recipients: users.map((u) => ({ id: u.id, email: u.email, username: u.username })),
        policyName: policy.name,
        escalation: {
          policy: { id: policy.id, name: policy.name },
          rule: {
            id: j.ruleId,
            elapsed_time_seconds: j.elapsedTimeSeconds,
            status: j.status,
            oncall_schedule: schedule && { iid: schedule.iid, name: schedule.name },
            user: target && { id: target.id, username: target.username, name: target.name },
          },
          due_at: j.dueAt,
          round,
          targets: users.map((u) => ({ id: u.id, username: u.username, name: u.name })),
        },
        acknowledgeUrl: (trx, userId) =>
          this.acknowledgeUrl(trx, project.id, j.incident ? 'incident' : 'alert', j.alertId, userId),
        recorded: async (trx, paged) => {
          if (timelineIid === null) return;
          const whom = paged.map((u) => `@${u.username}`).join(', ');
          await this.sources.incidents.recordTimelineEvent(
            trx,
            { projectId: project.id, iid: timelineIid },
            {
              note: `${whom} paged by escalation policy **${policy.name}**, ${ruleName}${
                subject.kind === 'alert' ? ` for alert ^alert#${subject.alert.iid}` : ''
              }${round > 0 ? `, repeat ${round}` : ''}`,
              action: 'escalation',
              occurredAt: this.clock.now().toISOString(),
              authorId: null,
            },
          );
        },
      });
    if (j.last && status === 'triggered' && round < policy.repeat && policy.rules.length > 0)
      await this.enqueueRound(
        undefined,
        policy,
        project.id,
        { id: j.alertId, iid: j.iid, incident: j.incident },
        new Date(j.dueAt),
        round + 1,
        j.cycle,
      );
  }

  // One-use acknowledge links

  /**
   * A new acknowledge link for one page of one alert or incident, in the page's transaction: a random token (192
   * bits) whose SHA-256 digest alone is stored, for `userId` (null: whoever opens the webhook's link), for a day.
   */
  private async acknowledgeUrl(
    trx: UnitOfWork,
    projectId: number,
    targetType: 'alert' | 'incident',
    targetId: number,
    userId: number | null,
  ): Promise<string> {
    const token = randomToken(24);
    const now = this.clock.now();
    await this.repo.insertAckToken(
      trx,
      {
        digest: digest(token),
        projectId,
        targetType,
        targetId,
        userId,
        expiresAt: new Date(now.getTime() + ACK_LINK_TTL_MS).toISOString(),
      },
      now.toISOString(),
    );
    return `${this.externalUrl}/-/acknowledge/${token}`;
  }

  /** What a token would acknowledge, and whether it still may (no sign-in: the token is the credential). */
  async acknowledgeLink(token: string): Promise<AckLinkView> {
    const t = /^[\w-]{16,128}$/.test(token) ? await this.repo.ackToken(digest(token)) : null;
    if (!t) return { state: 'unknown' };
    return this.linkView(t);
  }

  private async linkView(t: AckToken): Promise<AckLinkView> {
    const project = await this.projects.findById(t.projectId);
    const user = t.userId === null ? null : await this.sources.users.findById(t.userId);
    let target: AckLinkView['target'];
    if (project && t.targetType === 'incident') {
      const i = await this.sources.incidents.incidentById(project.id, t.targetId);
      if (i)
        target = {
          kind: 'incident',
          iid: i.iid,
          title: i.title,
          status: i.state === 'closed' ? 'resolved' : (i.escalationStatus ?? 'triggered'),
        };
    } else if (project) {
      const a = await this.sources.alerts.alertByIdForSystem(project.id, t.targetId);
      if (a) target = { kind: 'alert', iid: a.iid, title: a.title, status: a.status };
    }
    if (!project || !target) return { state: 'unknown' };
    const state =
      t.usedAt !== null
        ? 'used'
        : Date.parse(t.expiresAt) <= this.clock.now().getTime()
          ? 'expired'
          : 'valid';
    return { state, projectPath: project.fullPath, target, user: user?.username ?? null };
  }

  /**
   * Uses a token: in one transaction, marks it used (once: a conditional update) and acknowledges its one alert or
   * incident as the person paged, when it is still triggered. An unknown, used or expired token changes nothing;
   * neither does one whose person is blocked or has left the project.
   */
  async acknowledgeWithLink(token: string): Promise<AckOutcome> {
    const t = /^[\w-]{16,128}$/.test(token) ? await this.repo.ackToken(digest(token)) : null;
    if (!t) return { state: 'unknown', usedNow: false, acknowledged: false };
    const before = await this.linkView(t);
    if (before.state !== 'valid') return { ...before, usedNow: false, acknowledged: false };
    const project = (await this.projects.findById(t.projectId))!;
    let user: User | null = null;
    if (t.userId !== null) {
      user = await this.sources.users.findById(t.userId);
      const members = await this.sources.members.memberIdsAtLeast(project, AccessLevel.Guest);
      if (!user || user.state !== 'active' || !members.has(user.id))
        return { state: 'unknown', usedNow: false, acknowledged: false };
    }
    const result = await this.outbox.transaction(
      (fn) => this.repo.transaction(fn),
      async (trx, outbox) => {
        const now = this.clock.now().toISOString();
        const fresh = await this.repo.ackToken(digest(token), trx);
        if (!fresh || fresh.usedAt !== null || Date.parse(fresh.expiresAt) <= Date.parse(now)) return null;
        if (!(await this.repo.spendAckToken(trx, fresh.id, now))) return null;
        return t.targetType === 'incident'
          ? this.sources.incidents.acknowledgeByLink(
              trx,
              outbox,
              { projectId: t.projectId, issueId: t.targetId },
              user,
              now,
            )
          : this.sources.alerts.acknowledgeByLink(
              trx,
              outbox,
              { projectId: t.projectId, alertId: t.targetId },
              user,
              now,
            );
      },
    );
    const after = await this.linkView(t);
    if (result === null) return { ...after, usedNow: false, acknowledged: false };
    return { ...after, usedNow: true, acknowledged: result };
  }

  /** `GET .../alerts/:iid/escalations`: which rules paged whom and when, which wait (Reporter). */
  async escalations(actor: User | null, idOrPath: string, iid: number): Promise<RuleEscalationView[]> {
    const { project } = await this.scope(actor, idOrPath, AccessLevel.Reporter);
    const alert = await this.sources.alerts.alertForSystem(project!.id, iid);
    if (!alert) throw notFound('Alert');
    const [pending, pages, policy] = await Promise.all([
      this.repo.pendingPages(alert.id),
      this.repo.pages(alert.id),
      this.effectivePolicy(project!.id),
    ]);
    // The current rules applied to the alert when the policy has not changed since it came.
    const current = policy && policy.updatedAt <= alert.createdAt ? policy.rules : [];
    const ids = [
      ...new Set([
        ...current.map((r) => r.id),
        ...pending.map((p) => p.ruleId),
        ...pages.map((p) => p.ruleId),
      ]),
    ];
    const users = new Map<number, User | null>();
    const user = async (id: number | null) => {
      if (id === null) return null;
      if (!users.has(id)) users.set(id, await this.sources.users.findById(id));
      return users.get(id) ?? null;
    };
    const created = new Date(alert.createdAt).getTime();
    const out: RuleEscalationView[] = [];
    for (const ruleId of ids) {
      // A job of a deleted policy pages nobody when it runs.
      // The earliest pending round of the rule (later rounds are queued one at a time).
      const job = pending
        .filter((p) => p.ruleId === ruleId && p.policyId === policy?.id)
        .sort((a, b) => a.dueAt.localeCompare(b.dueAt))[0];
      const rule = current.find((r) => r.id === ruleId) ?? policy?.rules.find((r) => r.id === ruleId);
      const paged = pages.filter((p) => p.ruleId === ruleId);
      const elapsed = job?.elapsedTimeSeconds ?? rule?.elapsedTimeSeconds ?? null;
      out.push({
        ruleId,
        elapsedTimeSeconds: elapsed,
        status: job?.status ?? rule?.status ?? null,
        schedule: rule?.schedule ? { iid: rule.schedule.iid, name: rule.schedule.name } : null,
        user: await user(job?.userId ?? rule?.userId ?? null),
        dueAt: job?.dueAt ?? (elapsed === null ? null : new Date(created + elapsed * 1000).toISOString()),
        state: job ? 'pending' : paged.length > 0 ? 'paged' : 'skipped',
        pages: await Promise.all(
          paged.map(async (p) => ({
            round: p.round,
            cycle: p.cycle,
            user: await user(p.userId),
            at: p.at,
            emailStatus: p.emailStatus,
          })),
        ),
      });
    }
    return out.sort((a, b) => (a.dueAt ?? '').localeCompare(b.dueAt ?? ''));
  }
}
