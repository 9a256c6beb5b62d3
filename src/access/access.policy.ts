import type { Tier } from '../config.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { AccessLevel, canSee, type Verdict, type Visibility, verdict } from './access.js';

/** Who acts: a signed-in user (admins are Owners everywhere) or nobody (`null`). */
export interface Principal {
  readonly id: number;
  readonly admin: boolean;
}

/** Something with a visibility: a project or a group. */
export interface Visible {
  readonly visibility: Visibility;
}

/** How the policy reads projects, groups and levels; the projects, groups and members features provide them. */
export interface AccessPorts<A extends Principal, P extends Visible, G extends Visible> {
  /** A project by numeric id or full path, whoever may see it. */
  findProject(idOrPath: string): Promise<P | null>;
  /** A group (not a user namespace) by numeric id or full path, whoever may see it. */
  findGroup(idOrPath: string): Promise<G | null>;
  projectLevel(actor: A | null, project: P): Promise<number>;
  groupLevel(actor: A | null, group: G): Promise<number>;
}

/** A feature of the paid tiers (Premium and Ultimate), with the message a Free instance answers. */
export const PAID_FEATURES = {
  oncall_schedules: 'On-call schedules need the Premium or Ultimate tier',
  escalation_policies: 'Escalation policies need the Premium or Ultimate tier',
  group_storage_moves: 'Group repository storage moves need the Premium or Ultimate tier',
  alert_field_mapping: 'Custom field mapping: This needs the Premium or Ultimate tier',
  oncall_link: 'The on-call tool link: This needs the Premium or Ultimate tier',
  multiple_integrations: 'Multiple integrations of a single type: This needs the Premium or Ultimate tier',
  // Features a Free instance silently leaves out rather than refuses (no message is ever sent).
  merge_request_approvals: 'Merge request approvals need the Premium or Ultimate tier',
  alert_auto_grouping: 'Automatic alert grouping needs the Premium or Ultimate tier',
} as const;
export type PaidFeature = keyof typeof PAID_FEATURES;

/** Throws the domain error of a refusal (`resource` names the hidden object in the 404). */
export function enforce(v: Verdict, resource: string): void {
  if (v === 'not_found') throw notFound(resource);
  if (v === 'unauthorized') throw unauthorized();
  if (v === 'forbidden') throw forbidden();
}

/** A signed-in user, or 401 (rule 3's first half; the HTTP layer's `requireUser` asks here). */
export function signedInActor<A extends Principal>(actor: A | null): A {
  if (!actor) throw unauthorized();
  return actor;
}

/** An admin: 401 anonymous, 403 a signed-in non-admin (rule 3; the HTTP layer's `requireAdmin` asks here). */
export function adminActor<A extends Principal>(actor: A | null): A {
  if (!signedInActor(actor).admin) throw forbidden();
  return actor as A;
}

/**
 * The policy's instance-wide questions (no project or group involved), for the features the projects feature
 * itself builds on (users, settings, geo, audit), which cannot name its types.
 */
export interface InstancePolicy<A extends Principal> {
  level(actor: A | null, level: number, min: number): void;
  signedIn(actor: A | null): A;
  admin(actor: A | null): A;
  isAdmin(actor: A | null): boolean;
}

/**
 * The one access policy: may this actor do this to this object. Each method returns the object (with the
 * caller's level) or throws per the rule in ./access.ts. Services ask it; PermissionsService computes the levels.
 *
 * Differences between features that the rule leaves to the caller, kept as they are:
 * - on-call schedules check the tier before the level (a Free instance answers 403 even to an anonymous reader
 *   of a public project), escalation policies after it (that reader gets 401): `tier()` is a separate step;
 * - snippets answer 404 for a snippet the caller may not read even when its project is visible (`snippet()`);
 * - updating or deleting a group, and listing a group's runners, answer 403 below the level to anonymous callers
 *   too (`forbidBelow()`), where the rule says 401;
 * - creating a project in a group answers 404 `Namespace` (not `Group`) for a group the caller may not see
 *   (`groupObject()` with its resource);
 * - the alert notify endpoints authenticate with the integration's key, not a user: 403 for an inactive
 *   integration, 401 for a wrong key (`IntakeService`), whatever the project's visibility;
 * - merge request approvals answer 401 (not 403) to a signed-in caller who may not approve (`canApprove()`);
 * - a personal access token of another user answers 404 to a non-admin (`UsersService.getToken`), as GitLab;
 *   rotating one answers 401, and 404 only to admins (`UsersService.rotatableToken`);
 * - project and group access tokens answer below the managing level as GitLab's endpoints do: 401 to list, read
 *   and rotate, 400 with GitLab's message to create and revoke (`AccessTokensService`).
 */
export class AccessPolicy<A extends Principal, P extends Visible, G extends Visible>
  implements InstancePolicy<A>
{
  constructor(
    private readonly ports: AccessPorts<A, P, G>,
    private readonly instanceTier: Tier,
  ) {}

  /** A project the caller may see and, with `min`, act on at that level: 404 hidden, then 401/403. */
  async project(
    actor: A | null,
    idOrPath: string,
    min: number = AccessLevel.None,
  ): Promise<{ project: P; level: number }> {
    const project = await this.ports.findProject(idOrPath);
    if (!project) throw notFound('Project');
    const level = await this.ports.projectLevel(actor, project);
    enforce(this.judge(actor, project.visibility, level, min), 'Project');
    return { project, level };
  }

  /** A group the caller may see and, with `min`, act on at that level: 404 hidden, then 401/403. */
  async group(
    actor: A | null,
    idOrPath: string,
    min: number = AccessLevel.None,
  ): Promise<{ group: G; level: number }> {
    const group = await this.ports.findGroup(idOrPath);
    if (!group) throw notFound('Group');
    const level = await this.ports.groupLevel(actor, group);
    enforce(this.judge(actor, group.visibility, level, min), 'Group');
    return { group, level };
  }

  /** The caller's level in a group it already holds (a group found by other means). */
  groupLevel(actor: A | null, group: G): Promise<number> {
    return this.ports.groupLevel(actor, group);
  }

  /** The caller's level in a project it already holds. */
  projectLevel(actor: A | null, project: P): Promise<number> {
    return this.ports.projectLevel(actor, project);
  }

  /**
   * A snippet the caller may read: its author, an admin, or anyone its visibility shows it to at `level` (the
   * caller's level in its project; 0 for personal snippets). 404 otherwise: a snippet never answers 401/403.
   */
  snippet(
    actor: A | null,
    snippet: { readonly visibility: Visibility; readonly authorId: number },
    level: number,
  ): void {
    const readable =
      actor?.admin === true ||
      snippet.authorId === actor?.id ||
      canSee(snippet.visibility, actor !== null, level);
    if (!readable) throw notFound('Snippet');
  }

  /** The level check alone, for an object already found visible: 401 anonymous, 403 signed in. */
  level(actor: A | null, level: number, min: number): void {
    enforce(verdict({ signedIn: actor !== null, visible: true, level, min }), '');
  }

  /**
   * Whether a project exists, the caller may see it and has at least `min` in it: a question, not a refusal (which
   * runners a caller owns, for instance).
   */
  async allowsProject(actor: A | null, idOrPath: string, min: number): Promise<boolean> {
    const project = await this.ports.findProject(idOrPath);
    if (!project) return false;
    const level = await this.ports.projectLevel(actor, project);
    return this.judge(actor, project.visibility, level, min) === 'allow';
  }

  /** `allowsProject` for a group. */
  async allowsGroup(actor: A | null, idOrPath: string, min: number): Promise<boolean> {
    const group = await this.ports.findGroup(idOrPath);
    if (!group) return false;
    const level = await this.ports.groupLevel(actor, group);
    return this.judge(actor, group.visibility, level, min) === 'allow';
  }

  /**
   * A group (or user namespace) already loaded: 404 (`resource`) when hidden, then 401/403 below `min`. Returns the
   * caller's level.
   */
  async groupObject(actor: A | null, group: G, min: number, resource = 'Group'): Promise<number> {
    const level = await this.ports.groupLevel(actor, group);
    enforce(this.judge(actor, group.visibility, level, min), resource);
    return level;
  }

  /** The level check where a feature answers 403 whoever asks (see the differences above). */
  forbidBelow(level: number, min: number): void {
    if (level < min) throw forbidden();
  }

  /** A signed-in user, or 401. */
  signedIn(actor: A | null): A {
    return signedInActor(actor);
  }

  /** An admin: 401 anonymous, 403 a signed-in non-admin. */
  admin(actor: A | null): A {
    return adminActor(actor);
  }

  /**
   * Whether the caller acts as an admin: admins see every object and manage every user's (other users' tokens,
   * instance runners, options only admins may set). Admins are also Owners everywhere (PermissionsService).
   */
  isAdmin(actor: A | null): boolean {
    return actor?.admin === true;
  }

  /** Whether the instance's tier includes a paid feature. */
  hasTier(_feature: PaidFeature): boolean {
    return this.instanceTier !== 'free';
  }

  /** Refuses a paid feature on a Free instance: 403 with the feature's message. */
  tier(feature: PaidFeature): void {
    if (!this.hasTier(feature)) throw forbidden(PAID_FEATURES[feature]);
  }

  private judge(actor: A | null, visibility: Visibility, level: number, min: number): Verdict {
    // Admins see everything (their level is Owner everywhere, which PermissionsService already gives them).
    const visible = actor?.admin === true || canSee(visibility, actor !== null, level);
    return verdict({ signedIn: actor !== null, visible, level, min });
  }
}
