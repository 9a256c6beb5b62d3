import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { IssuesRepository } from './issues.repository.js';
import { IssuesService } from './issues.service.js';

/** Issues (incidents), and the one incident creator. */
export function wireIssues(deps: { kysely: Kysely<Database>; projects: ProjectsService }): {
  issues: IssuesService;
} {
  return { issues: new IssuesService(new IssuesRepository(deps.kysely), deps.projects) };
}
