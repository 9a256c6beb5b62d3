import type { AvatarStore } from '../avatars/avatar-store.js';
import { checkAvatar, imageType, type UploadedFile } from '../avatars/avatars.js';
import type { Clock } from '../clock.js';
import { conflict, forbidden, invalidFields, notFound, paramError, readOnlyError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService, SourceAccess } from '../members/members.service.js';
import type { PermissionsService } from '../members/permissions.service.js';
import type { Group, Namespace } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { KeysetRequest, Paged, PageRequest } from '../pagination.js';
import { PATH_PATTERN, pathFromName } from '../paths.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';
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

/** Picks a storage for a new repository (weights from application settings). */
export type StoragePicker = () => Promise<string>;

/** Projects: creation in user or group namespaces, lookup by id or path, visibility and roles. */
export class ProjectsService {
  private readonly listeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly projects: ProjectsRepository,
    private readonly namespaces: NamespacesService,
    private readonly members: Pick<MembersService, 'deleteAllOf'>,
    private readonly permissions: PermissionsService,
    private readonly access: Access,
    private readonly settings: SettingsService,
    private readonly storages: { names: readonly string[]; pick: StoragePicker },
    private readonly repos: RepositoryLifecycle,
    private readonly avatars: AvatarStore,
    private readonly clock: Clock,
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
    const project = await this.lookup(fullPath);
    // A project with the Monitor feature disabled does not take alerts.
    return project?.monitorEnabled ? project : null;
  }

  /** A project by numeric id or full path, whoever may see it (the access policy's finder). */
  async lookup(idOrPath: string): Promise<Project | null> {
    if (/^\d+$/.test(idOrPath)) return this.projects.findById(Number(idOrPath));
    const slash = idOrPath.lastIndexOf('/');
    if (slash <= 0) return null;
    const ns = await this.namespaces.findByFullPath(idOrPath.slice(0, slash));
    return ns ? this.projects.findByPath(ns, idOrPath.slice(slash + 1)) : null;
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
    const visibility = input.visibility ?? (await this.settings.get()).default_project_visibility;
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
    return (await this.projects.findById(id))!;
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
    await this.validate(project.namespace.id, { name: input.name, path: input.path }, project.id);
    const { avatar: upload, ...changes } = input;
    const avatar = upload ? checkAvatar(upload) : null;
    if (upload && avatar) await this.avatars.save('project', project.id, avatar.name, upload.data);
    await this.projects.update(project.id, changes, this.clock.now().toISOString());
    if (upload !== undefined) {
      await this.projects.setAvatar(project.id, avatar?.name ?? null);
      await this.avatars.keepOnly('project', project.id, avatar?.name ?? null);
    }
    await this.changed();
    const updated = (await this.projects.findById(project.id))!;
    // Another default branch may have another README.
    if (changes.defaultBranch !== undefined && changes.defaultBranch !== project.defaultBranch)
      return { ...updated, ...(await this.recordRepositoryState(updated)) };
    return (await this.withRepositoryState([updated]))[0]!;
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
