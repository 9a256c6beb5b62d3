import type { Alert } from '../alerts/alerts.js';
import type { AlertsService } from '../alerts/alerts.service.js';
import type { Clock } from '../clock.js';
import { notFound, paramError, plainError } from '../errors.js';
import type { Job, JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService } from '../members/members.service.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SilencesService } from '../silences/silences.service.js';
import { TtlCache } from '../ttl-cache.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import {
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
  pageKey,
  type RuleRecord,
  rulePages,
} from './escalation.js';
import type { EscalationRepository, PolicyFields } from './escalation.repository.js';

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

/** What this service reads and drives of other features (ports, wired in the composition root). */
export interface EscalationSources {
  /** Reads alerts; triggers an acknowledged one again when its acknowledgement times out. */
  alerts: Pick<AlertsService, 'alertForSystem' | 'retriggerAcknowledged'>;
  users: Pick<UsersService, 'findById' | 'findByUsername'>;
  /** Who may be paged: active members of the project, direct or inherited (and a personal namespace's owner). */
  members: Pick<MembersService, 'memberIdsAtLeast'>;
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
        alert: Alert;
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
  /** Each project's policy, read by intake per new alert (a project without one costs a cached lookup). */
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

  private async project(actor: User | null, idOrPath: string, level: number): Promise<Project> {
    const { project } = await this.access.project(actor, idOrPath, level);
    this.access.tier('escalation_policies');
    return project;
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

  /** `GET .../escalation_policies`: the project's policy, or none (Reporter). */
  async list(actor: User | null, idOrPath: string): Promise<PolicyView[]> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    const policy = await this.repo.policy(project.id);
    return policy ? [await this.view(policy)] : [];
  }

  async get(actor: User | null, idOrPath: string, policyId: number): Promise<PolicyView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    return this.view(await this.existing(project, policyId));
  }

  private async existing(project: Project, policyId: number): Promise<EscalationPolicy> {
    const policy = await this.repo.policy(project.id);
    if (!policy || policy.id !== policyId) throw notFound('Escalation policy');
    return policy;
  }

  /** `POST`: 400 when the project has a policy already (GitLab: one per project), or for a bad rule. */
  async create(actor: User | null, idOrPath: string, input: PolicyInput): Promise<PolicyView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    if (await this.repo.policy(project.id)) throw invalid('Project can only have one escalation policy');
    const fields = this.fields(input, null);
    if (input.rules === undefined) throw paramError('rules is missing');
    const rules = await this.rules(project, input.rules);
    checkRepeat(fields.repeat, rules);
    if (!(await this.repo.insertPolicy(project.id, fields, rules, this.clock.now().toISOString())))
      throw invalid('Project can only have one escalation policy');
    await this.changed();
    return this.view((await this.repo.policy(project.id))!);
  }

  /** `PUT`: changes the name and description; `rules`, when given, replace the rules. */
  async update(
    actor: User | null,
    idOrPath: string,
    policyId: number,
    input: PolicyInput,
  ): Promise<PolicyView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.existing(project, policyId);
    const fields = this.fields(input, current);
    const rules = input.rules === undefined ? null : await this.rules(project, input.rules);
    checkRepeat(fields.repeat, rules ?? current.rules);
    await this.repo.updatePolicy(current.id, fields, rules, this.clock.now().toISOString());
    await this.changed();
    return this.view((await this.repo.policy(project.id))!);
  }

  /** `DELETE`: the policy and its rules; escalations in progress stop (their jobs find no policy). */
  async delete(actor: User | null, idOrPath: string, policyId: number): Promise<PolicyView> {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.view(await this.existing(project, policyId));
    await this.repo.deletePolicy(current.id);
    await this.changed();
    return current;
  }

  /** The project's on-call schedules (for the UI's target choice; Reporter). */
  async schedules(actor: User | null, idOrPath: string) {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    return this.repo.schedules(project.id);
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
  private async rules(project: Project, input: readonly RuleInput[]): Promise<RuleRecord[]> {
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
        const chat = await this.sources.chat?.integrationOf(project.id, r.integrationSlug);
        if (!chat)
          throw invalid(
            'Integration-based escalation rules must have a chat integration set up in the project',
          );
        chatIntegrationId = chat.id;
      } else if (r.oncallScheduleIid !== undefined) {
        const schedule = await this.repo.schedule(project.id, r.oncallScheduleIid);
        if (!schedule)
          throw invalid('Schedule-based escalation rules must have a schedule in the same project');
        scheduleId = schedule.id;
      } else {
        const user =
          r.username !== undefined
            ? await this.sources.users.findByUsername(r.username)
            : await this.sources.users.findById(r.userId!);
        members ??= await this.sources.members.memberIdsAtLeast(project, AccessLevel.Guest);
        if (!user || !members.has(user.id))
          throw invalid('User-based escalation rules must have a user with access to the project');
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
    const policy = await this.policies.get(projectId, () => this.repo.policy(projectId, trx));
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
    const policy = await this.policies.get(projectId, () => this.repo.policy(projectId, trx));
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
    await this.enqueueRound(trx, policy, projectId, alertId, iid, at, 0, cycle);
  }

  /**
   * An acknowledgement's timeout: the alert, still acknowledged under the same policy, is triggered again (the
   * alerts service writes the note and the `retriggered` event in one transaction, so a re-run finds it triggered
   * and does nothing).
   */
  private async runAckTimeout(job: Job): Promise<void> {
    const j = job.payload as AckTimeoutJob;
    if (!this.access.hasTier('escalation_policies')) return;
    const policy = await this.repo.policy(j.projectId);
    if (!policy || policy.id !== j.policyId || policy.ackTimeoutMinutes === null) return;
    await this.sources.alerts.retriggerAcknowledged(j.projectId, j.iid, j.alertId, j.minutes);
  }

  /**
   * One round of the rules for an alert: a job per rule, due at the round's start plus the rule's elapsed time,
   * with a unique key per alert, rule and round (a round queued twice, by a re-run job, is queued once).
   */
  private async enqueueRound(
    trx: UnitOfWork | undefined,
    policy: EscalationPolicy,
    projectId: number,
    alertId: number,
    iid: number,
    start: Date,
    round: number,
    cycle?: number,
  ): Promise<void> {
    const lastId = policy.rules[policy.rules.length - 1]?.id;
    for (const rule of policy.rules) {
      const dueAt = new Date(start.getTime() + rule.elapsedTimeSeconds * 1000);
      const job: PageJob = {
        projectId,
        alertId,
        iid,
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
        uniqueKey: jobKey(alertId, rule.id, round, cycle),
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
    const alert = project && (await this.sources.alerts.alertForSystem(project.id, j.iid));
    if (!project || !alert || alert.id !== j.alertId) return;
    // A deleted policy stops its escalations (a new one applies to later alerts only).
    const policy = await this.repo.policy(project.id);
    if (!policy || policy.id !== j.policyId) return;
    if (!rulePages(j.status, alert.status)) return;
    // A silenced alert pages nobody: the page is held until the silences end (or are expired early, see
    // `silencesChanged`), then checked afresh: it goes out if the alert is still in a state its rule pages for.
    const silencing = await this.sources.silences.silencing(project.id, alert);
    if (silencing.length > 0) {
      const end = new Date(Math.max(...silencing.map((s) => new Date(s.endsAt).getTime())));
      // Another key than the running job's (which is deleted when this returns), under the alert's prefix.
      await this.jobs.enqueue(ESCALATION_PAGE_JOB, { ...j, dueAt: end.toISOString() } satisfies PageJob, {
        runAt: end,
        uniqueKey: `${jobKey(alert.id, j.ruleId, j.round ?? 0, j.cycle ?? undefined)}:held:${end.getTime()}`,
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
    const keyBase = pageKey(alert.id, j.ruleId, round, j.cycle);
    // A rule that pages a chat integration pages its channel, no one by e-mail.
    if (j.chatIntegrationId != null)
      await this.sources.chat?.pageChannel(
        { project, alert, keyBase, recipients: [], policyName: policy.name },
        j.chatIntegrationId,
      );
    const target = j.userId === null ? null : await this.sources.users.findById(j.userId);
    if (j.chatIntegrationId == null)
      await this.sources.notifications.page({
        project,
        alert,
        keyBase: pageKey(alert.id, j.ruleId, round, j.cycle),
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
      });
    if (j.last && alert.status === 'triggered' && round < policy.repeat && policy.rules.length > 0)
      await this.enqueueRound(
        undefined,
        policy,
        project.id,
        alert.id,
        alert.iid,
        new Date(j.dueAt),
        round + 1,
        j.cycle,
      );
  }

  /** `GET .../alerts/:iid/escalations`: which rules paged whom and when, which wait (Reporter). */
  async escalations(actor: User | null, idOrPath: string, iid: number): Promise<RuleEscalationView[]> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    const alert = await this.sources.alerts.alertForSystem(project.id, iid);
    if (!alert) throw notFound('Alert');
    const [pending, pages, policy] = await Promise.all([
      this.repo.pendingPages(alert.id),
      this.repo.pages(alert.id),
      this.repo.policy(project.id),
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
