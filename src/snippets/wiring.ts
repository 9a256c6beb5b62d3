import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Access } from '../projects/access.js';
import type { RepositoryLifecycle } from '../projects/projects.js';
import type { StoragePicker } from '../projects/projects.service.js';
import type { SettingsService } from '../settings/settings.service.js';
import { SnippetsRepository } from './snippets.repository.js';
import { SnippetsService } from './snippets.service.js';

/** Personal and project snippets, each with its repository. */
export function wireSnippets(deps: {
  kysely: Kysely<Database>;
  access: Access;
  settings: SettingsService;
  pickStorage: StoragePicker;
  lifecycle: RepositoryLifecycle;
  permissions: PermissionsService;
  clock: Clock;
}): { snippets: SnippetsService } {
  return {
    snippets: new SnippetsService(
      new SnippetsRepository(deps.kysely),
      deps.access,
      deps.settings,
      deps.pickStorage,
      deps.lifecycle,
      deps.permissions,
      deps.clock,
    ),
  };
}
