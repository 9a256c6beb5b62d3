import { notFound } from '../errors.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';
import type { Issue, IssueType } from './issues.js';
import type { IssuesRepository } from './issues.repository.js';

/** A transaction of the caller's (the alert's writes and its incident commit together). */

/** Reading issues and incidents (created by alert processing). Guests of a project may read. */
export class IssuesService {
  constructor(
    private readonly issues: IssuesRepository,
    private readonly projects: ProjectsService,
  ) {}

  async list(
    actor: User | null,
    projectIdOrPath: string,
    f: { issueType?: IssueType; state?: 'opened' | 'closed' },
    page: PageRequest,
  ): Promise<Paged<Issue> & { projectId: number }> {
    const { project } = await this.projects.find(actor, projectIdOrPath);
    return { ...(await this.issues.list(project.id, f, page)), projectId: project.id };
  }

  async get(actor: User | null, projectIdOrPath: string, iid: number): Promise<Issue> {
    const { project } = await this.projects.find(actor, projectIdOrPath);
    const issue = await this.issues.find(project.id, iid);
    if (!issue) throw notFound('Issue');
    return issue;
  }

  /**
   * Opens an incident under the project's next issue iid, in the caller's transaction: the one way incidents are
   * created, by alert intake (`create_issue`) and on demand for an alert. No access check: the caller has done it.
   */
  createIncidentFor(
    trx: UnitOfWork,
    incident: { projectId: number; title: string; description: string; authorId: number | null },
    now: string,
  ): Promise<Issue> {
    return this.issues.insert(trx, { ...incident, issueType: 'incident' }, now);
  }

  /** Closes an open incident (its alert resolved, with auto-close on), in the caller's transaction. */
  closeIncident(trx: UnitOfWork, projectId: number, iid: number, now: string): Promise<void> {
    return this.issues.close(trx, projectId, iid, now);
  }
}
