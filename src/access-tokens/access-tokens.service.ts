import { AccessLevel } from '../access/access.js';
import { badRequest, notFound, unauthorized } from '../errors.js';
import type { MembersService } from '../members/members.service.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { Access } from '../projects/access.js';
import type { BotSource, CreatedToken, PersonalAccessToken, TokenScope, User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';

/** Which kind of resource an access token belongs to, as the API names it. */
export type ResourceKind = 'project' | 'group';

/** A project or group access token: a token of the resource's bot user, with the bot's access level there. */
export interface ResourceToken extends PersonalAccessToken {
  readonly accessLevel: number;
  readonly resourceType: ResourceKind;
  readonly resourceId: number;
}

export interface CreateResourceTokenInput {
  readonly name: string;
  readonly scopes: readonly TokenScope[];
  readonly expiresAt: string | null;
  readonly accessLevel: number;
}

/** The resource as the caller stands on it. */
interface Standing {
  readonly kind: ResourceKind;
  readonly source: BotSource;
  readonly name: string;
  readonly level: number;
}

/**
 * Project and group access tokens (GitLab's `ResourceAccessTokens`): each token belongs to a bot user made for it,
 * a member of the project or group at the token's access level, so the token acts with the bot's level there and
 * its own scopes. Managing them needs Maintainer on a project and Owner on a group (GitLab's
 * `manage_resource_access_tokens`); self-managed GitLab offers both on every tier.
 *
 * The refusals are GitLab's, which differ by endpoint (the policy's comment lists them): reading below the level
 * answers 401, creating or revoking 400 with GitLab's message, rotating 401 (404 for an admin when the token does
 * not exist).
 */
export class AccessTokensService {
  constructor(
    private readonly users: UsersService,
    private readonly members: Pick<MembersService, 'addBot' | 'directLevel' | 'removeBot'>,
    private readonly access: Access,
    /** The host of bot users' e-mail addresses (`noreply.<host>`, GitLab's). */
    private readonly emailHost: string,
  ) {}

  /** The resource, visible to a signed-in caller (401 anonymous, 404 hidden), with the caller's level in it. */
  private async standing(actor: User | null, kind: ResourceKind, idOrPath: string): Promise<Standing> {
    const user = this.access.signedIn(actor);
    if (kind === 'project') {
      const { project, level } = await this.access.project(user, idOrPath);
      return { kind, source: { type: 'project', id: project.id }, name: project.name, level };
    }
    const { group, level } = await this.access.group(user, idOrPath);
    return { kind, source: { type: 'namespace', id: group.id }, name: group.name, level };
  }

  private static manageLevel(kind: ResourceKind): number {
    return kind === 'project' ? AccessLevel.Maintainer : AccessLevel.Owner;
  }

  private mayManage(actor: User, s: Standing): boolean {
    return !actor.botSource && s.level >= AccessTokensService.manageLevel(s.kind);
  }

  private async present(s: Standing, t: PersonalAccessToken): Promise<ResourceToken> {
    return {
      ...t,
      accessLevel: (await this.members.directLevel(s.source, t.userId)) ?? AccessLevel.None,
      resourceType: s.kind,
      resourceId: s.source.id,
    };
  }

  /** The token with this id among the resource's active bots' tokens, or null. */
  private async find(
    s: Standing,
    tokenId: number,
  ): Promise<{ token: PersonalAccessToken; bot: User } | null> {
    const token = await this.users.findToken(tokenId);
    if (!token || token.impersonation) return null;
    const bot = (await this.users.botsOf(s.source)).find((b) => b.id === token.userId);
    return bot ? { token, bot } : null;
  }

  async list(
    actor: User | null,
    kind: ResourceKind,
    idOrPath: string,
    page: PageRequest,
  ): Promise<Paged<ResourceToken>> {
    const s = await this.standing(actor, kind, idOrPath);
    if (!this.mayManage(actor!, s)) throw unauthorized();
    const bots = await this.users.botsOf(s.source);
    const tokens = await this.users.tokensOf(
      bots.map((b) => b.id),
      page,
    );
    return { items: await Promise.all(tokens.items.map((t) => this.present(s, t))), total: tokens.total };
  }

  async get(
    actor: User | null,
    kind: ResourceKind,
    idOrPath: string,
    tokenId: number,
  ): Promise<ResourceToken> {
    const s = await this.standing(actor, kind, idOrPath);
    if (!this.mayManage(actor!, s)) throw unauthorized();
    const found = await this.find(s, tokenId);
    if (!found) throw notFound(`${kind} Access Token`);
    return this.present(s, found.token);
  }

  async create(
    actor: User | null,
    kind: ResourceKind,
    idOrPath: string,
    input: CreateResourceTokenInput,
  ): Promise<ResourceToken & CreatedToken> {
    const s = await this.standing(actor, kind, idOrPath);
    const user = actor!;
    if (!this.mayManage(user, s)) {
      throw badRequest(`User does not have permission to create ${kind} access token`);
    }
    const owner = s.level >= AccessLevel.Owner;
    if (kind === 'project' && input.accessLevel === AccessLevel.Owner && !owner) {
      throw badRequest('Could not provision owner access to project access token');
    }
    if (!owner && input.accessLevel > s.level) {
      throw badRequest(
        "Access level of the token can't be greater the access level of the user who created the token",
      );
    }
    // Checked before the bot exists, so a refused token leaves nothing behind.
    this.users.checkTokenInput(input);
    const bot = await this.users.createBot(s.source, input.name, this.emailHost);
    await this.members.addBot(s.source, bot.id, input.accessLevel, user.id);
    const created = await this.users.createToken('system', bot.id, {
      name: input.name,
      scopes: input.scopes,
      expiresAt: input.expiresAt,
    });
    return { ...created, accessLevel: input.accessLevel, resourceType: kind, resourceId: s.source.id };
  }

  /** Revokes the token and retires its bot: it leaves the resource and is blocked (GitLab deletes it). */
  async revoke(actor: User | null, kind: ResourceKind, idOrPath: string, tokenId: number): Promise<void> {
    const s = await this.standing(actor, kind, idOrPath);
    const found = await this.find(s, tokenId);
    if (!found) throw notFound(`${kind} Access Token`);
    if (!this.mayManage(actor!, s)) throw badRequest(`${actor!.name} cannot delete ${found.bot.username}`);
    await this.users.revokeTokenById(found.token.id);
    await this.members.removeBot(s.source, found.bot.id);
    await this.users.retireBot(found.bot.id);
  }

  /**
   * Rotates the token: revoked, and a new one for the same bot (name, scopes, level) returned once. A caller
   * below the bot's level may not rotate it (an Owner-level token needs an Owner).
   */
  async rotate(
    actor: User | null,
    kind: ResourceKind,
    idOrPath: string,
    tokenId: number,
    expiresAt: string | null,
  ): Promise<ResourceToken & CreatedToken> {
    const s = await this.standing(actor, kind, idOrPath);
    const user = actor!;
    const found = this.mayManage(user, s) ? await this.find(s, tokenId) : null;
    if (!found) {
      // Only admins are told that the token does not exist.
      if (this.access.isAdmin(user)) throw notFound();
      throw unauthorized();
    }
    const botLevel = (await this.members.directLevel(s.source, found.bot.id)) ?? AccessLevel.None;
    if (!this.access.isAdmin(user) && botLevel > s.level) {
      throw badRequest('Not eligible to rotate token with access level higher than the user');
    }
    const created = await this.users.rotateToken(found.token, expiresAt);
    return { ...created, accessLevel: botLevel, resourceType: kind, resourceId: s.source.id };
  }
}
