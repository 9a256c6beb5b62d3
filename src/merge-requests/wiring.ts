import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { PushTracker } from '../cluster/push-tracker.js';
import type { Database } from '../db/schema.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import type { Outbox } from '../ingest/outbox.js';
import type { JobQueue } from '../jobs/queue.js';
import type { MembersService } from '../members/members.service.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import { wireNotes } from '../notes/wiring.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { UsersService } from '../users/users.service.js';
import {
  MergeRequestApprovalsRepository,
  MergeRequestRulesRepository,
} from './merge-request-approvals.repository.js';
import { MergeRequestApprovalsService } from './merge-request-approvals.service.js';
import { MergeRequestNotesService } from './merge-request-notes.service.js';
import { MergeRequestsRepository } from './merge-requests.repository.js';
import { MergeRequestsService } from './merge-requests.service.js';
import { ProjectApprovalRulesRepository } from './project-approval-rules.repository.js';
import { ProjectApprovalRulesService } from './project-approval-rules.service.js';
import { MergeRequestVersionsRepository } from './versions.repository.js';

/** Merge requests, the project-level approval rules, the approvals and the notes of each merge request. */
export function wireMergeRequests(deps: {
  kysely: Kysely<Database>;
  projects: ProjectsService;
  git: GitRepositoriesService;
  users: UsersService;
  namespaces: NamespacesService;
  members: MembersService;
  access: Access;
  clock: Clock;
  /** Pushes in progress: the writes merge requests make to repositories are recorded as pushes. */
  pushes: PushTracker;
  jobs: JobQueue;
  /** Where temporary work trees (rebases) go. */
  scratchDir: string;
  /** Where merge requests and their notes write their events for project hooks. */
  outbox: Pick<Outbox, 'emit'>;
}): {
  mergeRequests: MergeRequestsService;
  projectApprovalRules: ProjectApprovalRulesService;
  mergeRequestApprovals: MergeRequestApprovalsService;
  mergeRequestNotes: MergeRequestNotesService;
} {
  const { kysely: k, projects, users, clock } = deps;
  const notes = wireNotes({ kysely: k, users, clock, outbox: deps.outbox });
  const mergeRequests = new MergeRequestsService(
    new MergeRequestsRepository(k),
    new MergeRequestVersionsRepository(k),
    projects,
    deps.access,
    deps.git,
    users,
    notes,
    clock,
    deps.pushes,
    deps.jobs,
    deps.scratchDir,
    deps.outbox,
  );
  const projectApprovalRules = new ProjectApprovalRulesService(
    new ProjectApprovalRulesRepository(k),
    deps.access,
    users,
    deps.namespaces,
    clock,
  );
  const mergeRequestApprovals = new MergeRequestApprovalsService(
    new MergeRequestApprovalsRepository(k),
    new MergeRequestRulesRepository(k),
    mergeRequests,
    projects,
    projectApprovalRules,
    deps.members,
    users,
    users,
    deps.access,
    notes,
    clock,
  );
  const mergeRequestNotes = new MergeRequestNotesService(mergeRequests, notes);
  return { mergeRequests, projectApprovalRules, mergeRequestApprovals, mergeRequestNotes };
}
