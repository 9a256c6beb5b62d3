import type { Kysely } from 'kysely';
import type { AuditService } from '../audit/audit.service.js';
import type { PushTracker } from '../cluster/push-tracker.js';
import type { StorageConfig } from '../config.js';
import type { Database } from '../db/schema.js';
import type { GroupsService } from '../groups/groups.service.js';
import type { Outbox } from '../ingest/outbox.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { SnippetsService } from '../snippets/snippets.service.js';
import type { UsersService } from '../users/users.service.js';
import { Git } from './git.js';
import { GitAccessService, type PushRecorder } from './git-access.service.js';
import { GitRepositoriesService, repositoryLifecycle } from './git-repositories.service.js';
import { InventoryRepository } from './inventory.repository.js';
import { InventoryService } from './inventory.service.js';
import { RepositoryService } from './repository.service.js';
import { WeightedStorages } from './storages.js';

/** Git repositories on disk: the storages, where new repositories go, and their lifecycle and inventory. */
export function wireGit(deps: {
  kysely: Kysely<Database>;
  storages: Readonly<Record<string, StorageConfig>>;
  settings: Pick<SettingsService, 'get'>;
}): {
  git: GitRepositoriesService;
  lifecycle: ReturnType<typeof repositoryLifecycle>;
  /** Where new repositories go, by the weights in application settings. */
  storagePicker: WeightedStorages;
  inventory: InventoryService;
} {
  const git = new GitRepositoriesService(new Git(), deps.storages);
  return {
    git,
    lifecycle: repositoryLifecycle(git),
    storagePicker: new WeightedStorages(async () => (await deps.settings.get()).repository_storages_weighted),
    inventory: new InventoryService(new InventoryRepository(deps.kysely)),
  };
}

/** Access during git's smart HTTP (pull and push rights, push rules, what a push records). */
export function wireGitAccess(deps: {
  users: UsersService;
  groups: GroupsService;
  projects: ProjectsService;
  snippets: SnippetsService;
  settings: SettingsService;
  git: GitRepositoriesService;
  audit: AuditService;
  /** What a push to a merge request's source branch records. */
  mergeRequests: PushRecorder;
  /** Pushes in progress, which a storage move waits for. */
  pushes: PushTracker;
  /** Where pushes write their events. */
  outbox: Pick<Outbox, 'emit'>;
}): { gitAccess: GitAccessService } {
  return {
    gitAccess: new GitAccessService(
      deps.users,
      deps.groups,
      deps.projects,
      deps.snippets,
      deps.settings,
      deps.git,
      deps.audit,
      deps.mergeRequests,
      deps.pushes,
      deps.outbox,
    ),
  };
}

/** Repository content through the API (files, branches, commits), written through the push path above. */
export function wireRepository(deps: {
  access: Access;
  git: GitRepositoriesService;
  gitAccess: GitAccessService;
}): {
  repository: RepositoryService;
} {
  return { repository: new RepositoryService(deps.access, deps.git, deps.gitAccess) };
}
