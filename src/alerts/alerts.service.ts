import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { type AppError, badRequest, conflict, notFound, paramError } from '../errors.js';
import type { Outbox, OutboxWriter } from '../ingest/outbox.js';
import type { IssuesService } from '../issues/issues.service.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { type Bucket, bucketWindow, type StatsPeriod } from '../time-buckets.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { type Alert, type AlertNote, type AlertStatus, storedIncidentExtras } from './alerts.js';
import {
  type AlertFilter,
  type AlertOrder,
  type AlertsRepository,
  isUniqueViolation,
} from './alerts.repository.js';
import { incidentDescription } from './incident.js';
import type { AlertNotifier } from './intake.service.js';
import type { AlertSearchIndex } from './search-index.js';

const STATUS_LABEL: Record<AlertStatus, string> = {
  triggered: 'Triggered',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/** GitLab's answer (AlertManagement::Alerts::UpdateService) to reopening an alert whose fingerprint is open. */
const fingerprintOpen = (openIid: number | null): AppError =>
  conflict(
    `An alert${openIid === null ? '' : ` (^alert#${openIid})`} with the same fingerprint is already open. ` +
      'To change the status of this alert, resolve the linked alert.',
  );

/** Alerts of a project: Reporters read, Developers change the status, Maintainers change the settings. */
export class AlertsService {
  constructor(
    private readonly repo: AlertsRepository,
    private readonly projects: ProjectsService,
    private readonly access: Access,
    private readonly clock: Clock,
    private readonly users: Pick<UsersService, 'findByUsername'>,
    private readonly issues: Pick<IssuesService, 'createIncidentFor' | 'recordTimelineEvent'>,
    private readonly notifier: AlertNotifier,
    private readonly searchIndex: AlertSearchIndex,
    /** Where a status change writes its `alert.changed` event (dispatched after commit). */
    private readonly outbox: Outbox,
  ) {}

  /** An alert by project and iid, for work the system does on its own (notifications, escalation): no caller. */
  alertForSystem(projectId: number, iid: number): Promise<Alert | null> {
    return this.repo.alert(projectId, iid);
  }

  /** An alert of a project by id (an acknowledge link names it so), for the system: no caller. */
  async alertByIdForSystem(projectId: number, id: number): Promise<Alert | null> {
    const a = await this.repo.alertById(id);
    return a && a.projectId === projectId ? a : null;
  }

  /** Whether closing an incident resolves its alerts in the project (the alert setting `auto_resolve_alerts`). */
  async closeResolvesAlerts(trx: UnitOfWork, projectId: number): Promise<boolean> {
    return (await this.repo.settings(projectId, trx)).autoResolveAlerts;
  }

  /**
   * Resolves an incident's open alerts in the caller's transaction, because `closer` closed the incident: as
   * GitLab's `Issues::CloseService#resolve_alert`, the status note is the alert bot's and names who closed it. Each
   * resolution ends the alert's escalation (the `alert.changed` event).
   */
  async resolveFor(
    trx: UnitOfWork,
    outbox: OutboxWriter,
    incident: { projectId: number; iid: number },
    closer: User,
    now: string,
  ): Promise<void> {
    for (const alert of await this.repo.openAlertsOfIncident(trx, incident.projectId, incident.iid)) {
      await this.repo.setStatus(trx, alert.id, 'resolved', now, now);
      await this.repo.addNote(
        trx,
        alert.id,
        `changed the status to **Resolved** because @${closer.username} closed incident #${incident.iid}`,
        null,
        now,
      );
      await outbox.add('alert.changed', {
        projectId: incident.projectId,
        alertId: alert.id,
        iid: alert.iid,
        event: 'resolved',
        at: now,
      });
    }
  }

  /** Forgets a deleted incident on its alerts (an alert may then open a new one). */
  unlinkIncident(trx: UnitOfWork, projectId: number, iid: number): Promise<void> {
    return this.repo.unlinkIncident(trx, projectId, iid);
  }

  /** Whether a project's alert settings send e-mail on new alerts. */
  async sendsEmail(projectId: number): Promise<boolean> {
    return (await this.repo.settings(projectId)).sendEmail;
  }

  private async project(actor: User | null, idOrPath: string, level: number): Promise<Project> {
    return (await this.access.project(actor, idOrPath, level)).project;
  }

  async list(
    actor: User | null,
    idOrPath: string,
    f: AlertFilter,
    order: AlertOrder,
    sort: 'asc' | 'desc',
    page: PageRequest,
  ): Promise<Paged<Alert>> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    // Alerts that arrived in the last moment are indexed first, so that a search finds them.
    if (f.search) await this.searchIndex.catchUp();
    return this.repo.list(project.id, f, order, sort, page);
  }

  async counts(actor: User | null, idOrPath: string): Promise<Record<AlertStatus | 'all' | 'open', number>> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    const c = await this.repo.counts(project.id);
    return {
      ...c,
      open: c.triggered + c.acknowledged,
      all: c.triggered + c.acknowledged + c.resolved + c.ignored,
    };
  }

  async get(actor: User | null, idOrPath: string, iid: number): Promise<Alert> {
    const project = await this.project(actor, idOrPath, AccessLevel.Reporter);
    const alert = await this.repo.alert(project.id, iid);
    if (!alert) throw notFound('Alert');
    return alert;
  }

  async notes(actor: User | null, idOrPath: string, iid: number): Promise<AlertNote[]> {
    const alert = await this.get(actor, idOrPath, iid);
    return this.repo.notes(alert.id);
  }

  /**
   * Changes the status; resolved sets the end time, any other status clears it (GitLab's state machine). A
   * resolved alert cannot be reopened while another alert with its fingerprint is open (409, GitLab's message):
   * one open alert per fingerprint, which the database enforces too (a concurrent reopen also gets the 409).
   */
  async setStatus(actor: User | null, idOrPath: string, iid: number, status: AlertStatus): Promise<Alert> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    try {
      return await this.changeStatus(actor, project, iid, status);
    } catch (err) {
      if (isUniqueViolation(err)) throw fingerprintOpen(null);
      throw err;
    }
  }

  private changeStatus(
    actor: User | null,
    project: Project,
    iid: number,
    status: AlertStatus,
  ): Promise<Alert> {
    return this.outbox.transaction(
      (fn) => this.repo.transaction(fn),
      async (trx, outbox) => {
        const alert = await this.repo.alert(project.id, iid, trx);
        if (!alert) throw notFound('Alert');
        if (alert.status === status) return alert;
        if (alert.status === 'resolved' && alert.fingerprint !== null) {
          const open = await this.repo.openAlert(trx, project.id, alert.fingerprint);
          if (open && open.id !== alert.id) throw fingerprintOpen(open.iid);
        }
        const now = this.clock.now().toISOString();
        await this.repo.setStatus(trx, alert.id, status, status === 'resolved' ? now : null, now);
        await this.repo.addNote(
          trx,
          alert.id,
          `changed the status to **${STATUS_LABEL[status]}**`,
          actor?.id ?? null,
          now,
        );
        await this.incidentTimeline(
          trx,
          alert,
          `${actor ? `@${actor.username}` : '@alert-bot'} changed the status of alert ^alert#${alert.iid} to **${STATUS_LABEL[status]}**`,
          actor?.id ?? null,
          now,
        );
        // After commit: its notifications and the end of its escalation (handlers registered in src/context.ts).
        // Triggered again by hand (from acknowledged, resolved or ignored), its escalation starts again.
        if (status === 'resolved' || status === 'acknowledged' || status === 'triggered')
          await outbox.add('alert.changed', {
            projectId: project.id,
            alertId: alert.id,
            iid,
            event: status === 'triggered' ? 'retriggered' : status,
            at: now,
          });
        return (await this.repo.alert(project.id, iid, trx))!;
      },
    );
  }

  /**
   * Triggers an acknowledged alert again because nobody resolved it within its escalation policy's
   * acknowledgement timeout: a status note by the alert bot saying why, and the `retriggered` event (its
   * escalation starts again), in one transaction. False, changing nothing, when the alert is no longer
   * acknowledged (a later acknowledgement drops the earlier timeout's job: see the escalation service).
   */
  async retriggerAcknowledged(
    projectId: number,
    iid: number,
    alertId: number,
    minutes: number,
  ): Promise<boolean> {
    return this.outbox.transaction(
      (fn) => this.repo.transaction(fn),
      async (trx, outbox) => {
        await this.repo.lock(trx, projectId, iid);
        const alert = await this.repo.alert(projectId, iid, trx);
        if (!alert || alert.id !== alertId || alert.status !== 'acknowledged') return false;
        const now = this.clock.now().toISOString();
        await this.repo.setStatus(trx, alert.id, 'triggered', null, now);
        await this.repo.addNote(
          trx,
          alert.id,
          `changed the status to **Triggered** because the acknowledgement timed out after ${minutes} ${
            minutes === 1 ? 'minute' : 'minutes'
          }`,
          null,
          now,
        );
        await this.incidentTimeline(
          trx,
          alert,
          `The acknowledgement of alert ^alert#${alert.iid} timed out after ${minutes} ${
            minutes === 1 ? 'minute' : 'minutes'
          }: the alert is triggered again`,
          null,
          now,
        );
        await outbox.add('alert.changed', {
          projectId,
          alertId: alert.id,
          iid: alert.iid,
          event: 'retriggered',
          at: now,
        });
        return true;
      },
    );
  }

  /** An event on the timeline of the alert's incident, when it opened one (its status changes, its pages). */
  private async incidentTimeline(
    trx: UnitOfWork,
    alert: Alert,
    note: string,
    authorId: number | null,
    now: string,
  ): Promise<void> {
    if (alert.incidentIid === null) return;
    await this.issues.recordTimelineEvent(
      trx,
      { projectId: alert.projectId, iid: alert.incidentIid },
      { note, action: 'status', occurredAt: now, authorId },
    );
  }

  /**
   * Acknowledges a triggered alert from a page's link, in the caller's transaction (which used the link's token),
   * as the person paged (`user`; null: the webhook's link of a page to several people): the status note, the
   * event on its incident's timeline, and the `acknowledged` event (its acknowledgement timeout). False, changing
   * nothing, when it is no longer triggered.
   */
  async acknowledgeByLink(
    trx: UnitOfWork,
    outbox: OutboxWriter,
    target: { projectId: number; alertId: number },
    user: User | null,
    now: string,
  ): Promise<boolean> {
    const found = await this.repo.alertById(target.alertId, trx);
    if (!found || found.projectId !== target.projectId) return false;
    await this.repo.lock(trx, found.projectId, found.iid);
    const alert = (await this.repo.alert(found.projectId, found.iid, trx))!;
    if (alert.status !== 'triggered') return false;
    await this.repo.setStatus(trx, alert.id, 'acknowledged', null, now);
    await this.repo.addNote(
      trx,
      alert.id,
      'changed the status to **Acknowledged** via page link',
      user?.id ?? null,
      now,
    );
    await this.incidentTimeline(
      trx,
      alert,
      `Alert ^alert#${alert.iid} acknowledged by ${user ? `@${user.username}` : 'someone'} via page link`,
      user?.id ?? null,
      now,
    );
    await outbox.add('alert.changed', {
      projectId: alert.projectId,
      alertId: alert.id,
      iid: alert.iid,
      event: 'acknowledged',
      at: now,
    });
    return true;
  }

  /**
   * The alert update API (GitLab's `alertSetAssignees` and `updateAlertStatus` in one PUT): `status`, and/or
   * `assignee_usernames`. As GitLab, only the first assignee is kept (multiple are not supported) and an assignee
   * must be able to read the alert (Reporter); an empty list unassigns. Developer.
   */
  async update(
    actor: User | null,
    idOrPath: string,
    iid: number,
    input: { status?: AlertStatus; assigneeUsernames?: readonly string[] },
  ): Promise<Alert> {
    if (input.status === undefined && input.assigneeUsernames === undefined) {
      throw paramError('status, assignee_usernames are missing, at least one parameter must be provided');
    }
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    const assignees =
      input.assigneeUsernames === undefined
        ? undefined
        : await this.assignable(project, input.assigneeUsernames);
    if (input.status !== undefined) await this.setStatus(actor, idOrPath, iid, input.status);
    if (assignees === undefined) return this.get(actor, idOrPath, iid);
    return this.repo.transaction(async (trx) => {
      await this.repo.lock(trx, project.id, iid);
      const alert = await this.repo.alert(project.id, iid, trx);
      if (!alert) throw notFound('Alert');
      const before = new Set(alert.assignees.map((u) => u.id));
      const after = new Set(assignees.map((u) => u.id));
      if (before.size === after.size && [...after].every((id) => before.has(id))) return alert;
      const now = this.clock.now().toISOString();
      await this.repo.setAssignees(
        trx,
        alert.id,
        assignees.map((u) => u.id),
        now,
      );
      const added = assignees.filter((u) => !before.has(u.id));
      const removed = alert.assignees.filter((u) => !after.has(u.id));
      const parts = [
        ...(added.length > 0 ? [`assigned to ${added.map((u) => `@${u.username}`).join(', ')}`] : []),
        ...(removed.length > 0 ? [`unassigned ${removed.map((u) => `@${u.username}`).join(', ')}`] : []),
      ];
      await this.repo.addNote(trx, alert.id, parts.join(' and '), actor?.id ?? null, now);
      return (await this.repo.alert(project.id, iid, trx))!;
    });
  }

  /** The users named (the first one only, as GitLab): 404 for an unknown one, 400 for one who cannot read alerts. */
  private async assignable(project: Project, usernames: readonly string[]): Promise<User[]> {
    const first = usernames.find((u) => u.trim() !== '');
    if (first === undefined) return [];
    const user = await this.users.findByUsername(first.trim());
    if (!user || user.state !== 'active') throw notFound('User');
    const level = await this.projects.find(user, String(project.id)).then(
      (a) => a.level,
      () => 0,
    );
    if (level < AccessLevel.Reporter) throw badRequest('Assignee has no permissions');
    return [user];
  }

  /** Adds a comment to the alert (anyone who can read it: Reporter, as notes on GitLab's alerts). */
  async comment(actor: User | null, idOrPath: string, iid: number, body: string): Promise<AlertNote> {
    const text = body.trim();
    if (text === '') throw paramError('body is empty');
    if (text.length > 1_000_000) throw paramError('body is too long (maximum is 1000000 characters)');
    const alert = await this.get(actor, idOrPath, iid);
    return this.outbox.transaction(
      (fn) => this.repo.transaction(fn),
      async (trx, outbox) => {
        const note = await this.repo.addNote(
          trx,
          alert.id,
          text,
          actor?.id ?? null,
          this.clock.now().toISOString(),
          false,
        );
        // GitLab's note hook for a comment on an alert (noteable type `AlertManagement::Alert`), with the note.
        await outbox.add('project.event', {
          kind: 'note',
          eventId: randomUUID(),
          projectId: alert.projectId,
          userId: actor?.id ?? null,
          note: {
            id: note.id,
            body: note.body,
            noteableType: 'AlertManagement::Alert',
            noteableId: alert.id,
            noteableIid: alert.iid,
            internal: false,
            createdAt: note.createdAt,
            updatedAt: note.createdAt,
          },
        });
        return note;
      },
    );
  }

  /**
   * Opens an incident for the alert on demand (GitLab's `createAlertIssue`), described as intake would have (with
   * the payload's `svc_incident_markdown`), and links it. 409 when the alert already has one. Developer.
   */
  async createIncident(actor: User | null, idOrPath: string, iid: number): Promise<Alert> {
    const project = await this.project(actor, idOrPath, AccessLevel.Developer);
    return this.repo.transaction(async (trx) => {
      await this.repo.lock(trx, project.id, iid);
      const alert = await this.repo.alert(project.id, iid, trx);
      if (!alert) throw notFound('Alert');
      if (alert.incidentIid !== null) throw conflict('An incident already exists for this alert');
      const now = this.clock.now().toISOString();
      const incident = await this.issues.createIncidentFor(
        trx,
        {
          projectId: project.id,
          title: alert.title,
          description: incidentDescription(alert, storedIncidentExtras(alert.payload)),
          author: actor,
          severity: alert.severity,
        },
        now,
      );
      await this.repo.linkIncident(trx, alert.id, incident.iid);
      await this.repo.addNote(
        trx,
        alert.id,
        `created incident #${incident.iid} for this alert`,
        actor?.id ?? null,
        now,
      );
      return (await this.repo.alert(project.id, iid, trx))!;
    });
  }

  /** Firings of the alert over time, bucketed by the database: hourly for `24h`, daily for `30d`. */
  async occurrences(
    actor: User | null,
    idOrPath: string,
    iid: number,
    period: StatsPeriod,
  ): Promise<{ period: StatsPeriod; interval: string; buckets: Bucket[] }> {
    const alert = await this.get(actor, idOrPath, iid);
    const window = bucketWindow(period, this.clock.now());
    return { period, interval: window.interval, buckets: await this.repo.occurrences(alert.id, window) };
  }

  async settings(actor: User | null, idOrPath: string) {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    return this.repo.settings(project.id);
  }

  async updateSettings(
    actor: User | null,
    idOrPath: string,
    patch: {
      createIncident?: boolean;
      autoCloseIncident?: boolean;
      sendEmail?: boolean;
      autoResolveAlerts?: boolean;
    },
  ) {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.repo.settings(project.id);
    const next = {
      createIncident: patch.createIncident ?? current.createIncident,
      autoCloseIncident: patch.autoCloseIncident ?? current.autoCloseIncident,
      sendEmail: patch.sendEmail ?? current.sendEmail,
      autoResolveAlerts: patch.autoResolveAlerts ?? current.autoResolveAlerts,
    };
    await this.repo.putSettings(project.id, next);
    if (next.sendEmail !== current.sendEmail) await this.notifier.settingsChanged();
    return next;
  }
}
