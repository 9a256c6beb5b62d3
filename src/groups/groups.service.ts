import type { AvatarStore } from '../avatars/avatar-store.js';
import { checkAvatar, imageType, type UploadedFile } from '../avatars/avatars.js';
import type { Clock } from '../clock.js';
import { conflict, invalidFields, notFound, readOnlyError } from '../errors.js';
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
import { VISIBILITIES, type Visibility } from '../visibility.js';
import type { GroupDeletionRepository, TreeRepository } from './group-deletion.repository.js';

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
    private readonly members: Pick<MembersService, 'memberships' | 'addOwner'>,
    private readonly permissions: PermissionsService,
    private readonly access: Access,
    private readonly settings: SettingsService,
    private readonly pickStorage: () => Promise<string>,
    private readonly repos: GroupRepositories,
    private readonly clock: Clock,
    private readonly deletion: GroupDeletionRepository,
    private readonly jobs: JobQueue,
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
    const visibility = input.visibility ?? (await this.settings.get()).default_group_visibility;
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
      /** A new avatar; `null` removes it. */
      avatar?: UploadedFile | null;
    },
  ): Promise<Group> {
    const { group, level } = await this.find(actor, idOrPath);
    this.access.forbidBelow(level, AccessLevel.Owner);
    if (patch.visibility !== undefined && !VISIBILITIES.includes(patch.visibility)) {
      throw invalidFields({ visibility: ['is not included in the list'] });
    }
    if (patch.name !== undefined && patch.name.trim() === '')
      throw invalidFields({ name: ["can't be blank"] });
    const { avatar: upload, ...changes } = patch;
    const avatar = upload ? checkAvatar(upload) : null;
    if (upload && avatar) await this.avatars.save('group', group.id, avatar.name, upload.data);
    await this.namespaces.update(group.id, changes, this.clock.now().toISOString());
    if (upload !== undefined) {
      await this.namespaces.setAvatar(group.id, avatar?.name ?? null);
      await this.avatars.keepOnly('group', group.id, avatar?.name ?? null);
    }
    return (await this.namespaces.findById(group.id)) as Group;
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
