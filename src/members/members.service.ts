import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import { conflict, forbidden, invalidFields, notFound } from '../errors.js';
import type { Namespace } from '../namespaces/namespaces.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import { AccessLevel, MEMBER_ACCESS_LEVELS, type Member, type MemberSource } from './members.js';
import type { MembersRepository } from './members.repository.js';
import type { PermissionsService } from './permissions.service.js';

/** A project as membership sees it (projects are above members). */
type ProjectSubject = { readonly id: number; readonly namespace: Namespace };

/** The caller's standing on a group or project, resolved by the groups or projects service. */
export interface SourceAccess {
  readonly source: MemberSource;
  readonly level: number;
  /** Level needed to manage members: Maintainer for projects, Owner for groups (GitLab's defaults). */
  readonly manageLevel: number;
  /** The groups whose members inherit access to the source: its (or its project's) ancestors, nearest first. */
  readonly inherited: readonly MemberSource[];
}

export interface MemberInput {
  userId: number;
  accessLevel: number;
  expiresAt?: string | null;
}

/** Members of groups and projects. Readers of the source may list; managers add, change and remove. */
export class MembersService {
  private readonly leftListeners: ((userId: number) => Promise<void>)[] = [];

  constructor(
    private readonly members: MembersRepository,
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly permissions: Pick<PermissionsService, 'inheritedSources'>,
    private readonly policy: InstancePolicy<User>,
    private readonly clock: Clock,
  ) {}

  /**
   * Who is a member of a project at `minLevel` or above: its own members, its groups' (inherited) and the owner of
   * its personal namespace; active users, unexpired memberships. The recipients of its e-mails, and whom an
   * escalation may page.
   */
  async membersAtLeast(project: ProjectSubject, minLevel: number): Promise<{ id: number; email: string }[]> {
    const sources: MemberSource[] = [
      { type: 'project', id: project.id },
      ...(await this.permissions.inheritedSources(project.namespace, false)),
    ];
    const owner = project.namespace.kind === 'user' ? project.namespace.ownerId : null;
    return this.members.membersAtLeast(sources, minLevel, this.today(), owner);
  }

  /**
   * A project's users (`GET /projects/:id/users`): its members, its groups' and the owner of its personal
   * namespace, each once; unexpired memberships. The caller checked that the project is visible.
   */
  async projectUsers(
    project: ProjectSubject,
    filter: { search?: string; skip?: readonly number[] },
    page: PageRequest,
  ): Promise<Paged<User>> {
    const sources: MemberSource[] = [
      { type: 'project', id: project.id },
      ...(await this.permissions.inheritedSources(project.namespace, false)),
    ];
    const owner = project.namespace.kind === 'user' ? project.namespace.ownerId : null;
    return this.members.usersOf(sources, owner, this.today(), filter, page);
  }

  /** The ids of `membersAtLeast`. */
  async memberIdsAtLeast(project: ProjectSubject, minLevel: number): Promise<Set<number>> {
    return new Set((await this.membersAtLeast(project, minLevel)).map((m) => m.id));
  }

  /**
   * Who is a member of a group at `minLevel` or above: its own members and its ancestors' (inherited); active users,
   * unexpired memberships. Whom a group's escalation policy may page.
   */
  async groupMemberIdsAtLeast(group: Namespace, minLevel: number): Promise<Set<number>> {
    const sources = await this.permissions.inheritedSources(group, false);
    return new Set(
      (await this.members.membersAtLeast(sources, minLevel, this.today(), null)).map((m) => m.id),
    );
  }

  /** The groups and projects a user is a member of (memberships expired before `today` left out). */
  memberships(
    userId: number,
    today: string,
  ): Promise<{ type: 'namespace' | 'project'; id: number; level: number }[]> {
    return this.members.ofUser(userId, today);
  }

  /** The creator of a group becomes its Owner (admins too, as in GitLab). */
  addOwner(source: MemberSource, userId: number, now: string): Promise<void> {
    return this.members.insert(
      source,
      { userId, accessLevel: AccessLevel.Owner, expiresAt: null, createdById: userId },
      now,
    );
  }

  /**
   * Makes the bot user of an access token a member at `level` (the caller checked who may: the access tokens
   * feature's rules, not the members API's).
   */
  addBot(source: MemberSource, botId: number, level: number, createdById: number): Promise<void> {
    return this.members.insert(
      source,
      { userId: botId, accessLevel: level, expiresAt: null, createdById },
      this.clock.now().toISOString(),
    );
  }

  /** A user's direct membership level in a group or project, or null. */
  async directLevel(source: MemberSource, userId: number): Promise<number | null> {
    return (await this.members.find(source, userId))?.accessLevel ?? null;
  }

  /** Removes a revoked access token's bot from its group or project. */
  removeBot(source: MemberSource, botId: number): Promise<void> {
    return this.members.delete(source, botId);
  }

  /** Removes every membership of a group or project that is being deleted. */
  deleteAllOf(source: MemberSource): Promise<void> {
    return this.members.deleteSource(source);
  }

  /** Members of the given sources, each user once (no access check: for rules that name groups). */
  listAllOf(sources: readonly MemberSource[], page: PageRequest): Promise<Paged<Member>> {
    return this.members.listAll(sources, page);
  }

  list(access: SourceAccess, page: PageRequest, query?: string): Promise<Paged<Member>> {
    return this.members.list(access.source, page, query);
  }

  /**
   * Direct and inherited members (`/members/all`): each user once, with the membership that gives the highest
   * access level (on a tie, the nearest source), as GitLab.
   */
  listAll(access: SourceAccess, page: PageRequest, query?: string): Promise<Paged<Member>> {
    return this.members.listAll([access.source, ...access.inherited], page, query);
  }

  async getAll(access: SourceAccess, userId: number): Promise<Member> {
    const [m] = (
      await this.members.listAll(
        [access.source, ...access.inherited],
        { page: 1, perPage: 1 },
        undefined,
        userId,
      )
    ).items;
    if (!m) throw notFound('Member');
    return m;
  }

  async get(access: SourceAccess, userId: number): Promise<Member> {
    const m = await this.members.find(access.source, userId);
    if (!m) throw notFound('Member');
    return m;
  }

  private check(
    actor: User,
    access: SourceAccess,
    level: number | undefined,
    expiresAt: string | null | undefined,
  ) {
    this.policy.level(actor, access.level, access.manageLevel);
    if (level !== undefined && !MEMBER_ACCESS_LEVELS.includes(level as never)) {
      throw invalidFields({ access_level: ['is not included in the list'] });
    }
    // Only Owners (and admins) may grant Owner; nobody grants above their own level.
    if (level !== undefined && !this.policy.isAdmin(actor)) this.policy.level(actor, access.level, level);
    if (expiresAt && (!/^\d{4}-\d{2}-\d{2}$/.test(expiresAt) || expiresAt <= this.today())) {
      throw invalidFields({ expires_at: ['cannot be a date in the past'] });
    }
  }

  private today(): string {
    return this.clock.now().toISOString().slice(0, 10);
  }

  async add(actor: User, access: SourceAccess, input: MemberInput): Promise<Member> {
    this.check(actor, access, input.accessLevel, input.expiresAt);
    if (!(await this.users.findById(input.userId))) throw notFound('User');
    if (await this.members.find(access.source, input.userId)) throw conflict('Member already exists');
    await this.members.insert(
      access.source,
      {
        userId: input.userId,
        accessLevel: input.accessLevel,
        expiresAt: input.expiresAt ?? null,
        createdById: actor.id,
      },
      this.clock.now().toISOString(),
    );
    return this.get(access, input.userId);
  }

  async update(
    actor: User,
    access: SourceAccess,
    input: Partial<MemberInput> & { userId: number },
  ): Promise<Member> {
    this.check(actor, access, input.accessLevel, input.expiresAt);
    const existing = await this.get(access, input.userId);
    if (!this.policy.isAdmin(actor)) this.policy.level(actor, access.level, existing.accessLevel);
    await this.guardLastOwner(access, existing, input.accessLevel);
    await this.members.update(access.source, input.userId, {
      accessLevel: input.accessLevel,
      expiresAt: input.expiresAt,
    });
    return this.get(access, input.userId);
  }

  async remove(actor: User, access: SourceAccess, userId: number): Promise<void> {
    const existing = await this.get(access, userId);
    // Anyone may leave; removing others needs the manage level and at least the member's level.
    if (userId !== actor.id) {
      this.check(actor, access, undefined, undefined);
      if (!this.policy.isAdmin(actor)) this.policy.level(actor, access.level, existing.accessLevel);
    }
    await this.guardLastOwner(access, existing, undefined);
    await this.members.delete(access.source, userId);
    for (const fn of this.leftListeners) await fn(userId);
  }

  /**
   * Called after a user is removed from a group or project (they may still be a member elsewhere): features above
   * members take what they gave them away (on-call overrides).
   */
  onLeft(fn: (userId: number) => Promise<void>): void {
    this.leftListeners.push(fn);
  }

  /** A group keeps at least one Owner. */
  private async guardLastOwner(access: SourceAccess, member: Member, newLevel: number | undefined) {
    if (access.source.type !== 'namespace' || member.accessLevel < AccessLevel.Owner) return;
    if (newLevel !== undefined && newLevel >= AccessLevel.Owner) return;
    if ((await this.members.countOwners(access.source)) <= 1) {
      throw forbidden('A group must keep at least one Owner');
    }
  }
}
