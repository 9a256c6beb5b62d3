import type { Kysely } from 'kysely';
import type { StorageConfig } from '../config.js';
import type { Database } from '../db/schema.js';
import type { SettingsService } from '../settings/settings.service.js';
import { Git } from './git.js';
import { GitRepositoriesService, repositoryLifecycle } from './git-repositories.service.js';
import { InventoryRepository } from './inventory.repository.js';
import { InventoryService } from './inventory.service.js';
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
