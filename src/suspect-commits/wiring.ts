import type { Clock } from '../clock.js';
import type { ErrorTrackingService } from '../error-tracking/error-tracking.service.js';
import type { RepositoryService } from '../git/repository.service.js';
import type { MergeRequestApprovalsService } from '../merge-requests/merge-request-approvals.service.js';
import type { MergeRequestsService } from '../merge-requests/merge-requests.service.js';
import type { OncallService } from '../oncall/oncall.service.js';
import type { UsersService } from '../users/users.service.js';
import { releaseCommitFromName, SuspectCommitsService } from './suspect-commits.service.js';

/** Suspect commits of errors: error tracking, the repository, merge requests and on-call, read together. */
export function wireSuspectCommits(deps: {
  errorTracking: ErrorTrackingService;
  repository: RepositoryService;
  mergeRequests: MergeRequestsService;
  mergeRequestApprovals: MergeRequestApprovalsService;
  oncall: OncallService;
  users: UsersService;
  clock: Clock;
}): { suspectCommits: SuspectCommitsService } {
  const { repository } = deps;
  return {
    suspectCommits: new SuspectCommitsService(
      deps.errorTracking,
      repository,
      deps.mergeRequests,
      deps.mergeRequestApprovals,
      deps.oncall,
      deps.users,
      releaseCommitFromName(repository.reader),
      deps.clock,
    ),
  };
}
