import type { AvatarStore } from '../avatars/avatar-store.js';
import { checkAvatar, imageType, type UploadedFile } from '../avatars/avatars.js';
import type { Clock } from '../clock.js';
import {
  conflict,
  forbidden,
  invalidFields,
  messageList,
  notFound,
  paramError,
  plainError,
  readOnlyError,
} from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService, SourceAccess } from '../members/members.service.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Group, Namespace } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { KeysetRequest, Paged, PageRequest } from '../pagination.js';
import { PATH_PATTERN, pathFromName } from '../paths.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { User } from '../users/users.js';
import { assertVisibilityAllowed, type Visibility } from '../visibility.js';
import type { Access } from './access.js';
import {
  type Project,
  type ProjectOrder,
  type ProjectSettings,
  pickReadme,
  type RepositoryLifecycle,
  type RepositoryState,
} from './projects.js';
import type { ProjectFilter, ProjectsRepository } from './projects.repository.js';

export interface CreateProjectInput {
  name?: string;
  path?: string;
  namespaceId?: number;
  description?: string;
  visibility?: Visibility;
  defaultBranch?: string;
  monitorEnabled?: boolean;
  repositoryStorage?: string;
  /** Commit a README.md to the default branch (GitLab's `initialize_with_readme`). */
  initializeWithReadme?: boolean;
  avatar?: UploadedFile;
}

export interface UpdateProjectInput {
  name?: string;
  path?: string;
  description?: string;
  visibility?: Visibility;
  defaultBranch?: string;
  monitorEnabled?: boolean;
  settings?: Partial<Omit<ProjectSettings, 'accessLevels'>> & {
    accessLevels?: Partial<ProjectSettings['accessLevels']>;
  };
  /** A new avatar; `null` removes it. */
  avatar?: UploadedFile | null;
}

export interface ListProjectsInput {
  search?: string;
  visibility?: Visibility;
  membership?: boolean;
  owned?: boolean;
  repositoryStorage?: string;
}

/** A project with the caller's access level in it. */
export interface ProjectAccess {
  readonly project: Project;
  readonly level: number;
}

/**
 * GitLab's answer to a refused transfer: 400 with the project's errors as Ruby prints the hash
 * (`Failed to transfer project {:new_namespace=>["..."]}`).
 */
const transferError = (reason: string) =>
  plainError('bad_request', `Failed to transfer project {:new_namespace=>[${JSON.stringify(reason)}]}`);

/** Picks a storage for a new repository (weights from application settings). */
export type StoragePicker = () => Promise<string>;

/** Projects: creation in user or group namespaces, lookup by id or path, visibility and roles. */
export class ProjectsService {
  private readonly listeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly projects: ProjectsRepository,
    private readonly namespaces: NamespacesService,
    private readonly members: Pick<MembersService, 'deleteAllOf' | 'projectUsers'>,
    private readonly permissions: PermissionsService,
    private readonly access: Access,
    private readonly settings: SettingsService,
    private readonly storages: { names: readonly string[]; pick: StoragePicker },
    private readonly repos: RepositoryLifecycle,
    private readonly avatars: AvatarStore,
    private readonly clock: Clock,
    private readonly userLookup: { findById(id: number): Promise<User | null> },
  ) {}

  /** Finds a project by numeric id or full path (`group/sub/project`); 404 when the caller may not see it. */
  async find(actor: User | null, idOrPath: string): Promise<ProjectAccess> {
    return this.access.project(actor, idOrPath);
  }

  /** A project as the caller may see it, with the caller's memberships that reach it (`permissions`). */
  async findWithMemberships(
    actor: User | null,
    idOrPath: string,
  ): Promise<{ project: Project; memberships: { project: number | null; group: number | null } }> {
    const { project } = await this.find(actor, idOrPath);
    const [shown] = await this.withRepositoryState([project]);
    return { project: shown!, memberships: await this.permissions.projectMemberships(actor, project) };
  }

  /** Finds a project the caller must have at least `min` access to: 404 if invisible, 403 if too low. */
  async findWithLevel(actor: User | null, idOrPath: string, min: number): Promise<ProjectAccess> {
    return this.access.project(actor, idOrPath, min);
  }

  /** A project by id for work the system does on its own (after a push), with no caller to check. */
  async findById(id: number): Promise<Project | null> {
    return this.projects.findById(id);
  }

  /** A project by full path for the alert notify endpoints, which authenticate with the integration key. */
  async findForIntake(fullPath: string): Promise<Project | null> {
    // GitLab follows redirects for GET requests only: an alert posted to an old path finds nothing.
    const project = await this.lookup(fullPath, true);
    // A project with the Monitor feature disabled does not take alerts.
    return project?.monitorEnabled ? project : null;
  }

  /**
   * A project by numeric id or full path, whoever may see it (the access policy's finder). An old full path (before
   * a transfer or a rename) finds the project it redirects to, as GitLab's API and git do, unless `exact`.
   */
  async lookup(idOrPath: string, exact = false): Promise<Project | null> {
    if (/^\d+$/.test(idOrPath)) return this.projects.findById(Number(idOrPath));
    const slash = idOrPath.lastIndexOf('/');
    if (slash <= 0) return null;
    const ns = await this.namespaces.findByFullPath(idOrPath.slice(0, slash));
    const found = ns ? await this.projects.findByPath(ns, idOrPath.slice(slash + 1)) : null;
    return found ?? (exact ? null : this.projects.findByRedirect(idOrPath));
  }

  private async filter(actor: User | null, input: ListProjectsInput): Promise<ProjectFilter> {
    const filter: ProjectFilter = {
      scope: await this.permissions.projectScope(actor),
      search: input.search,
      visibility: input.visibility,
      // Spec: repository_storage is an admin-only filter; others have it ignored, as in GitLab.
      repositoryStorage: this.access.isAdmin(actor) ? input.repositoryStorage : undefined,
    };
    if (actor && (input.membership || input.owned)) {
      // GitLab's `owned`: the user's namespace and every project it is an Owner of (directly or through a group).
      filter.memberOnly = await this.permissions.membershipScope(
        actor,
        input.owned ? AccessLevel.Owner : AccessLevel.Guest,
      );
    }
    return filter;
  }

  async list(
    actor: User | null,
    input: ListProjectsInput,
    order: ProjectOrder,
    sort: 'asc' | 'desc',
    page: PageRequest,
  ): Promise<Paged<Project>> {
    return this.shown(await this.projects.list(await this.filter(actor, input), order, sort, page));
  }

  async listKeyset(actor: User | null, input: ListProjectsInput, k: KeysetRequest<'id'>): Promise<Project[]> {
    return this.withRepositoryState(await this.projects.listKeyset(await this.filter(actor, input), k));
  }

  private async shown(page: Paged<Project>): Promise<Paged<Project>> {
    return { ...page, items: await this.withRepositoryState(page.items) };
  }

  /**
   * Projects as they are shown: a project whose repository state was never recorded (made before svc recorded it)
   * has it read from its repository and recorded, once.
   */
  private async withRepositoryState(projects: readonly Project[]): Promise<Project[]> {
    return Promise.all(
      projects.map(async (p) =>
        p.emptyRepo === null ? { ...p, ...(await this.recordRepositoryState(p)) } : p,
      ),
    );
  }

  /** Reads what the repository holds (branches, the README of the default branch) and records it on the project. */
  private async recordRepositoryState(p: Project): Promise<RepositoryState> {
    const summary = await this.repos
      .branchSummary(p.id, p.repositoryStorage, p.defaultBranch)
      // A repository that cannot be read (moved meanwhile, damaged) is shown as empty and read again next time.
      .catch(() => null);
    if (summary === null) return { emptyRepo: true, readmePath: null };
    const state = { emptyRepo: !summary.hasBranches, readmePath: pickReadme(summary.rootFiles) };
    await this.projects.setRepositoryState(p.id, state);
    return state;
  }

  /** Projects of a group (and, with `includeSubgroups`, of its subgroups) that the caller may see. */
  async listInGroup(
    actor: User | null,
    group: Namespace,
    includeSubgroups: boolean,
    page: PageRequest,
  ): Promise<Paged<Project>> {
    const namespaceIds = includeSubgroups ? await this.namespaces.withDescendants([group.id]) : [group.id];
    const scope = await this.permissions.projectScope(actor);
    return this.shown(await this.projects.list({ scope, namespaceIds }, 'created_at', 'desc', page));
  }

  /** Projects in a user's personal namespace that the caller may see (`GET /users/:id/projects`). */
  async listOfUser(actor: User | null, userId: number, page: PageRequest): Promise<Paged<Project>> {
    const ns = await this.namespaces.findUserNamespace(userId);
    if (!ns) throw notFound('User');
    return this.listInGroup(actor, ns, false, page);
  }

  /** An admin creates a project in another user's namespace (`POST /projects/user/:user_id`). */
  async createForUser(actor: User | null, userId: number, input: CreateProjectInput): Promise<Project> {
    this.access.admin(actor);
    const ns = await this.namespaces.findUserNamespace(userId);
    if (!ns) throw notFound('User');
    return this.create(actor, { ...input, namespaceId: ns.id });
  }

  async create(caller: User | null, input: CreateProjectInput): Promise<Project> {
    const actor = this.access.signedIn(caller);
    if (input.name === undefined && input.path === undefined)
      throw paramError('name, path are missing, at least one parameter must be provided');
    const name = input.name ?? input.path!;
    const path = input.path ?? pathFromName(name);
    const namespace =
      input.namespaceId !== undefined
        ? await this.namespaces.findById(input.namespaceId)
        : await this.namespaces.findUserNamespace(actor.id);
    if (!namespace) throw notFound('Namespace');
    if (namespace.kind === 'user') {
      if (namespace.ownerId !== actor.id && !this.access.isAdmin(actor)) throw forbidden();
    } else {
      // GitLab's default project creation level in groups: Maintainer.
      await this.access.groupObject(actor, namespace as Group, AccessLevel.Maintainer, 'Namespace');
    }
    if (input.repositoryStorage !== undefined) {
      if (!this.access.isAdmin(actor))
        throw forbidden('repository_storage can only be set by administrators');
      if (!this.storages.names.includes(input.repositoryStorage)) {
        throw paramError('repository_storage does not have a valid value');
      }
    }
    const settings = await this.settings.get();
    const visibility = input.visibility ?? settings.default_project_visibility;
    assertVisibilityAllowed(visibility, settings.restricted_visibility_levels, this.access.isAdmin(actor));
    if (namespace.kind === 'user') await this.checkPersonalLimit(actor, namespace.id, namespace.ownerId);
    await this.validate(namespace.id, { name, path });
    const avatar = input.avatar ? checkAvatar(input.avatar) : null;
    const repositoryStorage = input.repositoryStorage ?? (await this.storages.pick());
    const defaultBranch = input.defaultBranch ?? 'main';
    const id = await this.projects.insert(
      {
        namespaceId: namespace.id,
        name,
        path,
        description: input.description ?? '',
        visibility,
        defaultBranch,
        monitorEnabled: input.monitorEnabled ?? true,
        repositoryStorage,
        creatorId: actor.id,
      },
      this.clock.now().toISOString(),
    );
    try {
      await this.repos.create('project', id, repositoryStorage, defaultBranch);
      if (input.initializeWithReadme) {
        // GitLab's Projects::CreateService commits the README as the creator, "Initial commit".
        await this.repos.commitProjectFile(
          id,
          repositoryStorage,
          defaultBranch,
          { name: 'README.md', content: readmeFor(name, description(input)) },
          'Initial commit',
          actor,
        );
      }
      await this.projects.setRepositoryState(id, {
        emptyRepo: !input.initializeWithReadme,
        readmePath: input.initializeWithReadme ? 'README.md' : null,
      });
      if (avatar && input.avatar) {
        await this.avatars.save('project', id, avatar.name, input.avatar.data);
        await this.projects.setAvatar(id, avatar.name);
      }
    } catch (err) {
      // No project without its repository (nor half of what was asked for).
      await this.projects.delete(id);
      await this.repos.remove('project', id, repositoryStorage).catch(() => undefined);
      await this.avatars.remove('project', id).catch(() => undefined);
      throw err;
    }
    await this.projects.claimPath(`${namespace.fullPath}/${path}`);
    return (await this.projects.findById(id))!;
  }

  /**
   * GitLab's personal project limit: a user owns at most `projects_limit` projects in its own namespace (group
   * projects do not count; administrators are no exception). 403 with GitLab's message.
   */
  private async checkPersonalLimit(actor: User, namespaceId: number, ownerId: number | null): Promise<void> {
    const owner = ownerId === null || ownerId === actor.id ? actor : await this.userLookup.findById(ownerId);
    if (!owner) return;
    const limit = owner.projectsLimit;
    if ((await this.projects.countInNamespace(namespaceId)) < limit) return;
    throw messageList('forbidden', [
      limit === 0
        ? 'Personal project creation is not allowed. Please contact your administrator with questions'
        : `Your project limit is ${limit} projects! Please contact your administrator to increase it`,
    ]);
  }

  /** A project's uploaded avatar by the name its URL gives, for a caller who may see the project; 404 otherwise. */
  async avatarFile(
    actor: User | null,
    id: number,
    name: string,
  ): Promise<{ data: Buffer; contentType: string }> {
    // The access policy's 404 for a project the caller may not see (anonymous callers of a private one included).
    const { project } = await this.find(actor, String(id));
    const data = project.avatar === name ? await this.avatars.read('project', id, name) : null;
    const contentType = data ? imageType(data) : null;
    if (!data || !contentType) throw notFound();
    return { data, contentType };
  }

  private async validate(namespaceId: number, p: { name?: string; path?: string }, exceptId?: number) {
    const errors: Record<string, string[]> = {};
    if (p.name !== undefined && p.name.trim() === '') errors.name = ["can't be blank"];
    if (p.path !== undefined && !PATH_PATTERN.test(p.path)) {
      errors.path = ['can contain only letters, digits, _, - and ., and cannot start with - or .'];
    }
    if (p.path?.toLowerCase().endsWith('.git')) errors.path = ['cannot end in .git'];
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    if (p.name !== undefined && (await this.projects.nameTaken(namespaceId, p.name, exceptId))) {
      throw invalidFields({ name: ['has already been taken'] });
    }
    if (p.path !== undefined) {
      const ns = (await this.namespaces.findById(namespaceId))!;
      const other = await this.projects.findByPath(ns, p.path);
      if (other && other.id !== exceptId) throw invalidFields({ path: ['has already been taken'] });
      if (await this.namespaces.findByFullPath(`${ns.fullPath}/${p.path}`)) {
        throw conflict('A group with that path already exists');
      }
    }
  }

  /** Records activity (a push) on a project: `last_activity_at`, which `svc list-repos --since` reads. */
  async touchActivity(id: number): Promise<void> {
    await this.projects.touch(id, this.clock.now().toISOString());
    // What the repository now holds (a push may have made its first branch, or a README).
    const project = await this.projects.findById(id);
    if (project) await this.recordRepositoryState(project);
  }

  /** Registers a function called after any project changes (caches of project data clear themselves). */
  onChange(fn: () => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  private async changed(): Promise<void> {
    await Promise.all(this.listeners.map((fn) => fn()));
  }

  async update(actor: User | null, idOrPath: string, input: UpdateProjectInput): Promise<Project> {
    const { project } = await this.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    if (input.visibility !== undefined && input.visibility !== project.visibility) {
      const restricted = (await this.settings.get()).restricted_visibility_levels;
      assertVisibilityAllowed(input.visibility, restricted, this.access.isAdmin(actor));
    }
    await this.validate(project.namespace.id, { name: input.name, path: input.path }, project.id);
    const { avatar: upload, ...changes } = input;
    const avatar = upload ? checkAvatar(upload) : null;
    if (upload && avatar) await this.avatars.save('project', project.id, avatar.name, upload.data);
    const now = this.clock.now().toISOString();
    await this.projects.update(project.id, changes, now);
    if (upload !== undefined) {
      await this.projects.setAvatar(project.id, avatar?.name ?? null);
      await this.avatars.keepOnly('project', project.id, avatar?.name ?? null);
    }
    // A new path, as in GitLab: the old one redirects to the project.
    if (changes.path !== undefined && changes.path !== project.path)
      await this.projects.recordRename(
        project.id,
        project.fullPath,
        `${project.namespace.fullPath}/${changes.path}`,
        now,
      );
    await this.changed();
    const updated = (await this.projects.findById(project.id))!;
    // Another default branch may have another README.
    if (changes.defaultBranch !== undefined && changes.defaultBranch !== project.defaultBranch)
      return { ...updated, ...(await this.recordRepositoryState(updated)) };
    return (await this.withRepositoryState([updated]))[0]!;
  }

  /**
   * `PUT /projects/:id/transfer`: moves the project to another namespace (id or full path), as GitLab's
   * Projects::TransferService. The caller must be an Owner of the project (admins are) and may create projects in
   * the target: its own user namespace (any for admins) or a group where it is at least a Maintainer. Refusals of
   * the transfer itself are 400 with GitLab's message; a project whose repository is being moved (read-only) is
   * refused with the read-only error. The repository does not move on disk (its path is by id); the old full path
   * redirects to the project for the API and git until another project or group takes it.
   */
  async transfer(actor: User | null, idOrPath: string, namespaceIdOrPath: string): Promise<Project> {
    const { project } = await this.findWithLevel(actor, idOrPath, AccessLevel.Owner);
    const user = actor!;
    const target = /^\d+$/.test(namespaceIdOrPath)
      ? await this.namespaces.findById(Number(namespaceIdOrPath))
      : await this.namespaces.findByFullPath(namespaceIdOrPath);
    if (!target) throw notFound('Namespace');
    let mayCreate: boolean;
    if (target.kind === 'user') {
      // Another user's namespace is not the caller's to know of (GitLab: read_namespace).
      if (target.ownerId !== user.id && !this.access.isAdmin(user)) throw notFound('Namespace');
      mayCreate = true;
    } else {
      const level = await this.access.groupObject(user, target as Group, AccessLevel.None, 'Namespace');
      // GitLab's transfer_projects: Maintainer with project creation in the group (svc's creation level).
      mayCreate = level >= AccessLevel.Maintainer;
    }
    if (project.repositoryReadOnly) throw readOnlyError();
    if (target.id === project.namespace.id) throw transferError('Project is already in this namespace.');
    if (!mayCreate)
      throw transferError("You don't have permission to transfer projects into that namespace.");
    const outcome = await this.projects.transfer(
      project.id,
      {
        namespaceId: target.id,
        fullPath: target.fullPath,
        visibility: target.visibility,
        isUserNamespace: target.kind === 'user',
      },
      this.clock.now().toISOString(),
    );
    if (outcome === 'gone') throw notFound('Project');
    if (outcome === 'read_only') throw readOnlyError();
    if (outcome === 'taken')
      throw transferError('Project with same name or path in target namespace already exists');
    await this.changed();
    const moved = (await this.projects.findById(project.id))!;
    return (await this.withRepositoryState([moved]))[0]!;
  }

  async delete(actor: User | null, idOrPath: string): Promise<void> {
    const { project } = await this.findWithLevel(actor, idOrPath, AccessLevel.Owner);
    if (project.repositoryReadOnly) throw readOnlyError();
    await this.members.deleteAllOf({ type: 'project', id: project.id });
    await this.projects.delete(project.id);
    await this.repos.remove('project', project.id, project.repositoryStorage);
    await this.avatars.remove('project', project.id);
    await this.changed();
  }

  /** A visible project's users (`GET /projects/:id/users`): members, inherited ones and its namespace's owner. */
  async users(
    actor: User | null,
    idOrPath: string,
    filter: { search?: string; skip?: readonly number[] },
    page: PageRequest,
  ): Promise<Paged<User>> {
    const { project } = await this.find(actor, idOrPath);
    return this.members.projectUsers(project, filter, page);
  }

  /**
   * A visible project's groups (`GET /projects/:id/groups`): the groups it is in, nearest last, that the caller
   * may see; `search` matches name or path, `skipGroups` leaves groups out. svc has no sharing with groups, so
   * there are no shared groups to add.
   */
  async groups(
    actor: User | null,
    idOrPath: string,
    filter: { search?: string; skipGroups?: readonly number[] },
    page: PageRequest,
  ): Promise<Paged<Group>> {
    const { project } = await this.find(actor, idOrPath);
    if (project.namespace.kind !== 'group') return { items: [], total: 0 };
    const term = filter.search?.toLowerCase();
    const skip = new Set(filter.skipGroups ?? []);
    const visible: Group[] = [];
    for (const g of await this.namespaces.ancestry(project.namespace)) {
      if (g.kind !== 'group' || skip.has(g.id)) continue;
      if (term && !g.name.toLowerCase().includes(term) && !g.path.toLowerCase().includes(term)) continue;
      const level = await this.permissions.groupLevel(actor, g);
      if (this.permissions.canSeeGroup(actor, g, level)) visible.push(g as Group);
    }
    visible.sort((a, b) => a.id - b.id);
    const start = (page.page - 1) * page.perPage;
    return { items: visible.slice(start, start + page.perPage), total: visible.length };
  }

  /** Where a project's repository is (`GET /projects/:id/storage`): admins only, then 404 for a missing project. */
  async storage(actor: User | null, idOrPath: string): Promise<Project> {
    this.access.admin(actor);
    return (await this.find(actor, idOrPath)).project;
  }

  /** The caller's standing for the project members API. */
  async memberAccess(actor: User | null, idOrPath: string): Promise<SourceAccess & { project: Project }> {
    const { project, level } = await this.find(actor, idOrPath);
    return {
      project,
      source: { type: 'project', id: project.id },
      level,
      manageLevel: AccessLevel.Maintainer,
      inherited: await this.permissions.inheritedSources(project.namespace, false),
    };
  }
}

const description = (input: CreateProjectInput) => input.description ?? '';

/** The README.md a project made with `initialize_with_readme` starts with: its name and description, as GitLab's. */
function readmeFor(name: string, text: string): string {
  return `# ${name}\n\n${text.trim() === '' ? 'This project was created with a README.' : text.trim()}\n`;
}
