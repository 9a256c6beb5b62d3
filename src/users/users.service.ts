import { randomBytes } from 'node:crypto';
import type { InstancePolicy } from '../access/access.policy.js';
import type { AvatarStore } from '../avatars/avatar-store.js';
import { checkAvatar, imageType, type UploadedFile } from '../avatars/avatars.js';
import type { Clock } from '../clock.js';
import { digest, hashPassword, randomToken, verifyPassword } from '../crypto.js';
import {
  badRequest,
  conflict,
  forbidden,
  invalidFields,
  invalidToken,
  notFound,
  plainError,
  tooManyRequests,
  unauthorized,
} from '../errors.js';
import type { KeysetRequest, Paged, PageRequest } from '../pagination.js';
import { PATH_PATTERN } from '../paths.js';
import { currentClientAddress } from '../request-context.js';
import { type AddressLimiter, SignInLimiter } from './sign-in-limiter.js';
import {
  type BotSource,
  type CreatedToken,
  isExpired,
  type PersonalAccessToken,
  type TokenScope,
  type User,
  type UserOrder,
} from './users.js';
import type { UserFilter, UsersRepository } from './users.repository.js';

const TOKEN_PREFIX = 'svcpat-';
const SESSION_DAYS = 7;
const TOUCH_INTERVAL_MS = 60_000;
/** GitLab's expiry of a rotated token when none is given: a week after the rotation. */
const ROTATED_TOKEN_DAYS = 7;
const BLOCKED_MESSAGE = 'Your account has been blocked.';

export interface CreateUserInput {
  username: string;
  name: string;
  email: string;
  password?: string;
  admin?: boolean;
  /** `null` applies the instance default (v4 only; v5 rejects null in its schema). */
  privateProfile?: boolean | null;
  bio?: string;
  /** Personal projects the user may own; the instance's `default_projects_limit` when not given. */
  projectsLimit?: number;
  /** A new avatar; `null` removes it (the identicon is shown again). */
  avatar?: UploadedFile | null;
}

export type UpdateUserInput = Partial<Omit<CreateUserInput, 'password'>> & { password?: string };

/** A signed-in web session, as created. */
export interface NewSession {
  readonly token: string;
  readonly csrfToken: string;
  readonly user: User;
  readonly expiresAt: string;
}

/** Limits on password guessing (GitLab: 10 failures lock an account for 10 minutes). */
export interface SignInLimits {
  /** Failed attempts that lock an account. */
  readonly maxAttempts: number;
  /** How long a lock lasts, in milliseconds. */
  readonly lockMs: number;
  /** Failed attempts one client address may make per window. */
  readonly failuresPerAddress: number;
  readonly windowMs: number;
}

const DEFAULT_LIMITS: SignInLimits = {
  maxAttempts: 10,
  lockMs: 10 * 60_000,
  failuresPerAddress: 10,
  windowMs: 60_000,
};

/** The outcome of one password check. */
type PasswordCheck =
  | { readonly kind: 'ok'; readonly user: User }
  | { readonly kind: 'wrong' }
  | { readonly kind: 'locked' }
  | { readonly kind: 'limited'; readonly retryAfter: number };

/** GitLab's (Devise's) message for a locked account; the same whether or not the password was right. */
const LOCKED_MESSAGE = 'Your account is locked.';

/**
 * The personal namespaces of users, as the namespaces service keeps them. Declared here (users sit below groups
 * and settings, which name users); the composition root passes the services.
 */
export interface UserNamespaces {
  findByFullPath(fullPath: string): Promise<{ readonly id: number } | null>;
  findUserNamespace(userId: number): Promise<{ readonly id: number } | null>;
  hasChildren(id: number): Promise<boolean>;
  createUserNamespace(user: { id: number; name: string; username: string }, now: string): Promise<unknown>;
  delete(id: number): Promise<void>;
  /** Records the owner's avatar on the user's namespace (which shows it). */
  setAvatar(id: number, avatar: string | null): Promise<void>;
}

/** The application settings users read. */
export interface UserSettings {
  get(): Promise<{
    readonly user_defaults_to_private_profile: boolean;
    readonly default_projects_limit: number;
    readonly signup_enabled: boolean;
  }>;
}

/** Users, personal access tokens, sign-in and sessions. */
export class UsersService {
  private readonly limiter: AddressLimiter;

  constructor(
    private readonly users: UsersRepository,
    private readonly namespaces: UserNamespaces,
    private readonly settings: UserSettings,
    private readonly access: InstancePolicy<User>,
    private readonly avatars: AvatarStore,
    private readonly clock: Clock,
    private readonly limits: SignInLimits = DEFAULT_LIMITS,
    /** The per-address guard; in this process's memory unless the composition root shares one. */
    limiter?: AddressLimiter,
  ) {
    this.limiter =
      limiter ??
      new SignInLimiter(limits.failuresPerAddress, limits.windowMs, () => this.clock.now().getTime());
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  // Authentication

  /** Resolves a personal access token; throws 401 for unknown, revoked or expired tokens. */
  async authenticateToken(raw: string): Promise<{ user: User; token: PersonalAccessToken }> {
    const found = await this.users.findTokenByDigest(digest(raw));
    if (!found) throw unauthorized();
    const { token } = found;
    if (token.revoked) throw invalidToken('Token was revoked. You have to re-authorize from the user.');
    if (isExpired(token.expiresAt, this.clock.now())) throw invalidToken('Token has expired.');
    const user = await this.users.findById(token.userId);
    if (!user) throw unauthorized();
    // Blocked and banned users cannot use their tokens (GitLab refuses both with the same message).
    if (user.state !== 'active') throw forbidden(BLOCKED_MESSAGE);
    const now = this.clock.now();
    if (!token.lastUsedAt || now.getTime() - Date.parse(token.lastUsedAt) > TOUCH_INTERVAL_MS) {
      await this.users.touchToken(token.id, now.toISOString());
    }
    return { user, token };
  }

  /** Resolves a session cookie value; `null` when unknown or expired. */
  async authenticateSession(raw: string): Promise<{ user: User; csrfToken: string } | null> {
    const s = await this.users.findSession(digest(raw));
    if (!s || Date.parse(s.expiresAt) <= this.clock.now().getTime()) return null;
    const user = await this.users.findById(s.userId);
    if (!user || user.state !== 'active') return null;
    return { user, csrfToken: s.csrfToken };
  }

  /**
   * Checks a password with GitLab's guards against guessing, in one place for web sign-in and git Basic auth:
   * a client address with too many recent failures is refused before anything is checked; a locked account is
   * refused without checking the password (the answer does not tell whether it was right); every attempt is
   * counted before the password is checked, so concurrent guesses cannot exceed the limit; the attempt that
   * reaches the limit locks the account; a success clears the count.
   */
  private async checkAttempt(
    login: string,
    password: string,
    address: string | undefined,
  ): Promise<PasswordCheck> {
    const retryAfter = await this.limiter.retryAfter(address);
    if (retryAfter > 0) return { kind: 'limited', retryAfter };
    const found = await this.users.findByLogin(login);
    if (!found) {
      // Same work as for a real account, so timing does not tell which logins exist.
      await verifyPassword(password, null);
      await this.limiter.fail(address);
      return { kind: 'wrong' };
    }
    const now = this.clock.now();
    if (found.lockedAt !== null) {
      if (now.getTime() - Date.parse(found.lockedAt) < this.limits.lockMs) {
        await this.limiter.fail(address);
        return { kind: 'locked' };
      }
      await this.users.unlockExpired(
        found.user.id,
        new Date(now.getTime() - this.limits.lockMs).toISOString(),
      );
    }
    const attempt = await this.users.reserveAttempt(found.user.id);
    if (attempt === null || attempt > this.limits.maxAttempts) {
      if (attempt !== null) await this.users.lock(found.user.id, now.toISOString());
      await this.limiter.fail(address);
      return { kind: 'locked' };
    }
    if (attempt === this.limits.maxAttempts) await this.users.lock(found.user.id, now.toISOString());
    if (await verifyPassword(password, found.passwordDigest)) {
      await this.users.clearAttempts(found.user.id);
      return { kind: 'ok', user: found.user };
    }
    await this.limiter.fail(address);
    return attempt >= this.limits.maxAttempts ? { kind: 'locked' } : { kind: 'wrong' };
  }

  /**
   * Signs in with username or email and password; 401 with one message for every wrong login or password, 401
   * "locked" for a locked account, 429 for a client address with too many failures.
   */
  async signIn(login: string, password: string, address = currentClientAddress()): Promise<NewSession> {
    const check = await this.checkAttempt(login, password, address);
    if (check.kind === 'limited') {
      throw tooManyRequests(check.retryAfter, '429 Too Many Requests - Retry later');
    }
    if (check.kind === 'locked') throw unauthorized(LOCKED_MESSAGE);
    if (check.kind === 'wrong') throw unauthorized('Invalid login or password.');
    const { user } = check;
    if (user.state !== 'active') throw forbidden(BLOCKED_MESSAGE);
    const token = randomToken(32);
    const csrfToken = randomToken(32);
    const expiresAt = new Date(this.clock.now().getTime() + SESSION_DAYS * 86_400_000).toISOString();
    await this.users.insertSession(
      { digest: digest(token), csrfToken, userId: user.id, expiresAt },
      this.now(),
    );
    return { token, csrfToken, user, expiresAt };
  }

  /**
   * Checks a username (or email) and password, for git over HTTP; null when wrong, locked, blocked or when the
   * client address has too many failures (git shows "HTTP Basic: Access denied" for all of them).
   */
  async checkPassword(
    login: string,
    password: string,
    address = currentClientAddress(),
  ): Promise<User | null> {
    const check = await this.checkAttempt(login, password, address);
    return check.kind === 'ok' && check.user.state === 'active' ? check.user : null;
  }

  /**
   * The signed-in user's own name and e-mail (the profile page; GitLab's `/-/user_settings/profile`, which has no
   * REST form). Changing the e-mail needs no confirmation here: svc sends no confirmation mail.
   */
  async updateProfile(actor: User | null, input: { name?: string; email?: string }): Promise<User> {
    if (!actor) throw unauthorized();
    await this.validateUser({ name: input.name, email: input.email }, actor.id);
    const updated = await this.users.update(actor.id, { name: input.name, email: input.email }, this.now());
    if (!updated) throw unauthorized();
    return updated;
  }

  /**
   * Changes the signed-in user's own password after checking the current one, which counts as a sign-in attempt
   * (a stolen session cannot guess it faster than the sign-in form could). Every other session of the user ends;
   * the one making the change (`currentSession`, the raw cookie) stays.
   */
  async changeOwnPassword(
    actor: User | null,
    current: string,
    next: string,
    currentSession: string | null,
    address = currentClientAddress(),
  ): Promise<void> {
    if (!actor) throw unauthorized();
    const check = await this.checkAttempt(actor.username, current, address);
    if (check.kind === 'limited')
      throw tooManyRequests(check.retryAfter, '429 Too Many Requests - Retry later');
    // 403, not 401: the session stays valid, so the UI must not take this for a signed-out answer.
    if (check.kind === 'locked') throw forbidden(LOCKED_MESSAGE);
    if (check.kind === 'wrong') throw invalidFields({ current_password: ['is invalid'] });
    await this.validateUser({ password: next }, actor.id);
    await this.users.update(actor.id, { passwordDigest: await hashPassword(next) }, this.now());
    await this.users.deleteSessionsOf(actor.id, currentSession === null ? null : digest(currentSession));
  }

  async signOut(raw: string): Promise<void> {
    await this.users.deleteSession(digest(raw));
  }

  // Users

  private requireAdmin(actor: User | null): asserts actor is User {
    this.access.admin(actor);
  }

  private async validateUser(input: UpdateUserInput, exceptId?: number): Promise<void> {
    const errors: Record<string, string[]> = {};
    if (input.username !== undefined && !PATH_PATTERN.test(input.username)) {
      errors.username = ['can contain only letters, digits, _, - and ., and cannot start with - or .'];
    }
    if (input.email !== undefined && !/^[^@\s]+@[^@\s]+$/.test(input.email)) errors.email = ['is invalid'];
    if (input.password !== undefined && input.password.length < 8) {
      errors.password = ['is too short (minimum is 8 characters)'];
    }
    if (input.name !== undefined && input.name.trim() === '') errors.name = ["can't be blank"];
    if (
      input.projectsLimit !== undefined &&
      !(
        Number.isInteger(input.projectsLimit) &&
        input.projectsLimit >= 0 &&
        input.projectsLimit <= 2_147_483_647
      )
    ) {
      errors.projects_limit = ['must be greater than or equal to 0'];
    }
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
    if (input.username !== undefined) {
      const taken =
        (await this.users.existsWith('username', input.username, exceptId)) ||
        ((await this.namespaces.findByFullPath(input.username)) !== null && exceptId === undefined);
      if (taken) throw conflict('Username has already been taken');
    }
    if (input.email !== undefined && (await this.users.existsWith('email', input.email, exceptId))) {
      throw conflict('Email has already been taken');
    }
  }

  /** Creates a user and its personal namespace. Admin only (or the bootstrap, with `actor` = 'system'). */
  async create(actor: User | null | 'system', input: CreateUserInput): Promise<User> {
    if (actor !== 'system') this.requireAdmin(actor);
    await this.validateUser(input);
    if (input.avatar) checkAvatar(input.avatar);
    const settings = await this.settings.get();
    const privateProfile = input.privateProfile ?? settings.user_defaults_to_private_profile;
    const now = this.now();
    const user = await this.users.insert(
      {
        username: input.username,
        name: input.name,
        email: input.email,
        passwordDigest: input.password ? await hashPassword(input.password) : null,
        admin: input.admin ?? false,
        privateProfile,
        bio: input.bio ?? '',
        projectsLimit: input.projectsLimit ?? settings.default_projects_limit,
      },
      now,
    );
    await this.namespaces.createUserNamespace(user, now);
    if (input.avatar) {
      try {
        return await this.applyAvatar(user, input.avatar);
      } catch (err) {
        // Checked before the user was made, so only the disk can fail here: no user without the avatar asked for.
        const ns = await this.namespaces.findUserNamespace(user.id);
        if (ns) await this.namespaces.delete(ns.id);
        await this.users.delete(user.id);
        throw err;
      }
    }
    return user;
  }

  /**
   * Someone creates their own account, while the instance's `signup_enabled` allows it (otherwise the sign-up does
   * not exist: 404). The account is an ordinary user with the instance's defaults, as one an administrator creates.
   */
  async signUp(input: { username: string; name: string; email: string; password: string }): Promise<User> {
    if (!(await this.settings.get()).signup_enabled) throw notFound();
    return this.create('system', { ...input, admin: false });
  }

  /**
   * Stores (or with null removes) a user's avatar and records it on the user and its namespace. The file is in place
   * before a row names it; a replaced file is removed once the row names the new one.
   */
  private async applyAvatar(user: User, upload: UploadedFile | null): Promise<User> {
    const name = upload === null ? null : checkAvatar(upload).name;
    if (upload !== null && name !== null) await this.avatars.save('user', user.id, name, upload.data);
    const updated = await this.users.update(user.id, { avatar: name }, this.now());
    if (!updated) throw notFound('User');
    const ns = await this.namespaces.findUserNamespace(user.id);
    if (ns) await this.namespaces.setAvatar(ns.id, name);
    await this.avatars.keepOnly('user', user.id, name);
    return updated;
  }

  /** `PUT /user/avatar`: the signed-in user's own avatar. */
  async setOwnAvatar(caller: User | null, upload: UploadedFile): Promise<User> {
    const actor = this.access.signedIn(caller);
    checkAvatar(upload);
    return this.applyAvatar(actor, upload);
  }

  /** A user's uploaded avatar by the name its URL gives (user avatars are public, as in GitLab); 404 otherwise. */
  async avatarFile(id: number, name: string): Promise<{ data: Buffer; contentType: string }> {
    const user = await this.users.findById(id);
    const data = user?.avatar === name ? await this.avatars.read('user', id, name) : null;
    const contentType = data ? imageType(data) : null;
    if (!data || !contentType) throw notFound();
    return { data, contentType };
  }

  /**
   * Updates a user (admin). A new password ends all of the user's sessions and clears any lock, except the
   * session making the change (`currentSession`, the raw cookie) when admins change their own password.
   */
  async update(
    actor: User | null,
    id: number,
    input: UpdateUserInput,
    currentSession: string | null = null,
  ): Promise<User> {
    this.requireAdmin(actor);
    const existing = await this.users.findById(id);
    if (!existing) throw notFound('User');
    if (input.username !== undefined && input.username.toLowerCase() !== existing.username.toLowerCase()) {
      throw invalidFields({ username: ['cannot be changed through this API in svc'] });
    }
    await this.validateUser({ ...input, username: undefined }, id);
    if (input.avatar) checkAvatar(input.avatar);
    const privateProfile =
      input.privateProfile === null
        ? (await this.settings.get()).user_defaults_to_private_profile
        : input.privateProfile;
    const updated = await this.users.update(
      id,
      {
        name: input.name,
        email: input.email,
        admin: input.admin,
        privateProfile,
        bio: input.bio,
        projectsLimit: input.projectsLimit,
        ...(input.password !== undefined && { passwordDigest: await hashPassword(input.password) }),
      },
      this.now(),
    );
    if (!updated) throw notFound('User');
    await this.afterPasswordChange(actor, id, input, currentSession);
    return input.avatar === undefined ? updated : this.applyAvatar(updated, input.avatar);
  }

  private async afterPasswordChange(
    actor: User,
    id: number,
    input: UpdateUserInput,
    currentSession: string | null,
  ): Promise<void> {
    if (input.password !== undefined) {
      const keep = currentSession !== null && actor.id === id ? digest(currentSession) : null;
      await this.users.deleteSessionsOf(id, keep);
      await this.users.clearAttempts(id);
    }
  }

  /**
   * Blocks or unblocks a user (admin): a blocked user cannot sign in or use tokens. Not oneself. Whether the state
   * changed: blocking a blocked user or unblocking an active one changes nothing (GitLab answers `null` and `false`).
   */
  async setBlocked(actor: User | null, id: number, blocked: boolean): Promise<boolean> {
    this.requireAdmin(actor);
    const existing = await this.users.findById(id);
    if (!existing) throw notFound('User');
    if (blocked && existing.id === actor.id) throw forbidden('You cannot block your own account');
    const state = blocked ? 'blocked' : 'active';
    if (existing.state === state) return false;
    await this.users.update(id, { state }, this.now());
    return true;
  }

  /**
   * Bans or unbans a user (admin; GitLab's `Users::BanService`/`UnbanService`): a banned user cannot sign in or
   * use tokens, as a blocked one. Only an active user can be banned and only a banned one unbanned; otherwise 403
   * with GitLab's message ("You cannot ban blocked users.").
   */
  async setBanned(actor: User | null, id: number, banned: boolean): Promise<void> {
    this.requireAdmin(actor);
    const existing = await this.users.findById(id);
    if (!existing) throw notFound('User');
    const from = banned ? 'active' : 'banned';
    if (existing.state !== from) {
      throw plainError('forbidden', `You cannot ${banned ? 'ban' : 'unban'} ${existing.state} users.`);
    }
    await this.users.update(id, { state: banned ? 'banned' : 'active' }, this.now());
  }

  /**
   * Creates the bot user of a project or group access token (GitLab's `project_bot`): username
   * `<project|group>_<id>_bot_<random>`, no password (it cannot sign in), e-mail at `noreply.<host>`.
   */
  async createBot(source: BotSource, name: string, emailHost: string): Promise<User> {
    const username = `${source.type === 'project' ? 'project' : 'group'}_${source.id}_bot_${randomHex(16)}`;
    const now = this.now();
    const user = await this.users.insert(
      {
        username,
        name,
        email: `${username}@noreply.${emailHost}`,
        passwordDigest: null,
        admin: false,
        privateProfile: false,
        // A bot acts only inside its project or group: it has no personal projects.
        projectsLimit: 0,
        botSource: source,
      },
      now,
    );
    await this.namespaces.createUserNamespace(user, now);
    return user;
  }

  /** Blocks a bot whose access token was revoked: it can no longer act, and leaves the resource's token list. */
  async retireBot(id: number): Promise<void> {
    await this.users.update(id, { state: 'blocked' }, this.now());
  }

  /** The active bot users of a project or group. */
  botsOf(source: BotSource): Promise<User[]> {
    return this.users.botsOf(source);
  }

  async delete(actor: User | null, id: number): Promise<void> {
    this.requireAdmin(actor);
    const existing = await this.users.findById(id);
    if (!existing) throw notFound('User');
    if (existing.id === actor.id) throw forbidden('You cannot delete your own account');
    const ns = await this.namespaces.findUserNamespace(id);
    if (ns && (await this.namespaces.hasChildren(ns.id))) {
      throw conflict("User's personal projects must be deleted or transferred first");
    }
    if (ns) await this.namespaces.delete(ns.id);
    await this.users.delete(id);
    await this.avatars.remove('user', id);
  }

  async get(id: number): Promise<User> {
    const u = await this.users.findById(id);
    if (!u) throw notFound('User');
    return u;
  }

  async findById(id: number): Promise<User | null> {
    return this.users.findById(id);
  }

  async findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /** The user with this e-mail (a commit's author, for instance), or null. */
  async findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email);
  }

  /** Resolves an id or username (as Sudo and CLI flags take either). */
  async resolve(idOrUsername: string): Promise<User | null> {
    return /^\d+$/.test(idOrUsername)
      ? this.users.findById(Number(idOrUsername))
      : this.users.findByUsername(idOrUsername);
  }

  list(filter: UserFilter, order: UserOrder, sort: 'asc' | 'desc', page: PageRequest): Promise<Paged<User>> {
    return this.users.list(filter, order, sort, page);
  }

  listKeyset(filter: UserFilter, k: KeysetRequest<UserOrder>): Promise<User[]> {
    return this.users.listKeyset(filter, k);
  }

  orderValue(id: number, orderBy: UserOrder): Promise<string | number | null> {
    return this.users.orderValue(id, orderBy);
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /** Active people, bots left out (a license's user count). */
  countActiveHumans(): Promise<number> {
    return this.users.countActiveHumans();
  }

  /** When the instance was set up (its first user's creation), or null before the bootstrap. */
  instanceCreatedAt(): Promise<string | null> {
    return this.users.firstCreatedAt();
  }

  // Personal access tokens

  /** Creates a token for `userId`; admins for anyone, users for themselves (CLI and `POST /user/...`). */
  async createToken(
    actor: User | 'system',
    userId: number,
    input: {
      name: string;
      scopes: readonly TokenScope[];
      expiresAt: string | null;
      token?: string;
      impersonation?: boolean;
    },
  ): Promise<CreatedToken> {
    if (actor !== 'system' && !this.access.isAdmin(actor) && actor.id !== userId) throw forbidden();
    // Only an administrator makes a token that acts as someone else.
    if (input.impersonation && actor !== 'system') this.requireAdmin(actor);
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User');
    this.checkTokenInput(input);
    const token = input.token ?? newTokenSecret();
    const created = await this.users.insertToken(
      {
        userId,
        name: input.name,
        digest: digest(token),
        scopes: input.scopes,
        expiresAt: input.expiresAt,
        impersonation: input.impersonation ?? false,
      },
      this.now(),
    );
    return { ...created, token };
  }

  /** Refuses a token's name, scopes or expiry date as GitLab's validations do (400 with the fields). */
  checkTokenInput(input: { name: string; scopes: readonly TokenScope[]; expiresAt: string | null }): void {
    const errors: Record<string, string[]> = {};
    if (input.name.trim() === '') errors.name = ["can't be blank"];
    // GitLab's limit (a string column); a name is shown in lists, not a place for megabytes.
    else if (input.name.length > 255) errors.name = ['is too long (maximum is 255 characters)'];
    if (input.scopes.length === 0) errors.scopes = ["can't be blank"];
    const expiry = this.expiryError(input.expiresAt);
    if (expiry) errors.expires_at = [expiry];
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
  }

  /** Why an expiry date is refused, or null: `YYYY-MM-DD`, in the future. */
  private expiryError(expiresAt: string | null): string | null {
    if (expiresAt === null) return null;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(expiresAt) || Number.isNaN(Date.parse(expiresAt))) return 'is invalid';
    if (expiresAt <= this.clock.now().toISOString().slice(0, 10)) return 'must be in the future';
    return null;
  }

  /**
   * Who may rotate a personal access token (GitLab's `rotate_personal_access_token` on its user): its user and
   * admins. Others get 401 whether or not the token exists; only admins learn that it does not (404).
   */
  async rotatableToken(actor: User, id: number): Promise<PersonalAccessToken> {
    const t = await this.users.findToken(id);
    if (t && (this.access.isAdmin(actor) || t.userId === actor.id) && !t.impersonation) return t;
    if (t?.impersonation && this.access.isAdmin(actor)) return t;
    if (this.access.isAdmin(actor)) throw notFound();
    throw unauthorized();
  }

  /**
   * Rotates a token (GitLab's `PersonalAccessTokens::RotateService`): the token is revoked and a new one with its
   * name, scopes and kind is created for the same user, expiring at `expiresAt` or a week from now. The new
   * secret is returned once. A revoked token cannot be rotated (400 "Token already revoked"). The caller has
   * already decided that the actor may rotate it (`rotatableToken`, or the resource's rules for access tokens).
   */
  async rotateToken(token: PersonalAccessToken, expiresAt: string | null): Promise<CreatedToken> {
    if (token.revoked) throw badRequest('Token already revoked');
    const expiry = this.expiryError(expiresAt);
    if (expiry) throw badRequest(`Expiration date ${expiry}`);
    const next =
      expiresAt ??
      new Date(this.clock.now().getTime() + ROTATED_TOKEN_DAYS * 86_400_000).toISOString().slice(0, 10);
    const secret = newTokenSecret();
    const created = await this.users.rotateToken(
      token.id,
      {
        userId: token.userId,
        name: token.name,
        digest: digest(secret),
        scopes: token.scopes,
        expiresAt: next,
        impersonation: token.impersonation,
      },
      this.now(),
    );
    if (!created) throw badRequest('Token already revoked');
    return { ...created, token: secret };
  }

  /** A user's impersonation tokens (admin), optionally only active or inactive ones. */
  async listImpersonationTokens(
    actor: User | null,
    userId: number,
    state: 'all' | 'active' | 'inactive',
    page: PageRequest,
  ): Promise<Paged<PersonalAccessToken>> {
    this.requireAdmin(actor);
    await this.get(userId);
    return this.users.listTokens(
      userId,
      page,
      true,
      state === 'all' ? undefined : state,
      this.clock.now().toISOString().slice(0, 10),
    );
  }

  /** One impersonation token of a user (admin); 404 "Impersonation Token" otherwise. */
  async getImpersonationToken(actor: User | null, userId: number, id: number): Promise<PersonalAccessToken> {
    this.requireAdmin(actor);
    await this.get(userId);
    const t = await this.users.findToken(id);
    if (!t || !t.impersonation || t.userId !== userId) throw notFound('Impersonation Token');
    return t;
  }

  async revokeImpersonationToken(actor: User | null, userId: number, id: number): Promise<void> {
    const t = await this.getImpersonationToken(actor, userId, id);
    await this.users.revokeToken(t.id);
  }

  /** Tokens of the given users (a resource's bots). */
  tokensOf(userIds: readonly number[], page: PageRequest): Promise<Paged<PersonalAccessToken>> {
    return this.users.listTokensOf(userIds, page);
  }

  /** A token by id, for a service that checks access itself (a resource's access tokens). */
  findToken(id: number): Promise<PersonalAccessToken | null> {
    return this.users.findToken(id);
  }

  /** Revokes a token, for a service that checked access itself. */
  revokeTokenById(id: number): Promise<void> {
    return this.users.revokeToken(id);
  }

  async listTokens(
    actor: User,
    userId: number | null,
    page: PageRequest,
  ): Promise<Paged<PersonalAccessToken>> {
    const admin = this.access.isAdmin(actor);
    if (!admin && userId !== null && userId !== actor.id) throw forbidden();
    // A user's own list leaves out the tokens an administrator made to impersonate them (GitLab).
    return this.users.listTokens(admin ? userId : actor.id, page, admin ? undefined : false);
  }

  async getToken(actor: User, id: number): Promise<PersonalAccessToken> {
    const t = await this.users.findToken(id);
    if (!t || (!this.access.isAdmin(actor) && (t.userId !== actor.id || t.impersonation))) {
      throw notFound('Personal Access Token');
    }
    return t;
  }

  async revokeToken(actor: User, id: number): Promise<void> {
    const t = await this.getToken(actor, id);
    if (t.revoked) throw invalidFields({ token: ['has already been revoked'] });
    await this.users.revokeToken(t.id);
  }

  // First start

  /**
   * Creates the first admin (`root`) when there are no users yet. Returns the generated password when none
   * was configured (printed once by the caller), or null.
   */
  async bootstrap(opts: { rootPassword: string | null; rootToken: string | null }): Promise<{
    created: boolean;
    generatedPassword: string | null;
  }> {
    if ((await this.users.count()) > 0) return { created: false, generatedPassword: null };
    const generatedPassword = opts.rootPassword ? null : randomToken(18);
    const root = await this.create('system', {
      username: 'root',
      name: 'Administrator',
      email: 'admin@example.com',
      password: opts.rootPassword ?? generatedPassword!,
      admin: true,
      privateProfile: false,
    });
    if (opts.rootToken) {
      await this.createToken('system', root.id, {
        name: 'SVC_ROOT_TOKEN',
        scopes: ['api'],
        expiresAt: null,
        token: opts.rootToken,
      });
    }
    return { created: true, generatedPassword };
  }
}

/** A new token secret (shown once; only its digest is stored). */
function newTokenSecret(): string {
  return `${TOKEN_PREFIX}${randomToken(24)}`;
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
