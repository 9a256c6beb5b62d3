import type { Clock } from '../clock.js';
import { forbidden, invalidFields, notFound, paramError } from '../errors.js';
import type { Outbox, OutboxWriter } from '../ingest/outbox.js';
import { AccessLevel } from '../members/members.js';
import { type Noteable, type NoteOrder, toSentence } from '../notes/notes.js';
import type { NotesService, NoteView } from '../notes/notes.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import {
  type EscalationStatus,
  type IncidentAlerts,
  type Issue,
  type IssueFilter,
  type IssueSeverity,
  type IssueType,
  type IssueView,
  labelReference,
  MAX_DESCRIPTION_LENGTH,
  MAX_TIMELINE_NOTE_LENGTH,
  MAX_TITLE_LENGTH,
  PREDEFINED_TIMELINE_TAGS,
  SEVERITIES,
  SEVERITY_LABELS,
  type TimelineAction,
  type TimelineEvent,
  type TimelineEventTag,
  type TimelineEventView,
} from './issues.js';
import type { IssuePatch, IssuesRepository } from './issues.repository.js';

const STATUS_LABEL: Record<EscalationStatus, string> = {
  triggered: 'Triggered',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
};

/** The system note texts of issues and incidents, as GitLab words them (`SystemNotes::IssuablesService`, ...). */
export const IssueNoteText = {
  closed: 'closed',
  reopened: 'reopened',
  description: 'changed the description',
  title: (from: string, to: string) => `changed title from **${from}** to **${to}**`,
  severity: (s: IssueSeverity) => `changed the severity to **${SEVERITY_LABELS[s]}**`,
  status: (s: EscalationStatus, reason = '') =>
    `changed the incident status to **${STATUS_LABEL[s]}**${reason}`,
  assignees(added: readonly User[], removed: readonly User[]): string {
    const ref = (us: readonly User[]) => toSentence(us.map((u) => `@${u.username}`));
    return [
      ...(added.length > 0 ? [`assigned to ${ref(added)}`] : []),
      ...(removed.length > 0 ? [`unassigned ${ref(removed)}`] : []),
    ].join(' and ');
  },
  labels(added: readonly string[], removed: readonly string[]): string {
    const part = (verb: string, names: readonly string[]) =>
      `${verb} ${names.map(labelReference).join(' ')} label${names.length === 1 ? '' : 's'}`;
    return [
      ...(added.length > 0 ? [part('added', added)] : []),
      ...(removed.length > 0 ? [part('removed', removed)] : []),
    ].join(' and ');
  },
  paged: (policy: string) => `paged escalation policy **${policy}**`,
  acknowledgedByLink: `changed the incident status to **Acknowledged** via page link`,
  ackTimedOut: (minutes: number) =>
    `changed the incident status to **Triggered** because the acknowledgement timed out after ${minutes} ${
      minutes === 1 ? 'minute' : 'minutes'
    }`,
  timelineAdded: 'added an incident timeline event',
  timelineEdited: 'edited an incident timeline event',
  timelineDeleted: 'deleted an incident timeline event',
};

/** The notes of the automatic timeline events (`IncidentManagement::TimelineEvents::CreateService`). */
const TimelineText = {
  created: (who: string) => `${who} created the incident`,
  reopened: (who: string) => `${who} reopened the incident`,
  resolved: (who: string) => `${who} resolved the incident`,
  status: (who: string, s: EscalationStatus) =>
    `${who} changed the incident status to **${STATUS_LABEL[s]}**`,
  paged: (who: string, policy: string) => `${who} paged the incident with escalation policy **${policy}**`,
  acknowledgedByLink: (who: string) => `Acknowledged by ${who} via page link`,
  ackTimedOut: (minutes: number) =>
    `The acknowledgement timed out after ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}: the incident is triggered again`,
  severity: (who: string, s: IssueSeverity) =>
    `${who} changed the incident severity to **${s.charAt(0).toUpperCase()}${s.slice(1)}**`,
};

/** Who did something, as a timeline names them: `@username`, or GitLab's alert bot for alert processing. */
const who = (u: User | null) => (u ? `@${u.username}` : '@alert-bot');

/** An issue as the notes feature knows it. */
export const issueNoteable = (i: Issue): Noteable => ({
  type: 'Issue',
  id: i.id,
  iid: i.iid,
  projectId: i.projectId,
});

export interface IssueInput {
  readonly title?: string;
  readonly description?: string;
  readonly issueType?: IssueType;
  /** GitLab's severity values, any case. */
  readonly severity?: string;
  readonly assigneeIds?: readonly number[];
  readonly labels?: readonly string[];
  readonly addLabels?: readonly string[];
  readonly removeLabels?: readonly string[];
  readonly stateEvent?: 'close' | 'reopen';
  readonly escalationStatus?: EscalationStatus;
}

export interface TimelineInput {
  readonly note?: string;
  readonly occurredAt?: string;
  readonly tagNames?: readonly string[];
  readonly noteId?: number;
}

/** Label names as given: trimmed, without empty ones or repeats. */
const cleanLabels = (names: readonly string[]) => [
  ...new Set(names.map((n) => n.trim()).filter((n) => n !== '')),
];

/** GitLab's `IssuableSeverity` value of an input (`HIGH`, `high`); 400 for anything else. */
function severityOf(value: string): IssueSeverity {
  const s = value.toLowerCase() as IssueSeverity;
  if (!SEVERITIES.includes(s)) throw paramError('severity does not have a valid value');
  return s;
}

/** An alert's severity as an incident's (GitLab has no `info` severity for issues). */
function incidentSeverityOf(alertSeverity: string): IssueSeverity {
  return SEVERITIES.includes(alertSeverity as IssueSeverity) ? (alertSeverity as IssueSeverity) : 'unknown';
}

function checkText(input: { title?: string; description?: string }): void {
  const errors: Record<string, string[]> = {};
  if (input.title !== undefined) {
    if (!input.title.trim()) errors.title = ["can't be blank"];
    else if (input.title.length > MAX_TITLE_LENGTH)
      errors.title = [`is too long (maximum is ${MAX_TITLE_LENGTH} characters)`];
  }
  if (input.description !== undefined && input.description.length > MAX_DESCRIPTION_LENGTH)
    errors.description = [`is too long (maximum is ${MAX_DESCRIPTION_LENGTH} characters)`];
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** A timeline time as stored (ISO 8601, UTC); 400 for what is no time. */
function occurredAtOf(value: string): string {
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(t)) throw paramError('occurred_at is invalid');
  return new Date(t).toISOString();
}

/**
 * Issues and incidents (GitLab's issues API), their notes and the incident timeline. Who may do what, as GitLab:
 * whoever may read the project reads its issues; a signed-in user who may see the project opens a plain issue,
 * Reporters open incidents (a Guest's `issue_type=incident` opens a plain issue, as GitLab drops it); Reporters
 * change any issue and the author of a plain issue changes its title, description and state; Owners (and admins)
 * delete. Timeline events: readers of the incident read them, Developers write them; Maintainers add a project's
 * timeline event tags. Every change writes its system notes (and, on an incident, its timeline events) in the
 * transaction of the change.
 */
export class IssuesService {
  constructor(
    private readonly repo: IssuesRepository,
    private readonly d: {
      readonly access: Access;
      readonly users: Pick<UsersService, 'findById' | 'findByUsername'>;
      readonly notes: NotesService;
      readonly outbox: Outbox;
      readonly clock: Clock;
      readonly alerts: IncidentAlerts;
    },
  ) {}

  private now(): string {
    return this.d.clock.now().toISOString();
  }

  private async find(project: Project, iid: number): Promise<Issue> {
    const issue = await this.repo.find(project.id, iid);
    if (!issue) throw notFound('Issue');
    return issue;
  }

  /** Issues with their people (each user read once) and comment counts. */
  private async views(project: Project, issues: readonly Issue[]): Promise<IssueView[]> {
    const ids = new Set<number>();
    for (const i of issues) {
      if (i.authorId !== null) ids.add(i.authorId);
      if (i.closedById !== null) ids.add(i.closedById);
      for (const a of i.assigneeIds) ids.add(a);
    }
    const users = new Map(
      await Promise.all([...ids].map(async (id) => [id, await this.d.users.findById(id)] as const)),
    );
    const counts = await this.d.notes.countComments(
      'Issue',
      issues.map((i) => i.id),
    );
    const policies = await this.repo.policyNames(
      issues.map((i) => i.escalationPolicyId).filter((id): id is number => id !== null),
    );
    const user = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
    const policy = (id: number | null) => {
      const name = id === null ? undefined : policies.get(id);
      return id === null || name === undefined ? null : { id, name };
    };
    return issues.map((i) => ({
      ...i,
      escalationPolicy: policy(i.escalationPolicyId),
      projectPath: project.fullPath,
      author: user(i.authorId),
      closedBy: user(i.closedById),
      assignees: i.assigneeIds.map(user).filter((u): u is User => u !== null),
      userNotesCount: counts.get(i.id) ?? 0,
    }));
  }

  private async view(project: Project, issue: Issue): Promise<IssueView> {
    return (await this.views(project, [issue]))[0]!;
  }

  /** A project's issues; `assigneeUsername` (GitLab's `assignee_username`) matches nothing when nobody has it. */
  async list(
    actor: User | null,
    projectIdOrPath: string,
    filter: IssueFilter & { assigneeUsername?: string },
    page: PageRequest,
  ): Promise<Paged<IssueView> & { projectId: number }> {
    const { project } = await this.d.access.project(actor, projectIdOrPath);
    const f = await this.withAssignee(filter);
    if (!f) return { items: [], total: 0, projectId: project.id };
    const { items, total } = await this.repo.list({ projectIds: [project.id] }, f, page);
    return { items: await this.views(project, items), total, projectId: project.id };
  }

  /** The filter with `assignee_username` as an assignee id; null when nobody has that username (nothing matches). */
  private async withAssignee(
    filter: IssueFilter & { assigneeUsername?: string },
  ): Promise<IssueFilter | null> {
    const { assigneeUsername, ...f } = filter;
    if (assigneeUsername === undefined || f.assigneeId !== undefined) return f;
    const named = await this.d.users.findByUsername(assigneeUsername.trim());
    return named ? { ...f, assigneeId: named.id } : null;
  }

  /**
   * `GET /issues`: the caller's issues in every project they may read, by GitLab's `scope`: `created_by_me` (the
   * default), `assigned_to_me`, or `all`. The projects are those holding matching issues, each checked by the
   * access policy (so `all` costs a check per project with issues).
   */
  async listForUser(
    actor: User | null,
    scope: 'created_by_me' | 'assigned_to_me' | 'all',
    filter: IssueFilter & { assigneeUsername?: string },
    page: PageRequest,
  ): Promise<Paged<IssueView>> {
    // As GitLab: anonymous callers may list `all` (the public projects' issues), nothing else.
    if (scope === 'all' && actor === null) return this.listVisible(null, filter, page, {});
    const user = this.d.access.signedIn(actor);
    return this.listVisible(user, filter, page, {
      authorId: scope === 'created_by_me' ? user.id : undefined,
      assigneeId: scope === 'assigned_to_me' ? user.id : undefined,
    });
  }

  private async listVisible(
    user: User | null,
    filter: IssueFilter & { assigneeUsername?: string },
    page: PageRequest,
    by: { authorId?: number; assigneeId?: number },
  ): Promise<Paged<IssueView>> {
    const given = await this.withAssignee(filter);
    if (!given) return { items: [], total: 0 };
    const f: IssueFilter = {
      ...given,
      ...(by.authorId !== undefined && { authorId: by.authorId }),
      ...(by.assigneeId !== undefined && { assigneeId: by.assigneeId }),
    };
    const candidates = await this.repo.projectIdsWithIssues(by);
    const projects = new Map<number, Project>();
    for (const id of candidates) {
      const seen = await this.d.access.project(user, String(id)).then(
        (a) => a.project,
        () => null,
      );
      if (seen) projects.set(id, seen);
    }
    const { items, total } = await this.repo.list({ projectIds: [...projects.keys()] }, f, page);
    const views = await Promise.all(items.map((i) => this.view(projects.get(i.projectId)!, i)));
    return { items: views, total };
  }

  async get(actor: User | null, projectIdOrPath: string, iid: number): Promise<IssueView> {
    const { project } = await this.d.access.project(actor, projectIdOrPath);
    return this.view(project, await this.find(project, iid));
  }

  /** The users of `ids` who may be assigned (they may read the project); others are dropped, as GitLab does. */
  private async assignable(project: Project, ids: readonly number[]): Promise<User[]> {
    const out: User[] = [];
    for (const id of [...new Set(ids)].filter((i) => i > 0)) {
      const u = await this.d.users.findById(id);
      if (
        u &&
        u.state === 'active' &&
        (await this.d.access.allowsProject(u, String(project.id), AccessLevel.None))
      )
        out.push(u);
    }
    return out;
  }

  /** Opens an issue or incident by hand (`POST /projects/:id/issues`). */
  async create(
    actor: User | null,
    projectIdOrPath: string,
    input: IssueInput & { title: string },
  ): Promise<IssueView> {
    const user = this.d.access.signedIn(actor);
    const { project, level } = await this.d.access.project(actor, projectIdOrPath);
    checkText(input);
    const severity = input.severity === undefined ? undefined : severityOf(input.severity);
    // GitLab drops an issue type the caller may not create (an incident needs Reporter): a plain issue opens.
    const issueType: IssueType =
      input.issueType === 'incident' && level >= AccessLevel.Reporter ? 'incident' : 'issue';
    const assignees = input.assigneeIds ? await this.assignable(project, input.assigneeIds) : [];
    const labels = cleanLabels([...(input.labels ?? []), ...(input.addLabels ?? [])]);
    const issue = await this.repo.transaction(async (trx) => {
      const now = this.now();
      const created = await this.repo.insert(
        trx,
        {
          projectId: project.id,
          title: input.title.trim(),
          description: input.description ?? '',
          issueType,
          authorId: user.id,
          severity: issueType === 'incident' ? severity : undefined,
          assigneeIds: assignees.map((u) => u.id),
          labels,
        },
        now,
      );
      if (issueType === 'incident')
        await this.timeline(trx, created, user, 'issues', TimelineText.created(who(user)), now);
      return created;
    });
    // After commit, in a transaction of its own (as a push's events): its chat messages.
    if (issue.issueType === 'incident')
      await this.d.outbox.emit('incident.changed', {
        projectId: project.id,
        iid: issue.iid,
        event: 'new',
        at: issue.createdAt,
      });
    return this.view(project, issue);
  }

  /** Writes an automatic timeline event of an incident (GitLab's `auto_created`: not editable). */
  private async timeline(
    trx: UnitOfWork,
    incident: Issue,
    author: User | null,
    action: TimelineAction,
    note: string,
    occurredAt: string,
  ): Promise<void> {
    await this.repo.insertEvent(
      trx,
      {
        projectId: incident.projectId,
        issueId: incident.id,
        authorId: author?.id ?? null,
        note,
        action,
        occurredAt,
      },
      this.now(),
    );
  }

  /**
   * Changes an issue (`PUT /projects/:id/issues/:iid`): its text, labels, assignees, severity, escalation status
   * and state, each change with its system note (and its timeline event on an incident), in one transaction.
   * Severity and escalation status apply to incidents only (GitLab ignores them on a plain issue). Resolving the
   * escalation status closes the incident; leaving `resolved` reopens it. Closing an incident resolves its status
   * and, when the project's alert settings say so, its alerts.
   */
  async update(
    actor: User | null,
    projectIdOrPath: string,
    iid: number,
    input: IssueInput,
  ): Promise<IssueView> {
    const user = this.d.access.signedIn(actor);
    const given = Object.entries(input).filter(([, v]) => v !== undefined).length;
    if (given === 0)
      throw paramError(
        'title, description, assignee_ids, labels, add_labels, remove_labels, state_event, severity, ' +
          'escalation_status are missing, at least one parameter must be provided',
      );
    const { project, level } = await this.d.access.project(actor, projectIdOrPath);
    const current = await this.find(project, iid);
    const metadata = level >= AccessLevel.Reporter;
    if (
      !metadata &&
      !(current.issueType === 'issue' && current.authorId === user.id && level >= AccessLevel.Guest)
    )
      throw forbidden();
    checkText(input);
    const severity = input.severity === undefined ? undefined : severityOf(input.severity);
    const assignees =
      metadata && input.assigneeIds !== undefined
        ? await this.assignable(project, input.assigneeIds)
        : undefined;
    // Read before the transaction: on SQLite a read outside it would wait for it to end.
    const previous =
      assignees === undefined
        ? []
        : (await Promise.all(current.assigneeIds.map((id) => this.d.users.findById(id)))).filter(
            (u): u is User => u !== null,
          );
    const updated = await this.d.outbox.transaction(
      (fn) => this.repo.transaction(fn),
      async (trx, outbox) => {
        const before = await this.repo.find(project.id, iid, trx);
        if (!before) throw notFound('Issue');
        await this.repo.lock(trx, before.id);
        const issue = (await this.repo.find(project.id, iid, trx))!;
        await this.applyChanges(
          trx,
          outbox,
          user,
          issue,
          { ...input, severity },
          assignees,
          previous,
          metadata,
        );
        return (await this.repo.find(project.id, iid, trx))!;
      },
    );
    return this.view(project, updated);
  }

  private async applyChanges(
    trx: UnitOfWork,
    outbox: OutboxWriter,
    user: User,
    issue: Issue,
    input: Omit<IssueInput, 'severity'> & { severity?: IssueSeverity },
    assignees: readonly User[] | undefined,
    previous: readonly User[],
    metadata: boolean,
  ): Promise<void> {
    const noteable = issueNoteable(issue);
    const note = (body: string) => this.d.notes.addSystemNote(trx, noteable, user.id, body);
    const incident = issue.issueType === 'incident';
    const now = this.now();
    const patch: { -readonly [K in keyof IssuePatch]: IssuePatch[K] } = {};
    const title = input.title?.trim();
    if (title !== undefined && title !== issue.title) patch.title = title;
    if (input.description !== undefined && input.description !== issue.description)
      patch.description = input.description;
    if (metadata && incident && input.severity !== undefined && input.severity !== issue.severity)
      patch.severity = input.severity;
    if (Object.keys(patch).length > 0) await this.repo.update(trx, issue.id, patch, now);
    if (patch.title !== undefined) await note(IssueNoteText.title(issue.title, patch.title));
    if (patch.description !== undefined) await note(IssueNoteText.description);

    if (
      metadata &&
      (input.labels !== undefined || input.addLabels !== undefined || input.removeLabels !== undefined)
    ) {
      const remove = new Set(cleanLabels(input.removeLabels ?? []));
      const next = cleanLabels([...(input.labels ?? issue.labels), ...(input.addLabels ?? [])])
        .filter((l) => !remove.has(l))
        .sort();
      const added = next.filter((l) => !issue.labels.includes(l));
      const removed = issue.labels.filter((l) => !next.includes(l));
      if (added.length > 0 || removed.length > 0) {
        await this.repo.setLabels(trx, issue.id, next);
        await this.repo.update(trx, issue.id, {}, now);
        await note(IssueNoteText.labels(added, removed));
        if (incident)
          await this.timeline(
            trx,
            issue,
            user,
            'label',
            `${who(user)} ${IssueNoteText.labels(added, removed)}`,
            now,
          );
      }
    }

    if (assignees !== undefined) {
      const before = new Set(issue.assigneeIds);
      const after = new Set(assignees.map((u) => u.id));
      const added = assignees.filter((u) => !before.has(u.id));
      const removedIds = issue.assigneeIds.filter((id) => !after.has(id));
      if (added.length > 0 || removedIds.length > 0) {
        const removed = previous.filter((u) => removedIds.includes(u.id));
        await this.repo.setAssignees(trx, issue.id, [...after]);
        await this.repo.update(trx, issue.id, {}, now);
        await note(IssueNoteText.assignees(added, removed));
      }
    }

    if (patch.severity !== undefined) {
      await note(IssueNoteText.severity(patch.severity));
      await this.timeline(
        trx,
        issue,
        user,
        'severity',
        TimelineText.severity(who(user), patch.severity),
        now,
      );
    }

    let state = issue.state;
    let status = issue.escalationStatus;
    if (metadata && incident && input.escalationStatus !== undefined && input.escalationStatus !== status) {
      status = input.escalationStatus;
      await this.repo.update(trx, issue.id, { escalationStatus: status }, now);
      await note(IssueNoteText.status(status));
      await this.timeline(trx, issue, user, 'status', TimelineText.status(who(user), status), now);
      await this.escalationEvent(outbox, issue, status === 'triggered' ? 'retriggered' : status, now);
      // GitLab's IssuableEscalationStatuses::AfterUpdateService: resolving closes, leaving resolved reopens.
      if (status === 'resolved' && state === 'opened') {
        await this.close(trx, outbox, user, issue, status, now);
        state = 'closed';
      } else if (status !== 'resolved' && state === 'closed') {
        await this.reopen(trx, user, issue, now);
        state = 'opened';
      }
    }
    if (input.stateEvent === 'close' && state === 'opened')
      await this.close(trx, outbox, user, issue, status, now);
    if (input.stateEvent === 'reopen' && state === 'closed') await this.reopen(trx, user, issue, now);
  }

  /** GitLab's `Issues::CloseService`: the note, then for an incident its status and its alerts. */
  private async close(
    trx: UnitOfWork,
    outbox: OutboxWriter,
    user: User,
    issue: Issue,
    status: EscalationStatus | null,
    now: string,
  ): Promise<void> {
    await this.repo.update(trx, issue.id, { close: { byId: user.id } }, now);
    await this.d.notes.addSystemNote(trx, issueNoteable(issue), user.id, IssueNoteText.closed);
    if (issue.issueType !== 'incident') return;
    await outbox.add('incident.changed', {
      projectId: issue.projectId,
      iid: issue.iid,
      event: 'closed',
      at: now,
    });
    if (await this.d.alerts.closeResolvesAlerts(trx, issue.projectId))
      await this.d.alerts.resolveFor(trx, outbox, issue, user, now);
    // Closed, its escalation stops whatever its status was.
    await this.escalationEvent(outbox, issue, 'resolved', now);
    if (status !== 'resolved') {
      await this.repo.update(trx, issue.id, { escalationStatus: 'resolved' }, now);
      await this.d.notes.addSystemNote(
        trx,
        issueNoteable(issue),
        user.id,
        IssueNoteText.status('resolved', ' by closing the incident'),
      );
      await this.timeline(trx, issue, user, 'status', TimelineText.resolved(who(user)), now);
    }
  }

  /** GitLab's `Issues::ReopenService` (the escalation status stays as it is, as in GitLab). */
  private async reopen(trx: UnitOfWork, user: User, issue: Issue, now: string): Promise<void> {
    await this.repo.update(trx, issue.id, { reopen: true }, now);
    await this.d.notes.addSystemNote(trx, issueNoteable(issue), user.id, IssueNoteText.reopened);
    if (issue.issueType === 'incident')
      await this.timeline(trx, issue, user, 'issues', TimelineText.reopened(who(user)), now);
  }

  /** Deletes an issue with its notes and timeline (Owners and admins, GitLab's `destroy_issue`). */
  async delete(actor: User | null, projectIdOrPath: string, iid: number): Promise<void> {
    this.d.access.signedIn(actor);
    const { project, level } = await this.d.access.project(actor, projectIdOrPath);
    const issue = await this.find(project, iid);
    if (level < AccessLevel.Owner) throw forbidden();
    await this.repo.transaction(async (trx) => {
      await this.d.notes.deleteAllOf(trx, issueNoteable(issue));
      if (issue.issueType === 'incident') await this.d.alerts.unlink(trx, project.id, issue.iid);
      await this.repo.delete(trx, issue.id);
    });
  }

  /**
   * Opens an incident under the project's next issue iid, in the caller's transaction: the one way alerts open
   * incidents, by alert intake (`create_issue`) and on demand for an alert, with its first timeline event. No access
   * check: the caller has done it.
   */
  async createIncidentFor(
    trx: UnitOfWork,
    incident: {
      projectId: number;
      title: string;
      description: string;
      /** Who opened it (on demand); null for alert intake (GitLab's alert bot). */
      author: User | null;
      /** The alert's severity: the incident's, `info` as `unknown` (issues have no `info`). */
      severity?: string;
    },
    now: string,
  ): Promise<Issue> {
    const created = await this.repo.insert(
      trx,
      {
        projectId: incident.projectId,
        title: incident.title.slice(0, MAX_TITLE_LENGTH),
        description: incident.description,
        authorId: incident.author?.id ?? null,
        issueType: 'incident',
        severity: incident.severity === undefined ? undefined : incidentSeverityOf(incident.severity),
      },
      now,
    );
    await this.timeline(
      trx,
      created,
      incident.author,
      'issues',
      TimelineText.created(who(incident.author)),
      now,
    );
    return created;
  }

  /**
   * Closes an open incident (its alert resolved, with auto-close on), in the caller's transaction, as GitLab's alert
   * bot: the note, the resolved escalation status and its timeline event.
   */
  async closeIncident(trx: UnitOfWork, projectId: number, iid: number, now: string): Promise<void> {
    const issue = await this.repo.find(projectId, iid, trx);
    if (!issue || issue.state !== 'opened') return;
    await this.repo.update(trx, issue.id, { close: { byId: null } }, now);
    await this.d.notes.addSystemNote(trx, issueNoteable(issue), null, IssueNoteText.closed);
    if (issue.issueType === 'incident' && issue.escalationStatus !== 'resolved') {
      await this.repo.update(trx, issue.id, { escalationStatus: 'resolved' }, now);
      await this.timeline(trx, issue, null, 'status', TimelineText.resolved(who(null)), now);
    }
  }

  /** Tells escalation (after commit) that a paged incident's status changed; nothing for one never paged. */
  private async escalationEvent(
    outbox: OutboxWriter,
    issue: Issue,
    event: 'resolved' | 'acknowledged' | 'retriggered',
    now: string,
  ): Promise<void> {
    if (issue.issueType !== 'incident' || issue.escalationPolicyId === null) return;
    await outbox.add('incident.changed', {
      projectId: issue.projectId,
      issueId: issue.id,
      iid: issue.iid,
      event,
      at: now,
    });
  }

  /** An incident by project and iid, for work the system does on its own (escalation): no caller; null otherwise. */
  async incidentForSystem(projectId: number, iid: number, trx?: UnitOfWork): Promise<Issue | null> {
    const issue = await this.repo.find(projectId, iid, trx);
    return issue && issue.issueType === 'incident' ? issue : null;
  }

  /** An incident of a project by id (an acknowledge link names it so), for the system: no caller. */
  async incidentById(projectId: number, id: number): Promise<Issue | null> {
    const i = await this.repo.findById(id);
    return i && i.projectId === projectId && i.issueType === 'incident' ? i : null;
  }

  /** The incident as the API shows it (after a page), for a caller the escalation service let through. */
  async viewForSystem(project: Project, iid: number): Promise<IssueView> {
    return this.view(project, await this.find(project, iid));
  }

  /**
   * Starts paging an incident with a policy, in the caller's transaction (the escalation service checked who may,
   * and queues the pages): the policy is the incident's from now on, its status becomes triggered (when it was
   * not), with the system notes and timeline events. The row is locked: two pages at once write their notes once.
   */
  async startPaging(
    trx: UnitOfWork,
    incident: { projectId: number; iid: number },
    user: User,
    policy: { id: number; name: string },
    now: string,
  ): Promise<Issue> {
    const found = await this.repo.find(incident.projectId, incident.iid, trx);
    if (!found) throw notFound('Issue');
    await this.repo.lock(trx, found.id);
    const issue = (await this.repo.find(incident.projectId, incident.iid, trx))!;
    const note = (body: string) => this.d.notes.addSystemNote(trx, issueNoteable(issue), user.id, body);
    await this.repo.update(trx, issue.id, { escalationPolicyId: policy.id }, now);
    if (issue.escalationStatus !== 'triggered') {
      await this.repo.update(trx, issue.id, { escalationStatus: 'triggered' }, now);
      await note(IssueNoteText.status('triggered'));
      await this.timeline(trx, issue, user, 'status', TimelineText.status(who(user), 'triggered'), now);
    }
    await note(IssueNoteText.paged(policy.name));
    await this.timeline(trx, issue, user, 'escalation', TimelineText.paged(who(user), policy.name), now);
    return (await this.repo.find(incident.projectId, incident.iid, trx))!;
  }

  /**
   * Acknowledges a triggered incident from a page's link, in the caller's transaction (which used the link's
   * token), as the person paged (`user`; null: the webhook's link of a page to several people). False, changing
   * nothing, when it is no longer triggered or open.
   */
  async acknowledgeByLink(
    trx: UnitOfWork,
    outbox: OutboxWriter,
    incident: { projectId: number; issueId: number },
    user: User | null,
    now: string,
  ): Promise<boolean> {
    const found = await this.repo.findById(incident.issueId, trx);
    if (!found || found.projectId !== incident.projectId || found.issueType !== 'incident') return false;
    await this.repo.lock(trx, found.id);
    const issue = (await this.repo.findById(found.id, trx))!;
    if (issue.state !== 'opened' || issue.escalationStatus !== 'triggered') return false;
    await this.repo.update(trx, issue.id, { escalationStatus: 'acknowledged' }, now);
    await this.d.notes.addSystemNote(
      trx,
      issueNoteable(issue),
      user?.id ?? null,
      IssueNoteText.acknowledgedByLink,
    );
    await this.timeline(trx, issue, user, 'status', TimelineText.acknowledgedByLink(who(user)), now);
    await this.escalationEvent(outbox, issue, 'acknowledged', now);
    return true;
  }

  /**
   * Triggers an acknowledged incident again because nobody resolved it within its policy's acknowledgement
   * timeout: the note and timeline event by the alert bot, and the `retriggered` event (its escalation starts
   * again), in one transaction. False, changing nothing, when it is no longer acknowledged and open.
   */
  async retriggerAcknowledged(
    projectId: number,
    issueId: number,
    policyId: number,
    minutes: number,
  ): Promise<boolean> {
    return this.d.outbox.transaction(
      (fn) => this.repo.transaction(fn),
      async (trx, outbox) => {
        const found = await this.repo.findById(issueId, trx);
        if (!found || found.projectId !== projectId) return false;
        await this.repo.lock(trx, found.id);
        const issue = (await this.repo.findById(found.id, trx))!;
        if (
          issue.state !== 'opened' ||
          issue.escalationStatus !== 'acknowledged' ||
          issue.escalationPolicyId !== policyId
        )
          return false;
        const now = this.now();
        await this.repo.update(trx, issue.id, { escalationStatus: 'triggered' }, now);
        await this.d.notes.addSystemNote(trx, issueNoteable(issue), null, IssueNoteText.ackTimedOut(minutes));
        await this.timeline(trx, issue, null, 'status', TimelineText.ackTimedOut(minutes), now);
        await this.escalationEvent(outbox, issue, 'retriggered', now);
        return true;
      },
    );
  }

  /**
   * Adds an automatic event to an incident's timeline, in the caller's transaction: for what happens to an
   * incident outside this feature (a page sent by escalation: `action` `escalation`). No access check.
   */
  async recordTimelineEvent(
    trx: UnitOfWork,
    incident: { projectId: number; iid: number },
    event: { note: string; action: TimelineAction; occurredAt: string; authorId: number | null },
  ): Promise<void> {
    const issue = await this.repo.find(incident.projectId, incident.iid, trx);
    if (!issue || issue.issueType !== 'incident') return;
    await this.repo.insertEvent(trx, { projectId: issue.projectId, issueId: issue.id, ...event }, this.now());
  }

  // Notes (`/projects/:id/issues/:issue_iid/notes`): whoever may read the issue, signed in (GitLab's notes API).

  private async noteable(actor: User | null, idOrPath: string, iid: number) {
    const user = this.d.access.signedIn(actor);
    const { project, level } = await this.d.access.project(actor, idOrPath);
    return { user, level, noteable: issueNoteable(await this.find(project, iid)) };
  }

  async notes(
    actor: User | null,
    idOrPath: string,
    iid: number,
    order: NoteOrder,
    page: PageRequest,
  ): Promise<Paged<NoteView>> {
    const { noteable } = await this.noteable(actor, idOrPath, iid);
    return this.d.notes.list(noteable, order, page);
  }

  async note(actor: User | null, idOrPath: string, iid: number, id: number): Promise<NoteView> {
    const { noteable } = await this.noteable(actor, idOrPath, iid);
    return this.d.notes.get(noteable, id);
  }

  async comment(actor: User | null, idOrPath: string, iid: number, body: string): Promise<NoteView> {
    const c = await this.noteable(actor, idOrPath, iid);
    return this.d.notes.create(c.user, c.noteable, body);
  }

  async editComment(
    actor: User | null,
    idOrPath: string,
    iid: number,
    id: number,
    body: string | undefined,
  ): Promise<NoteView> {
    const c = await this.noteable(actor, idOrPath, iid);
    return this.d.notes.update(c.user, c.level, c.noteable, id, body);
  }

  async deleteComment(actor: User | null, idOrPath: string, iid: number, id: number): Promise<void> {
    const c = await this.noteable(actor, idOrPath, iid);
    await this.d.notes.delete(c.user, c.level, c.noteable, id);
  }

  // The incident timeline (`/projects/:id/issues/:issue_iid/timeline_events`)

  /** An incident the caller may read, with the caller's level; 404 for a plain issue (it has no timeline). */
  private async incident(actor: User | null, idOrPath: string, iid: number) {
    const { project, level } = await this.d.access.project(actor, idOrPath);
    const issue = await this.find(project, iid);
    if (issue.issueType !== 'incident') throw notFound('Incident');
    return { project, level, issue };
  }

  /** The same, for a Developer (GitLab's `admin_incident_management_timeline_event`). */
  private async writableIncident(actor: User | null, idOrPath: string, iid: number) {
    const user = this.d.access.signedIn(actor);
    const c = await this.incident(actor, idOrPath, iid);
    if (c.level < AccessLevel.Developer) throw forbidden();
    return { ...c, user };
  }

  private async eventViews(issue: Issue, events: readonly TimelineEvent[]): Promise<TimelineEventView[]> {
    const ids = new Set<number>();
    for (const e of events) {
      if (e.authorId !== null) ids.add(e.authorId);
      if (e.updatedById !== null) ids.add(e.updatedById);
    }
    const users = new Map(
      await Promise.all([...ids].map(async (id) => [id, await this.d.users.findById(id)] as const)),
    );
    const user = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
    return events.map((e) => ({
      ...e,
      incidentIid: issue.iid,
      author: user(e.authorId),
      updatedBy: user(e.updatedById),
    }));
  }

  async timelineEvents(actor: User | null, idOrPath: string, iid: number): Promise<TimelineEventView[]> {
    const { issue } = await this.incident(actor, idOrPath, iid);
    return this.eventViews(issue, await this.repo.events(issue.id));
  }

  async timelineEvent(
    actor: User | null,
    idOrPath: string,
    iid: number,
    id: number,
  ): Promise<TimelineEventView> {
    const { issue } = await this.incident(actor, idOrPath, iid);
    const event = await this.repo.findEvent(issue.id, id);
    if (!event) throw notFound('Timeline event');
    return (await this.eventViews(issue, [event]))[0]!;
  }

  /**
   * The project's tags of these names (any case), the predefined ones created on first use as GitLab does; 400
   * naming the others (GitLab's "Following tags don't exist").
   */
  private async tagsNamed(
    trx: UnitOfWork,
    projectId: number,
    names: readonly string[],
  ): Promise<TimelineEventTag[]> {
    const wanted = cleanLabels(names);
    if (wanted.length === 0) return [];
    let tags = await this.repo.tags(projectId, trx);
    const has = (n: string) => tags.some((t) => t.name.toLowerCase() === n.toLowerCase());
    const predefined = wanted.filter(
      (n) => !has(n) && PREDEFINED_TIMELINE_TAGS.some((p) => p.toLowerCase() === n.toLowerCase()),
    );
    if (predefined.length > 0) {
      for (const n of predefined)
        await this.repo.insertTag(
          trx,
          projectId,
          PREDEFINED_TIMELINE_TAGS.find((p) => p.toLowerCase() === n.toLowerCase())!,
          this.now(),
        );
      tags = await this.repo.tags(projectId, trx);
    }
    const missing = wanted.filter((n) => !has(n));
    if (missing.length > 0) throw paramError(`Following tags don't exist: ${JSON.stringify(missing)}`);
    return wanted.map((n) => tags.find((t) => t.name.toLowerCase() === n.toLowerCase())!);
  }

  /** Adds an event someone writes, or one promoted from a comment (`note_id`: its text and time). Developer. */
  async createTimelineEvent(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: TimelineInput,
  ): Promise<TimelineEventView> {
    const { user, issue } = await this.writableIncident(actor, idOrPath, iid);
    let text: string;
    let occurredAt: string;
    let promotedFrom: number | null = null;
    if (input.noteId !== undefined) {
      const source = await this.d.notes.get(issueNoteable(issue), input.noteId);
      if (source.system) throw paramError('note_id is not a comment');
      text = input.note ?? source.body;
      occurredAt = input.occurredAt === undefined ? source.createdAt : occurredAtOf(input.occurredAt);
      promotedFrom = source.id;
    } else {
      const errors: Record<string, string[]> = {};
      if (input.note === undefined || !input.note.trim()) errors.note = ["can't be blank"];
      else if (input.note.length > MAX_TIMELINE_NOTE_LENGTH)
        errors.note = [`is too long (maximum is ${MAX_TIMELINE_NOTE_LENGTH} characters)`];
      if (input.occurredAt === undefined) errors.occurred_at = ["can't be blank"];
      if (Object.keys(errors).length > 0) throw invalidFields(errors);
      text = input.note!;
      occurredAt = occurredAtOf(input.occurredAt!);
    }
    const event = await this.repo.transaction(async (trx) => {
      const tags = await this.tagsNamed(trx, issue.projectId, input.tagNames ?? []);
      const e = await this.repo.insertEvent(
        trx,
        {
          projectId: issue.projectId,
          issueId: issue.id,
          authorId: user.id,
          note: text,
          action: 'comment',
          occurredAt,
          promotedFromNoteId: promotedFrom,
          tagIds: tags.map((t) => t.id),
        },
        this.now(),
      );
      await this.d.notes.addSystemNote(trx, issueNoteable(issue), user.id, IssueNoteText.timelineAdded);
      return e;
    });
    return (await this.eventViews(issue, [event]))[0]!;
  }

  /** Changes an event someone wrote (automatic ones are not editable, as GitLab). Developer. */
  async updateTimelineEvent(
    actor: User | null,
    idOrPath: string,
    iid: number,
    id: number,
    input: TimelineInput,
  ): Promise<TimelineEventView> {
    const { user, issue } = await this.writableIncident(actor, idOrPath, iid);
    const event = await this.repo.findEvent(issue.id, id);
    if (!event) throw notFound('Timeline event');
    if (event.action !== 'comment') throw paramError('You cannot edit this timeline event.');
    if (input.note !== undefined) {
      if (!input.note.trim()) throw invalidFields({ note: ["can't be blank"] });
      if (input.note.length > MAX_TIMELINE_NOTE_LENGTH && event.promotedFromNoteId === null)
        throw invalidFields({ note: [`is too long (maximum is ${MAX_TIMELINE_NOTE_LENGTH} characters)`] });
    }
    const occurredAt = input.occurredAt === undefined ? undefined : occurredAtOf(input.occurredAt);
    await this.repo.transaction(async (trx) => {
      const tags =
        input.tagNames === undefined ? undefined : await this.tagsNamed(trx, issue.projectId, input.tagNames);
      await this.repo.updateEvent(
        trx,
        id,
        { note: input.note, occurredAt, updatedById: user.id, tagIds: tags?.map((t) => t.id) },
        this.now(),
      );
      await this.d.notes.addSystemNote(trx, issueNoteable(issue), user.id, IssueNoteText.timelineEdited);
    });
    return (await this.eventViews(issue, [(await this.repo.findEvent(issue.id, id))!]))[0]!;
  }

  async deleteTimelineEvent(
    actor: User | null,
    idOrPath: string,
    iid: number,
    id: number,
  ): Promise<TimelineEventView> {
    const { user, issue } = await this.writableIncident(actor, idOrPath, iid);
    const event = await this.repo.findEvent(issue.id, id);
    if (!event) throw notFound('Timeline event');
    const [view] = await this.eventViews(issue, [event]);
    await this.repo.transaction(async (trx) => {
      await this.repo.deleteEvent(trx, id);
      await this.d.notes.addSystemNote(trx, issueNoteable(issue), user.id, IssueNoteText.timelineDeleted);
    });
    return view!;
  }

  /** A project's timeline event tags, GitLab's predefined ones included (created on first read). Readers. */
  async timelineTags(actor: User | null, idOrPath: string): Promise<TimelineEventTag[]> {
    const { project } = await this.d.access.project(actor, idOrPath);
    const tags = await this.repo.tags(project.id);
    const missing = PREDEFINED_TIMELINE_TAGS.filter(
      (p) => !tags.some((t) => t.name.toLowerCase() === p.toLowerCase()),
    );
    if (missing.length === 0) return tags;
    await this.repo.transaction(async (trx) => {
      for (const name of missing) await this.repo.insertTag(trx, project.id, name, this.now());
    });
    return this.repo.tags(project.id);
  }

  /** Adds a project's timeline event tag (Maintainer, GitLab's `admin_incident_management_timeline_event_tag`). */
  async createTimelineTag(actor: User | null, idOrPath: string, name: string): Promise<TimelineEventTag> {
    this.d.access.signedIn(actor);
    const { project } = await this.d.access.project(actor, idOrPath, AccessLevel.Maintainer);
    const clean = name.trim();
    if (!clean) throw invalidFields({ name: ["can't be blank"] });
    if (clean.length > 255) throw invalidFields({ name: ['is too long (maximum is 255 characters)'] });
    const tag = await this.repo.transaction((trx) => this.repo.insertTag(trx, project.id, clean, this.now()));
    if (!tag) throw invalidFields({ name: ['has already been taken'] });
    return tag;
  }
}
