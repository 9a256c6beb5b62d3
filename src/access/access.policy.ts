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

/**
 * The one access policy: may this actor do this to this object. Each method returns the object (with the
 * caller's level) or throws per the rule in ./access.ts. Services ask it; PermissionsService computes the levels.
 *
 * Differences between features that the rule leaves to the caller, kept as they are:
 * - on-call schedules check the tier before the level (a Free instance answers 403 even to an anonymous reader
 *   of a public project), escalation policies after it (that reader gets 401): `tier()` is a separate step;
 * - snippets answer 404 for a snippet the caller may not read even when its project is visible (`snippet()`).
 */
export class AccessPolicy<A extends Principal, P extends Visible, G extends Visible> {
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

  /** A signed-in user, or 401. */
  signedIn(actor: A | null): A {
    if (!actor) throw unauthorized();
    return actor;
  }

  /** An admin: 401 anonymous, 403 a signed-in non-admin. */
  admin(actor: A | null): A {
    if (!actor) throw unauthorized();
    if (!actor.admin) throw forbidden();
    return actor;
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
