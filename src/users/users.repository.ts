import { type Kysely, type Selectable, sql } from 'kysely';
import { readBool, readCount, readNullableTimestamp, readTimestamp, writeBool } from '../db/dialect.js';
import { containsText } from '../db/like.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, PersonalAccessTokensTable } from '../db/schema.js';
import type { KeysetRequest, Paged, PageRequest } from '../pagination.js';
import { toUser } from './user-row.js';
import type { BotSource, PersonalAccessToken, TokenScope, User, UserOrder, UserState } from './users.js';

function toToken(row: Selectable<PersonalAccessTokensTable>): PersonalAccessToken {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as TokenScope[],
    expiresAt: row.expires_at,
    revoked: readBool(row.revoked),
    impersonation: readBool(row.impersonation),
    createdAt: readTimestamp(row.created_at),
    lastUsedAt: readNullableTimestamp(row.last_used_at),
  };
}

export interface NewUser {
  username: string;
  name: string;
  email: string;
  passwordDigest: string | null;
  admin: boolean;
  privateProfile: boolean;
  bio?: string;
  botSource?: BotSource | null;
  projectsLimit: number;
}

export interface UserFilter {
  username?: string;
  search?: string;
  /** Whether `search` also finds a user by the whole private e-mail address (admins only). */
  searchEmails?: boolean;
  active?: boolean;
  blocked?: boolean;
  banned?: boolean;
  admins?: boolean;
  /** Leaves out bot users (of project and group access tokens). */
  humans?: boolean;
}

/** Users, their personal access tokens and web sessions. */
export class UsersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(u: NewUser, now: string): Promise<User> {
    const row = await this.db
      .insertInto('users')
      .values({
        username: u.username,
        name: u.name,
        email: u.email,
        password_digest: u.passwordDigest,
        admin: writeBool(u.admin),
        state: 'active',
        private_profile: writeBool(u.privateProfile),
        bio: u.bio ?? '',
        bot_source_type: u.botSource?.type ?? null,
        bot_source_id: u.botSource?.id ?? null,
        projects_limit: u.projectsLimit,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toUser(row);
  }

  async findById(id: number): Promise<User | null> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByUsername(username: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(username)`, '=', username.toLowerCase())
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  /** The user whose e-mail is `email`, compared without case (e-mails are unique so). */
  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByLogin(
    login: string,
  ): Promise<{ user: User; passwordDigest: string | null; lockedAt: string | null } | null> {
    const l = login.toLowerCase();
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb.or([eb(sql`lower(username)`, '=', l), eb(sql`lower(email)`, '=', l)]))
      .executeTakeFirst();
    return row
      ? {
          user: toUser(row),
          passwordDigest: row.password_digest,
          lockedAt: readNullableTimestamp(row.locked_at),
        }
      : null;
  }

  // Sign-in lockout (GitLab's Devise lockable)

  /** Unlocks an account whose lock started at or before `cutoff` (the lock has run out). */
  async unlockExpired(id: number, cutoff: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ failed_attempts: 0, locked_at: null })
      .where('id', '=', id)
      .where('locked_at', 'is not', null)
      .where('locked_at', '<=', cutoff)
      .execute();
  }

  /**
   * Reserves one password attempt before the password is checked, atomically: returns the attempt's number
   * since the last success, or null when the account is locked. Reserving first keeps concurrent guesses within
   * the limit (PostgreSQL re-checks `locked_at IS NULL` on the row it waited for; SQLite has one writer).
   */
  async reserveAttempt(id: number): Promise<number | null> {
    const row = await this.db
      .updateTable('users')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('id', '=', id)
      .where('locked_at', 'is', null)
      .returning('failed_attempts')
      .executeTakeFirst();
    return row ? Number(row.failed_attempts) : null;
  }

  /** Locks an account (its attempts reached the limit), unless it is locked already. */
  async lock(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ locked_at: now })
      .where('id', '=', id)
      .where('locked_at', 'is', null)
      .execute();
  }

  /** Clears failed attempts and any lock (a successful sign-in, a password reset). */
  async clearAttempts(id: number): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ failed_attempts: 0, locked_at: null })
      .where('id', '=', id)
      .execute();
  }

  async existsWith(field: 'username' | 'email', value: string, exceptId?: number): Promise<boolean> {
    let q = this.db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(${sql.ref(field)})`, '=', value.toLowerCase());
    if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return readCount(r?.n as string | number | undefined);
  }

  /** Active people (bots left out), GitLab's count of a license's users. */
  async countActiveHumans(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('state', '=', 'active')
      .where('bot_source_type', 'is', null)
      .executeTakeFirst();
    return readCount(r?.n as string | number | undefined);
  }

  /** When the first user (the instance's administrator) was created: when the instance was set up. */
  async firstCreatedAt(): Promise<string | null> {
    const row = await this.db
      .selectFrom('users')
      .select('created_at')
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
    return row ? readTimestamp(row.created_at) : null;
  }

  private filtered(f: UserFilter) {
    let q = this.db.selectFrom('users');
    if (f.username) q = q.where(sql`lower(username)`, '=', f.username.toLowerCase());
    if (f.search) {
      const term = f.search;
      // GitLab's User.search: name and username contain the term; the private e-mail only equals it, and only
      // for an admin (a substring of it let anyone recover an address a few characters at a time).
      q = q.where((eb) =>
        eb.or([
          containsText(sql.ref('username'), term),
          containsText(sql.ref('name'), term),
          ...(f.searchEmails ? [eb(sql`lower(email)`, '=', term.toLowerCase())] : []),
        ]),
      );
    }
    if (f.active) q = q.where('state', '=', 'active');
    if (f.blocked) q = q.where('state', '=', 'blocked');
    if (f.banned) q = q.where('state', '=', 'banned');
    if (f.humans) q = q.where('bot_source_type', 'is', null);
    if (f.admins) q = q.where('admin', '=', writeBool(true));
    return q;
  }

  async list(f: UserFilter, order: UserOrder, sort: 'asc' | 'desc', page: PageRequest): Promise<Paged<User>> {
    const base = this.filtered(f);
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy(order, sort).orderBy('id', sort),
      page,
    );
    return { items: rows.map(toUser), total };
  }

  /** Keyset page: rows strictly after `after` in (order column, id) order. */
  async listKeyset(f: UserFilter, k: KeysetRequest<UserOrder>): Promise<User[]> {
    let q = this.filtered(f).selectAll();
    if (k.after) {
      const { value, id } = k.after;
      const op = k.sort === 'asc' ? '>' : '<';
      q =
        k.orderBy === 'id'
          ? q.where('id', op, id)
          : q.where((eb) =>
              eb.or([
                eb(k.orderBy, op, value as string),
                eb.and([eb(k.orderBy, '=', value as string), eb('id', op, id)]),
              ]),
            );
    }
    const rows = await q.orderBy(k.orderBy, k.sort).orderBy('id', k.sort).limit(k.limit).execute();
    return rows.map(toUser);
  }

  /** The raw ordering value of a user row, for building keyset cursors. */
  async orderValue(id: number, orderBy: UserOrder): Promise<string | number | null> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    const v = row[orderBy];
    return v instanceof Date ? v.toISOString() : (v as string | number);
  }

  async update(
    id: number,
    patch: Partial<{
      name: string;
      username: string;
      email: string;
      passwordDigest: string;
      admin: boolean;
      privateProfile: boolean;
      state: UserState;
      bio: string;
      projectsLimit: number;
      avatar: string | null;
    }>,
    now: string,
  ): Promise<User | null> {
    const row = await this.db
      .updateTable('users')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.username !== undefined && { username: patch.username }),
        ...(patch.email !== undefined && { email: patch.email }),
        ...(patch.passwordDigest !== undefined && { password_digest: patch.passwordDigest }),
        ...(patch.admin !== undefined && { admin: writeBool(patch.admin) }),
        ...(patch.privateProfile !== undefined && { private_profile: writeBool(patch.privateProfile) }),
        ...(patch.state !== undefined && { state: patch.state }),
        ...(patch.bio !== undefined && { bio: patch.bio }),
        ...(patch.projectsLimit !== undefined && { projects_limit: patch.projectsLimit }),
        ...(patch.avatar !== undefined && { avatar: patch.avatar }),
        updated_at: now,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('users').where('id', '=', id).execute();
  }

  // Personal access tokens

  async insertToken(
    t: {
      userId: number;
      name: string;
      digest: string;
      scopes: readonly TokenScope[];
      expiresAt: string | null;
      impersonation?: boolean;
    },
    now: string,
    db: Kysely<Database> = this.db,
  ): Promise<PersonalAccessToken> {
    const row = await db
      .insertInto('personal_access_tokens')
      .values({
        user_id: t.userId,
        name: t.name,
        token_digest: t.digest,
        scopes: JSON.stringify(t.scopes),
        expires_at: t.expiresAt,
        revoked: writeBool(false),
        impersonation: writeBool(t.impersonation ?? false),
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toToken(row);
  }

  /**
   * Revokes a token and inserts its successor in one transaction; null (nothing written) when the token was
   * revoked meanwhile, so two rotations of one token cannot both succeed.
   */
  async rotateToken(
    oldId: number,
    next: Parameters<UsersRepository['insertToken']>[0],
    now: string,
  ): Promise<PersonalAccessToken | null> {
    return this.db.transaction().execute(async (trx) => {
      const revoked = await trx
        .updateTable('personal_access_tokens')
        .set({ revoked: writeBool(true) })
        .where('id', '=', oldId)
        .where('revoked', '=', writeBool(false))
        .executeTakeFirst();
      if (Number(revoked.numUpdatedRows) !== 1) return null;
      return this.insertToken(next, now, trx);
    });
  }

  /** The tokens of the given users (bots of one project or group), newest last. */
  async listTokensOf(userIds: readonly number[], page: PageRequest): Promise<Paged<PersonalAccessToken>> {
    if (userIds.length === 0) return { items: [], total: 0 };
    const base = this.db
      .selectFrom('personal_access_tokens')
      .where('user_id', 'in', userIds)
      .where('impersonation', '=', writeBool(false));
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'asc'), page);
    return { items: rows.map(toToken), total };
  }

  /** The active bot users of a project or group (a revoked access token's bot is blocked). */
  async botsOf(source: BotSource): Promise<User[]> {
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .where('bot_source_type', '=', source.type)
      .where('bot_source_id', '=', source.id)
      .where('state', '=', 'active')
      .orderBy('id')
      .execute();
    return rows.map(toUser);
  }

  async findTokenByDigest(d: string): Promise<{ token: PersonalAccessToken; digest: string } | null> {
    const row = await this.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('token_digest', '=', d)
      .executeTakeFirst();
    return row ? { token: toToken(row), digest: row.token_digest } : null;
  }

  async findToken(id: number): Promise<PersonalAccessToken | null> {
    const row = await this.db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toToken(row) : null;
  }

  async listTokens(
    userId: number | null,
    page: PageRequest,
    impersonation?: boolean,
    state?: 'active' | 'inactive',
    today?: string,
  ): Promise<Paged<PersonalAccessToken>> {
    let base = this.db.selectFrom('personal_access_tokens');
    if (userId !== null) base = base.where('user_id', '=', userId);
    if (impersonation !== undefined) base = base.where('impersonation', '=', writeBool(impersonation));
    if (state !== undefined && today !== undefined) {
      // Active: not revoked and not past its expiry date (GitLab's `active` scope).
      base =
        state === 'active'
          ? base
              .where('revoked', '=', writeBool(false))
              .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
          : base.where((eb) => eb.or([eb('revoked', '=', writeBool(true)), eb('expires_at', '<=', today)]));
    }
    const { rows, total } = await fetchPage(base, (q) => q.selectAll().orderBy('id', 'asc'), page);
    return { items: rows.map(toToken), total };
  }

  async revokeToken(id: number): Promise<void> {
    await this.db
      .updateTable('personal_access_tokens')
      .set({ revoked: writeBool(true) })
      .where('id', '=', id)
      .execute();
  }

  async touchToken(id: number, now: string): Promise<void> {
    await this.db
      .updateTable('personal_access_tokens')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .execute();
  }

  // Web sessions

  async insertSession(
    s: { digest: string; csrfToken: string; userId: number; expiresAt: string },
    now: string,
  ) {
    await this.db
      .insertInto('sessions')
      .values({
        token_digest: s.digest,
        csrf_token: s.csrfToken,
        user_id: s.userId,
        expires_at: s.expiresAt,
        created_at: now,
      })
      .execute();
  }

  async findSession(d: string): Promise<{ userId: number; csrfToken: string; expiresAt: string } | null> {
    const row = await this.db
      .selectFrom('sessions')
      .selectAll()
      .where('token_digest', '=', d)
      .executeTakeFirst();
    return row
      ? { userId: row.user_id, csrfToken: row.csrf_token, expiresAt: readTimestamp(row.expires_at) }
      : null;
  }

  async deleteSession(d: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_digest', '=', d).execute();
  }

  /** Ends every session of a user, except the one with digest `keep` (if given). */
  async deleteSessionsOf(userId: number, keep: string | null): Promise<void> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keep !== null) q = q.where('token_digest', '!=', keep);
    await q.execute();
  }
}
