import type { Clock } from '../clock.js';
import { type AppError, conflict, notFound } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Paged, PageRequest } from '../paging.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { Alert, AlertNote, AlertStatus } from './alerts.js';
import {
  type AlertFilter,
  type AlertOrder,
  type AlertsRepository,
  isUniqueViolation,
} from './alerts.repository.js';

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
    private readonly clock: Clock,
  ) {}

  private async project(actor: User | null, idOrPath: string, level: number): Promise<Project> {
    return (await this.projects.findWithLevel(actor, idOrPath, level)).project;
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
    return this.repo.transaction(async (trx) => {
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
      return (await this.repo.alert(project.id, iid, trx))!;
    });
  }

  async settings(actor: User | null, idOrPath: string) {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    return this.repo.settings(project.id);
  }

  async updateSettings(
    actor: User | null,
    idOrPath: string,
    patch: { createIncident?: boolean; autoCloseIncident?: boolean },
  ) {
    const project = await this.project(actor, idOrPath, AccessLevel.Maintainer);
    const current = await this.repo.settings(project.id);
    const next = {
      createIncident: patch.createIncident ?? current.createIncident,
      autoCloseIncident: patch.autoCloseIncident ?? current.autoCloseIncident,
    };
    await this.repo.putSettings(project.id, next);
    return next;
  }
}
