import type { AvatarStore } from '../avatars/avatar-store.js';
import { checkAvatar, imageType, type UploadedFile } from '../avatars/avatars.js';
import type { Clock } from '../clock.js';
import { conflict, invalidFields, notFound, plainError, readOnlyError } from '../errors.js';
import type { JobQueue } from '../jobs/queue.js';
import { AccessLevel } from '../members/members.js';
import type { MembersService, SourceAccess } from '../members/members.service.js';
import { PermissionsService } from '../members/permissions.service.js';
import type { Group, Namespace } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import { PATH_PATTERN, pathFromName } from '../paths.js';
import type { Access } from '../projects/access.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { User } from '../users/users.js';
import { assertVisibilityAllowed, VISIBILITIES, type Visibility } from '../visibility.js';
import type { GroupDeletionRepository, TreeRepository } from './group-deletion.repository.js';
import type { GroupTransferRepository } from './group-transfer.repository.js';

/** Deletes a group with its subgroups and projects (GitLab answers 202 and does it in the background). */
export const GROUP_DELETE_JOB = 'group.delete';
/** Removes the repositories of deleted rows; enqueued in the transaction that deleted them. */
export const REPOSITORIES_REMOVE_JOB = 'repositories.remove';

export interface CreateGroupInput {
  name: string;
  path?: string;
  parentId?: number;
  visibility?: Visibility;
  description?: string;
  avatar?: UploadedFile;
}

const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 1, public: 2 };

/** GitLab's answer to a refused group transfer: 400 `Transfer failed: <reason>`. */
const transferFailed = (reason: string) => plainError('bad_request', `Transfer failed: ${reason}`);

/**
 * Creates and removes repositories on disk: a new group's wiki, and when a tree is deleted every repository in it.
 * The git adapter implements it (the composition root passes it); declared here so groups need not import projects.
 */
export interface GroupRepositories {
  create(kind: 'group', id: number, storage: string): Promise<void>;
  remove(kind: 'project' | 'snippet' | 'group', id: number, storage: string): Promise<void>;
}

/** Groups: nested namespaces with members. */
export class GroupsService {
  constructor(
    private readonly namespaces: NamespacesService,
    private readonly members: Pick<MembersService, 'memberships' | 'addOwner' | 'listAllOf'>,
    private readonly permissions: PermissionsService,
    private readonly access: Access,
    private readonly settings: SettingsService,
    private readonly pickStorage: () => Promise<string>,
    private readonly repos: GroupRepositories,
    private readonly clock: Clock,
    private readonly deletion: GroupDeletionRepository,
    private readonly jobs: JobQueue,
    private readonly transfers: GroupTransferRepository,
    private readonly avatars: AvatarStore,
  ) {
    jobs.register(GROUP_DELETE_JOB, async (job) =>
      this.destroy((job.payload as { groupId: number }).groupId),
    );
    jobs.register(REPOSITORIES_REMOVE_JOB, async (job) => {
      for (const r of (job.payload as { repositories: TreeRepository[] }).repositories) {
        await this.repos.remove(r.kind, r.id, r.storage);
        // The tree's projects and groups are listed by their repositories: their avatars go with them.
        if (r.kind !== 'snippet') await this.avatars.remove(r.kind, r.id);
      }
    });
  }

  /**
   * `GET /namespaces`: the caller's own namespace and the groups it is a member of (`ownedOnly`: of which it is an
   * Owner), with their subgroups; every namespace for admins (unless `ownedOnly`), as GitLab.
   */
  async listNamespaces(
    actor: User,
    opts: { search?: string; ownedOnly?: boolean; topLevelOnly?: boolean },
    page: PageRequest,
  ): Promise<Paged<Namespace>> {
    const ids =
      this.access.isAdmin(actor) && !opts.ownedOnly
        ? null
        : await this.namespaceScope(actor, opts.ownedOnly ?? false);
    return this.namespaces.listGroups(
      {
        ids,
        visibilities: [],
        search: opts.search,
        topLevelOnly: opts.topLevelOnly,
        withUserNamespaces: true,
      },
      page,
    );
  }

  /** `GET /namespaces/:id` (id or full path): 404 unless it is one of the caller's namespaces (or an admin asks). */
  async findNamespace(actor: User, idOrPath: string): Promise<Namespace> {
    const ns = /^\d+$/.test(idOrPath)
      ? await this.namespaces.findById(Number(idOrPath))
      : await this.namespaces.findByFullPath(idOrPath);
    if (!ns || (!this.access.isAdmin(actor) && !(await this.namespaceScope(actor, false)).includes(ns.id)))
      throw notFound('Namespace');
    return ns;
  }

  /**
   * Whether a namespace with `path` exists at the top level or, with `parentId`, directly in that namespace
   * (case-insensitive, as paths are), and if so the first free path with a number appended (GitLab's
   * `Namespace.clean_path`: `path1`, `path2`, ...). Any signed-in user may ask; it tells only what a sign-up or
   * a new group would learn anyway.
   */
  async namespaceExists(
    actor: User | null,
    path: string,
    parentId: number | null,
  ): Promise<{ exists: boolean; suggests: string[] }> {
    this.access.signedIn(actor);
    // A path is one segment (GitLab compares the `path` column): `a/b` is no namespace's path.
    if (path.includes('/')) return { exists: false, suggests: [] };
    let prefix = '';
    if (parentId !== null) {
      const parent = await this.namespaces.findById(parentId);
      if (!parent) return { exists: false, suggests: [] };
      prefix = `${parent.fullPath}/`;
    }
    const taken = async (p: string) => (await this.namespaces.findByFullPath(`${prefix}${p}`)) !== null;
    if (!(await taken(path))) return { exists: false, suggests: [] };
    let n = 1;
    while (await taken(`${path}${n}`)) n++;
    return { exists: true, suggests: [`${path}${n}`] };
  }

  private async namespaceScope(actor: User, ownedOnly: boolean): Promise<number[]> {
    const mine = await this.members.memberships(actor.id, this.clock.now().toISOString().slice(0, 10));
    const groupIds = mine
      .filter((m) => m.type === 'namespace' && (!ownedOnly || m.level >= AccessLevel.Owner))
      .map((m) => m.id);
    const [below, own] = await Promise.all([
      this.namespaces.withDescendants(groupIds),
      this.namespaces.findUserNamespace(actor.id),
    ]);
    return own ? [own.id, ...below] : below;
  }

  /** The caller's standing for the group members API. */
  async memberAccess(actor: User | null, idOrPath: string): Promise<SourceAccess> {
    const { group, level } = await this.find(actor, idOrPath);
    return {
      source: { type: 'namespace', id: group.id },
      level,
      manageLevel: AccessLevel.Owner,
      inherited: await this.permissions.inheritedSources(group, true),
    };
  }

  /** Finds a group by numeric id or full path, as the caller may see it; 404 otherwise. */
  async find(actor: User | null, idOrPath: string): Promise<{ group: Group; level: number }> {
    return this.access.group(actor, idOrPath);
  }

  /** A group (not a user namespace) by numeric id or full path, whoever may see it (the access policy's finder). */
  async lookup(idOrPath: string): Promise<Group | null> {
    const ns = /^\d+$/.test(idOrPath)
      ? await this.namespaces.findById(Number(idOrPath))
      : await this.namespaces.findByFullPath(idOrPath);
    return ns?.kind === 'group' ? (ns as Group) : null;
  }

  async list(
    actor: User | null,
    opts: {
      search?: string;
      topLevelOnly?: boolean;
      ownedOrMember?: boolean;
      parentId?: number;
      descendantsOf?: string;
      /** Groups to leave out (GitLab's `skip_groups`). */
      skipIds?: readonly number[];
    },
    page: PageRequest,
  ): Promise<Paged<Namespace>> {
    let ids: number[] | null = null;
    let visibilities: Visibility[] = [];
    if (!this.access.isAdmin(actor) || opts.ownedOrMember) {
      ids = actor ? (await this.permissions.membershipScope(actor)).namespaceIds : [];
      visibilities = opts.ownedOrMember ? [] : PermissionsService.openVisibilities(actor);
    }
    return this.namespaces.listGroups(
      {
        ids,
        visibilities,
        search: opts.search,
        topLevelOnly: opts.topLevelOnly,
        parentId: opts.parentId,
        descendantsOf: opts.descendantsOf,
        skipIds: opts.skipIds,
      },
      page,
    );
  }

  async create(caller: User | null, input: CreateGroupInput): Promise<Group> {
    const actor = this.access.signedIn(caller);
    const path = input.path ?? pathFromName(input.name);
    const errors: Record<string, string[]> = {};
    if (input.name.trim() === '') errors.name = ["can't be blank"];
    if (!PATH_PATTERN.test(path)) errors.path = ['can contain only letters, digits, _, - and .'];
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    let parent: Namespace | null = null;
    if (input.parentId !== undefined) {
      // GitLab's default subgroup creation level: Maintainer.
      parent = (await this.access.group(actor, String(input.parentId), AccessLevel.Maintainer)).group;
    }
    const settings = await this.settings.get();
    const visibility = input.visibility ?? settings.default_group_visibility;
    assertVisibilityAllowed(visibility, settings.restricted_visibility_levels, this.access.isAdmin(actor));
    if (parent && VISIBILITY_RANK[visibility] > VISIBILITY_RANK[parent.visibility]) {
      throw invalidFields({
        visibility_level: [
          `${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`,
        ],
      });
    }
    const avatar = input.avatar ? checkAvatar(input.avatar) : null;
    const fullPath = parent ? `${parent.fullPath}/${path}` : path;
    if (await this.namespaces.findByFullPath(fullPath))
      throw conflict('Failed to save group {:path=>["has already been taken"]}');
    const now = this.clock.now().toISOString();
    const repositoryStorage = await this.pickStorage();
    const group = await this.namespaces.insert(
      {
        kind: 'group',
        name: input.name,
        path,
        fullPath,
        parentId: parent?.id ?? null,
        ownerId: null,
        visibility,
        description: input.description ?? '',
        repositoryStorage,
      },
      now,
    );
    try {
      // The group wiki's repository.
      await this.repos.create('group', group.id, repositoryStorage);
      if (avatar && input.avatar) {
        await this.avatars.save('group', group.id, avatar.name, input.avatar.data);
        await this.namespaces.setAvatar(group.id, avatar.name);
      }
    } catch (err) {
      await this.namespaces.delete(group.id);
      await this.repos.remove('group', group.id, repositoryStorage).catch(() => undefined);
      await this.avatars.remove('group', group.id).catch(() => undefined);
      throw err;
    }
    // The creator becomes the group's Owner (admins too, as in GitLab).
    await this.members.addOwner({ type: 'namespace', id: group.id }, actor.id, now);
    await this.namespaces.claimPath(fullPath);
    return { ...group, avatar: avatar?.name ?? null } as Group;
  }

  async update(
    actor: User | null,
    idOrPath: string,
    patch: {
      name?: string;
      description?: string;
      visibility?: Visibility;
      requestAccessEnabled?: boolean;
      /** A new last segment of the path: the tree's full paths change and every old one redirects. */
      path?: string;
      /** A new avatar; `null` removes it. */
      avatar?: UploadedFile | null;
    },
  ): Promise<Group> {
    const { group, level } = await this.find(actor, idOrPath);
    this.access.forbidBelow(level, AccessLevel.Owner);
    if (patch.path !== undefined && !PATH_PATTERN.test(patch.path))
      throw invalidFields({ path: ['can contain only letters, digits, _, - and .'] });
    if (patch.visibility !== undefined && !VISIBILITIES.includes(patch.visibility)) {
      throw invalidFields({ visibility: ['is not included in the list'] });
    }
    if (patch.visibility !== undefined && patch.visibility !== group.visibility) {
      const restricted = (await this.settings.get()).restricted_visibility_levels;
      assertVisibilityAllowed(patch.visibility, restricted, this.access.isAdmin(actor));
    }
    if (patch.name !== undefined && patch.name.trim() === '')
      throw invalidFields({ name: ["can't be blank"] });
    const { avatar: upload, path, ...changes } = patch;
    const avatar = upload ? checkAvatar(upload) : null;
    // The path first: a refusal (taken, a repository being moved) changes nothing else.
    if (path !== undefined && path !== group.path) await this.changePath(group, path);
    if (upload && avatar) await this.avatars.save('group', group.id, avatar.name, upload.data);
    await this.namespaces.update(group.id, changes, this.clock.now().toISOString());
    if (upload !== undefined) {
      await this.namespaces.setAvatar(group.id, avatar?.name ?? null);
      await this.avatars.keepOnly('group', group.id, avatar?.name ?? null);
    }
    return (await this.namespaces.findById(group.id)) as Group;
  }

  /**
   * GitLab's "Change group URL": the tree moves to the same parent under another path, as a transfer does (full
   * paths rewritten in one transaction, every old one redirecting, refused while a repository in it is moved).
   */
  private async changePath(group: Group, path: string): Promise<void> {
    if (group.repositoryReadOnly) throw readOnlyError();
    const parent = group.parentId === null ? null : await this.namespaces.findById(group.parentId);
    const outcome = await this.transfers.transferTree(
      group.id,
      parent && { id: parent.id, fullPath: parent.fullPath, visibility: parent.visibility },
      this.clock.now().toISOString(),
      path,
    );
    if (outcome === 'gone') throw notFound('Group');
    if (outcome === 'read_only') throw readOnlyError();
    if (outcome === 'taken') throw invalidFields({ path: ['has already been taken'] });
    await Promise.all(this.movedListeners.map((fn) => fn()));
  }

  /** A group's uploaded avatar by the name its URL gives, for a caller who may see the group; 404 otherwise. */
  async avatarFile(
    actor: User | null,
    id: number,
    name: string,
  ): Promise<{ data: Buffer; contentType: string }> {
    const { group } = await this.find(actor, String(id));
    const data = group.avatar === name ? await this.avatars.read('group', id, name) : null;
    const contentType = data ? imageType(data) : null;
    if (!data || !contentType) throw notFound();
    return { data, contentType };
  }

  /**
   * `POST /groups/:id/transfer`: moves the group, its subgroups and their projects under another group (`parentId`)
   * or to the top level (none), as GitLab's Groups::TransferService: Owner of the group, and allowed to create a
   * subgroup in the new parent (Maintainer) or a top-level group (anyone signed in). Refusals are 400
   * `Transfer failed: <reason>` with GitLab's reasons; a tree with a repository being moved is refused with the
   * read-only error. Repositories stay on disk where they are (by id); every old path redirects (see
   * GroupTransferRepository). A group moved to the top level without an Owner of its own gets the caller as Owner.
   */
  async transfer(caller: User | null, idOrPath: string, parentId: number | undefined): Promise<Group> {
    const actor = this.access.signedIn(caller);
    const { group, level } = await this.find(actor, idOrPath);
    this.access.forbidBelow(level, AccessLevel.Owner);
    const parent = parentId === undefined ? null : (await this.access.group(actor, String(parentId))).group;
    if (!parent && group.parentId === null) throw transferFailed('Group is already a root group.');
    if (parent && parent.id === group.parentId)
      throw transferFailed('Group is already associated to the parent group.');
    if (parent && (await this.access.groupLevel(actor, parent)) < AccessLevel.Maintainer)
      throw transferFailed("You don't have enough permissions.");
    const newPath = parent ? `${parent.fullPath}/${group.path}` : group.path;
    const samePath = 'The parent group already has a subgroup or a project with the same path.';
    const there = await this.namespaces.findByFullPath(newPath);
    if (there && there.id !== group.id) throw transferFailed(samePath);
    const inside = (p: Namespace) =>
      p.id === group.id || p.fullPath.toLowerCase().startsWith(`${group.fullPath.toLowerCase()}/`);
    if (parent && inside(parent)) throw transferFailed('Cannot transfer group to one of its subgroup.');
    if (group.repositoryReadOnly) throw readOnlyError();
    const now = this.clock.now().toISOString();
    const outcome = await this.transfers.transferTree(
      group.id,
      parent && { id: parent.id, fullPath: parent.fullPath, visibility: parent.visibility },
      now,
    );
    if (outcome === 'gone') throw notFound('Group');
    if (outcome === 'read_only') throw readOnlyError();
    if (outcome === 'taken') throw transferFailed(samePath);
    if (!parent) {
      const members = await this.members.listAllOf([{ type: 'namespace', id: group.id }], {
        page: 1,
        perPage: 100,
      });
      if (!members.items.some((m) => m.accessLevel >= AccessLevel.Owner))
        await this.members.addOwner({ type: 'namespace', id: group.id }, actor.id, now);
    }
    await Promise.all(this.movedListeners.map((fn) => fn()));
    return (await this.namespaces.findById(group.id)) as Group;
  }

  private readonly movedListeners: (() => void | Promise<void>)[] = [];

  /** Registers a function called after a group's tree moved (its projects' full paths changed: caches of projects). */
  onTreeMoved(fn: () => void | Promise<void>): void {
    this.movedListeners.push(fn);
  }

  /**
   * Schedules the deletion of a group with everything in it (Owner; 202 as GitLab). The job deletes the rows in one
   * transaction and, in the same transaction, records their repositories for removal, so a crash at any point
   * leaves neither rows without repositories nor repositories forgotten on disk.
   */
  async delete(actor: User | null, idOrPath: string): Promise<void> {
    const { group, level } = await this.find(actor, idOrPath);
    this.access.forbidBelow(level, AccessLevel.Owner);
    if (group.repositoryReadOnly) throw readOnlyError();
    // No unique key: a repeated request runs the job again, and it finds the group gone.
    await this.jobs.enqueue(GROUP_DELETE_JOB, { groupId: group.id });
  }

  /** The deletion job: retried (with the queue's backoff) while a repository in the group is being moved. */
  private async destroy(groupId: number): Promise<void> {
    const outcome = await this.deletion.deleteTree(groupId, async (repositories, trx) => {
      if (repositories.length > 0)
        await this.jobs.enqueue(REPOSITORIES_REMOVE_JOB, { repositories }, { trx });
    });
    if (outcome === 'busy')
      throw new Error('a repository in the group is being moved; retried after the move');
    await Promise.all(this.deletedListeners.map((fn) => fn()));
  }

  private readonly deletedListeners: (() => void | Promise<void>)[] = [];

  /** Registers a function called after a group's tree (its projects included) was deleted (caches of projects). */
  onTreeDeleted(fn: () => void | Promise<void>): void {
    this.deletedListeners.push(fn);
  }
}
