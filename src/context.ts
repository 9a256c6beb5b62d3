import { randomInt } from 'node:crypto';
import { GroupsService } from './accounts/groups.service.js';
import { MembersRepository } from './accounts/members.repository.js';
import { MembersService } from './accounts/members.service.js';
import { NamespacesRepository } from './accounts/namespaces.repository.js';
import { PermissionsService } from './accounts/permissions.service.js';
import { ProjectsRepository } from './accounts/projects.repository.js';
import { ProjectsService } from './accounts/projects.service.js';
import { SettingsRepository } from './accounts/settings.repository.js';
import { SettingsService } from './accounts/settings.service.js';
import { SnippetsRepository } from './accounts/snippets.repository.js';
import { SnippetsService } from './accounts/snippets.service.js';
import { UsersRepository } from './accounts/users.repository.js';
import { UsersService } from './accounts/users.service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { configuredWeights, pickStorage } from './repositories/storages.js';
import { parseRelease, type Release } from './versioning/release.js';

/** Everything the HTTP layer and the CLI need, built once. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly release: Release;
  readonly users: UsersService;
  readonly groups: GroupsService;
  readonly projects: ProjectsService;
  readonly members: MembersService;
  readonly snippets: SnippetsService;
  readonly settings: SettingsService;
}

/** The composition root: repositories, then services, wired once. */
export function createContext(config: Config, db: Db, clock: Clock = systemClock): AppContext {
  const k = db.kysely;
  const usersRepo = new UsersRepository(k);
  const namespacesRepo = new NamespacesRepository(k);
  const projectsRepo = new ProjectsRepository(k);
  const membersRepo = new MembersRepository(k);
  const snippetsRepo = new SnippetsRepository(k);
  const settingsRepo = new SettingsRepository(k);

  const settings = new SettingsService(
    settingsRepo,
    {
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      user_defaults_to_private_profile: false,
      signup_enabled: false,
      repository_storages_weighted: configuredWeights(config.storages),
    },
    clock,
  );
  const permissions = new PermissionsService(membersRepo, namespacesRepo, clock);
  const pick = async () =>
    pickStorage((await settings.get()).repository_storages_weighted, randomInt(1_000_000) / 1_000_000);
  const projects = new ProjectsService(
    projectsRepo,
    namespacesRepo,
    membersRepo,
    permissions,
    settings,
    { names: Object.keys(config.storages), pick },
    clock,
  );
  return {
    config,
    db,
    clock,
    release: parseRelease(config.release),
    users: new UsersService(usersRepo, namespacesRepo, settings, clock),
    groups: new GroupsService(namespacesRepo, membersRepo, permissions, settings, clock),
    projects,
    members: new MembersService(membersRepo, usersRepo, clock),
    snippets: new SnippetsService(snippetsRepo, projects, settings, pick, clock),
    settings,
  };
}
