import type { Clock } from '../clock.js';
import type { Namespace } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { User } from '../users/users.js';
import type { Visibility } from '../visibility.js';
import { AccessLevel, canSee, type MemberSource, type ProjectScope } from './members.js';
import type { MembersRepository } from './members.repository.js';

/**
 * What access to a project depends on: its id (direct memberships), its namespace (inherited ones) and its
 * visibility. Projects are above members, so a structural type rather than their Project.
 */
type ProjectSubject = { readonly id: number; readonly namespace: Namespace; readonly visibility: Visibility };

/** Computes access levels (direct and inherited from groups) and visibility. Admins are Owners everywhere. */
export class PermissionsService {
  constructor(
    private readonly members: MembersRepository,
    private readonly namespaces: Pick<
      NamespacesService,
      'ancestry' | 'withDescendants' | 'findUserNamespace'
    >,
    private readonly clock: Clock,
  ) {}

  private today(): string {
    return this.clock.now().toISOString().slice(0, 10);
  }

  /** The caller's level in a group: the highest of its memberships in the group and its ancestors. */
  async groupLevel(user: User | null, group: Namespace): Promise<number> {
    if (!user) return AccessLevel.None;
    if (user.admin) return AccessLevel.Owner;
    if (group.kind === 'user') return group.ownerId === user.id ? AccessLevel.Owner : AccessLevel.None;
    const [ancestry, mine] = await Promise.all([
      this.namespaces.ancestry(group),
      this.members.ofUser(user.id, this.today()),
    ]);
    const ids = new Set(ancestry.map((n) => n.id));
    return Math.max(
      AccessLevel.None,
      ...mine.filter((m) => m.type === 'namespace' && ids.has(m.id)).map((m) => m.level),
    );
  }

  /** The caller's level in a project: project membership, group memberships above it, or namespace ownership. */
  async projectLevel(user: User | null, project: ProjectSubject): Promise<number> {
    if (!user) return AccessLevel.None;
    if (user.admin) return AccessLevel.Owner;
    const viaNamespace = await this.groupLevel(user, project.namespace);
    const mine = await this.members.ofUser(user.id, this.today());
    const direct = mine.filter((m) => m.type === 'project' && m.id === project.id).map((m) => m.level);
    return Math.max(viaNamespace, ...direct);
  }

  /** The groups whose members inherit access to a project in `ns` or to the group `ns` itself, nearest first. */
  async inheritedSources(ns: Namespace, self: boolean): Promise<MemberSource[]> {
    if (ns.kind !== 'group') return [];
    const chain = (await this.namespaces.ancestry(ns)).reverse();
    return chain
      .filter((n) => !self || n.id !== ns.id)
      .map((n) => ({ type: 'namespace' as const, id: n.id }));
  }

  /** The caller's own memberships that reach a project: its direct one and its best through groups (null: none). */
  async projectMemberships(
    user: User | null,
    project: ProjectSubject,
  ): Promise<{ project: number | null; group: number | null }> {
    if (!user) return { project: null, group: null };
    const mine = await this.members.ofUser(user.id, this.today());
    const direct = mine.find((m) => m.type === 'project' && m.id === project.id)?.level ?? null;
    const ids = new Set(
      project.namespace.kind === 'group'
        ? (await this.namespaces.ancestry(project.namespace)).map((n) => n.id)
        : [],
    );
    const viaGroups = mine.filter((m) => m.type === 'namespace' && ids.has(m.id)).map((m) => m.level);
    return { project: direct, group: viaGroups.length > 0 ? Math.max(...viaGroups) : null };
  }

  canSeeProject(user: User | null, project: ProjectSubject, level: number): boolean {
    return user?.admin === true || canSee(project.visibility, user !== null, level);
  }

  canSeeGroup(user: User | null, group: Namespace, level: number): boolean {
    return user?.admin === true || canSee(group.visibility, user !== null, level);
  }

  /** Visibilities anyone in the caller's position may see without membership. */
  static openVisibilities(user: User | null): Visibility[] {
    return user ? ['public', 'internal'] : ['public'];
  }

  /**
   * What the caller is a member of (at `minLevel` or above): project ids, and namespace ids including its own and the
   * groups below member groups.
   */
  async membershipScope(
    user: User,
    minLevel: number = AccessLevel.Guest,
  ): Promise<{ projectIds: number[]; namespaceIds: number[] }> {
    const mine = (await this.members.ofUser(user.id, this.today())).filter((m) => m.level >= minLevel);
    const groupIds = mine.filter((m) => m.type === 'namespace').map((m) => m.id);
    const [namespaceIds, own] = await Promise.all([
      this.namespaces.withDescendants(groupIds),
      this.namespaces.findUserNamespace(user.id),
    ]);
    return {
      projectIds: mine.filter((m) => m.type === 'project').map((m) => m.id),
      namespaceIds: own ? [...namespaceIds, own.id] : namespaceIds,
    };
  }

  /** Which projects the caller may see in lists; `null` for admins (all). */
  async projectScope(user: User | null): Promise<ProjectScope | null> {
    if (user?.admin) return null;
    const visibilities = PermissionsService.openVisibilities(user);
    if (!user) return { visibilities, projectIds: [], namespaceIds: [] };
    return { visibilities, ...(await this.membershipScope(user)) };
  }
}
