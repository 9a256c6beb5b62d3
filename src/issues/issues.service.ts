import { notFound } from '../errors.js';
import type { Paged, PageRequest } from '../paging.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { Issue, IssueType } from './issues.js';
import type { IssuesRepository } from './issues.repository.js';

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
}
