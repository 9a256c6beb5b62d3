import { type Kysely, type SqlBool, sql } from 'kysely';
import { readCount, readTimestamp } from '../db/dialect.js';
import { containsText } from '../db/like.js';
import { fetchPage } from '../db/pagination.js';
import type { Database } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import { toUser } from '../users/user-row.js';
import type { User } from '../users/users.js';
import type { Member, MemberSource } from './members.js';

/** Memberships of users in groups (namespaces) and projects. */
export class MembersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private select(source: MemberSource) {
    return this.db
      .selectFrom('members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .selectAll('u')
      .select([
        'm.access_level',
        'm.expires_at as m_expires_at',
        'm.created_at as m_created_at',
        'm.created_by_id',
      ])
      .where('m.source_type', '=', source.type)
      .where('m.source_id', '=', source.id);
  }

  private static toMember(row: {
    access_level: number;
    m_expires_at: string | null;
    m_created_at: string | Date;
    created_by_id: number | null;
  }): Omit<Member, 'user'> {
    return {
      accessLevel: row.access_level,
      expiresAt: row.m_expires_at,
      createdAt: readTimestamp(row.m_created_at),
      createdById: row.created_by_id,
    };
  }

  async list(source: MemberSource, page: PageRequest, query?: string): Promise<Paged<Member>> {
    let base = this.select(source);
    if (query) {
      base = base.where(nameOrUsernameContains(query));
    }
    const [rows, total] = await Promise.all([
      base
        .orderBy('u.id', 'asc')
        .limit(page.perPage)
        .offset((page.page - 1) * page.perPage)
        .execute(),
      this.db
        .selectFrom(base.as('sub'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst(),
    ]);
    return {
      items: rows.map((r) => ({ user: toUser(r), ...MembersRepository.toMember(r) })),
      total: readCount(total?.n as string | number | undefined),
    };
  }

  /**
   * Members of any of `sources`, one per user: the membership with the highest access level, on a tie the one of
   * the earliest source in the list. Ordered by user id; `userId` narrows to one user.
   */
  async listAll(
    sources: readonly MemberSource[],
    page: PageRequest,
    query?: string,
    userId?: number,
  ): Promise<Paged<Member>> {
    let q = this.db
      .selectFrom('members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .selectAll('u')
      .select([
        'm.source_type',
        'm.source_id',
        'm.access_level',
        'm.expires_at as m_expires_at',
        'm.created_at as m_created_at',
        'm.created_by_id',
      ])
      .where((eb) =>
        eb.or(sources.map((s) => eb.and([eb('m.source_type', '=', s.type), eb('m.source_id', '=', s.id)]))),
      );
    if (userId !== undefined) q = q.where('m.user_id', '=', userId);
    if (query) {
      q = q.where(nameOrUsernameContains(query));
    }
    // The memberships of one source chain (a project and its groups) are few; the choice per user is made here.
    const rank = (r: { source_type: string; source_id: number }) =>
      sources.findIndex((s) => s.type === r.source_type && s.id === r.source_id);
    const best = new Map<number, Awaited<ReturnType<typeof q.execute>>[number]>();
    for (const r of await q.execute()) {
      const seen = best.get(r.id);
      if (
        !seen ||
        r.access_level > seen.access_level ||
        (r.access_level === seen.access_level && rank(r) < rank(seen))
      )
        best.set(r.id, r);
    }
    const all = [...best.values()].sort((a, b) => a.id - b.id);
    return {
      items: all
        .slice((page.page - 1) * page.perPage, page.page * page.perPage)
        .map((r) => ({ user: toUser(r), ...MembersRepository.toMember(r) })),
      total: all.length,
    };
  }

  async find(source: MemberSource, userId: number): Promise<Member | null> {
    const r = await this.select(source).where('m.user_id', '=', userId).executeTakeFirst();
    return r ? { user: toUser(r), ...MembersRepository.toMember(r) } : null;
  }

  async insert(
    source: MemberSource,
    m: { userId: number; accessLevel: number; expiresAt: string | null; createdById: number | null },
    now: string,
  ): Promise<void> {
    await this.db
      .insertInto('members')
      .values({
        source_type: source.type,
        source_id: source.id,
        user_id: m.userId,
        access_level: m.accessLevel,
        expires_at: m.expiresAt,
        created_by_id: m.createdById,
        created_at: now,
      })
      .execute();
  }

  async update(
    source: MemberSource,
    userId: number,
    patch: { accessLevel?: number; expiresAt?: string | null },
  ) {
    await this.db
      .updateTable('members')
      .set({
        ...(patch.accessLevel !== undefined && { access_level: patch.accessLevel }),
        ...(patch.expiresAt !== undefined && { expires_at: patch.expiresAt }),
      })
      .where('source_type', '=', source.type)
      .where('source_id', '=', source.id)
      .where('user_id', '=', userId)
      .execute();
  }

  async delete(source: MemberSource, userId: number): Promise<void> {
    await this.db
      .deleteFrom('members')
      .where('source_type', '=', source.type)
      .where('source_id', '=', source.id)
      .where('user_id', '=', userId)
      .execute();
  }

  /**
   * Active users with at least `minLevel` in any of `sources` (unexpired memberships), each once, plus `ownerId`
   * (the owner of a personal project's namespace, an Owner without a membership row).
   */
  async membersAtLeast(
    sources: readonly MemberSource[],
    minLevel: number,
    today: string,
    ownerId: number | null = null,
  ): Promise<{ id: number; email: string }[]> {
    const owner =
      ownerId === null
        ? []
        : await this.db
            .selectFrom('users')
            .select(['id', 'email'])
            .where('id', '=', ownerId)
            .where('state', '=', 'active')
            .execute();
    if (sources.length === 0) return owner;
    const rows = await this.db
      .selectFrom('members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email'])
      .where((eb) =>
        eb.or(sources.map((s) => eb.and([eb('m.source_type', '=', s.type), eb('m.source_id', '=', s.id)]))),
      )
      .where('m.access_level', '>=', minLevel)
      .where('u.state', '=', 'active')
      .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>=', today)]))
      .orderBy('u.id')
      .execute();
    const seen = new Map<number, string>();
    for (const r of [...owner, ...rows]) seen.set(r.id, r.email);
    return [...seen].map(([id, email]) => ({ id, email }));
  }

  /**
   * The users with unexpired memberships in any of `sources`, and `ownerId` (a personal namespace's owner), each
   * once in id order: a project's users (GitLab's `project.team.users`). `search` matches name or username,
   * `skip` leaves users out.
   */
  async usersOf(
    sources: readonly MemberSource[],
    ownerId: number | null,
    today: string,
    filter: { search?: string; skip?: readonly number[] },
    page: PageRequest,
  ): Promise<Paged<User>> {
    let base = this.db.selectFrom('users as u').where((eb) => {
      const member = eb.exists(
        eb
          .selectFrom('members as m')
          .select('m.user_id')
          .whereRef('m.user_id', '=', 'u.id')
          .where((e) =>
            e.or(sources.map((s) => e.and([e('m.source_type', '=', s.type), e('m.source_id', '=', s.id)]))),
          )
          .where((e) => e.or([e('m.expires_at', 'is', null), e('m.expires_at', '>', today)])),
      );
      return ownerId === null ? member : eb.or([member, eb('u.id', '=', ownerId)]);
    });
    if (filter.search) base = base.where(nameOrUsernameContains(filter.search));
    if (filter.skip && filter.skip.length > 0) base = base.where('u.id', 'not in', filter.skip);
    const { rows, total } = await fetchPage(base, (q) => q.selectAll('u').orderBy('u.id', 'asc'), page);
    return { items: rows.map(toUser), total };
  }

  async deleteSource(source: MemberSource): Promise<void> {
    await this.db
      .deleteFrom('members')
      .where('source_type', '=', source.type)
      .where('source_id', '=', source.id)
      .execute();
  }

  async countOwners(source: MemberSource): Promise<number> {
    const r = await this.db
      .selectFrom('members')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('source_type', '=', source.type)
      .where('source_id', '=', source.id)
      .where('access_level', '>=', 50)
      .executeTakeFirst();
    return readCount(r?.n as string | number | undefined);
  }

  /** A user's memberships (unexpired), as source and level. */
  async ofUser(
    userId: number,
    today: string,
  ): Promise<{ type: 'namespace' | 'project'; id: number; level: number }[]> {
    const rows = await this.db
      .selectFrom('members')
      .select(['source_type', 'source_id', 'access_level'])
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
      .execute();
    return rows.map((r) => ({
      type: r.source_type === 'project' ? 'project' : 'namespace',
      id: r.source_id,
      level: r.access_level,
    }));
  }
}

/** The members search: the user's username or name contains `query`, literally. */
function nameOrUsernameContains(query: string) {
  return sql<SqlBool>`(${containsText(sql.ref('u.username'), query)} OR ${containsText(sql.ref('u.name'), query)})`;
}
