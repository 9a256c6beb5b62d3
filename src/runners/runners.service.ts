import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { digest, safeEqual } from '../crypto.js';
import { forbidden, gone, insufficientScope, invalidFields, notFound, paramError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Access } from '../projects/access.js';
import type { TokenScope, User } from '../users/users.js';
import type { ReleaseGates } from '../versioning/gates.js';
import { contactStatus, legacyStatus, type Runner, type RunnerType } from './runners.js';
import type { RunnersRepository } from './runners.repository.js';

/** Options of a runner (creation and update). */
export interface RunnerOptions {
  description?: string | null;
  paused?: boolean;
  locked?: boolean;
  run_untagged?: boolean;
  tag_list?: string[] | string;
  access_level?: 'not_protected' | 'ref_protected';
  maximum_timeout?: number | null;
  maintenance_note?: string | null;
}

export interface RunnerFilter {
  type?: RunnerType;
  status?: string;
  paused?: boolean;
  tagList?: readonly string[];
}

/** GitLab's message and status for legacy registration once registration tokens are off. */
const registrationGone = () => gone('runner registration disallowed');
const newToken = () => `glrt-${randomBytes(15).toString('base64url')}`;
const tags = (v: string[] | string | undefined) =>
  v === undefined ? undefined : (Array.isArray(v) ? v : v.split(',')).map((t) => t.trim()).filter(Boolean);

/**
 * Runners: creation with authentication tokens (`POST /user/runners`), the runner-side endpoints, legacy
 * registration tokens (410 from 17.0; reset endpoints 410 from 18.0), management with GitLab's rules.
 */
export class RunnersService {
  constructor(
    private readonly repo: RunnersRepository,
    private readonly access: Access,
    private readonly gates: ReleaseGates,
    private readonly sharedRegistrationToken: string | null,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** `POST /user/runners`: needs the create_runner scope; admins for instance runners, Owners otherwise. */
  async create(
    actor: User | null,
    scopes: ReadonlySet<TokenScope> | null,
    input: RunnerOptions & { runner_type: RunnerType; group_id?: number; project_id?: number },
  ): Promise<{ runner: Runner; token: string }> {
    const user = this.access.signedIn(actor);
    if (scopes && !scopes.has('create_runner') && !scopes.has('api'))
      throw insufficientScope('create_runner');
    let groupId: number | null = null;
    let projectId: number | null = null;
    if (input.runner_type === 'instance_type') {
      this.access.admin(user);
    } else if (input.runner_type === 'group_type') {
      if (input.group_id === undefined) throw paramError('group_id is missing');
      groupId = (await this.access.group(user, String(input.group_id), AccessLevel.Owner)).group.id;
    } else {
      if (input.project_id === undefined) throw paramError('project_id is missing');
      projectId = (await this.access.project(user, String(input.project_id), AccessLevel.Owner)).project.id;
    }
    return this.insert(input.runner_type, groupId, projectId, input, user.id);
  }

  private async insert(
    type: RunnerType,
    groupId: number | null,
    projectId: number | null,
    o: RunnerOptions & { name?: string | null },
    creatorId: number | null,
  ) {
    const token = newToken();
    const runner = await this.repo.insert(
      {
        runnerType: type,
        groupId,
        projectId,
        tokenDigest: digest(token),
        description: o.description ?? null,
        name: o.name ?? null,
        active: !(o.paused ?? false),
        locked: o.locked ?? false,
        runUntagged: o.run_untagged ?? true,
        tagList: tags(o.tag_list) ?? [],
        accessLevel: o.access_level ?? 'not_protected',
        maximumTimeout: o.maximum_timeout ?? null,
        maintenanceNote: o.maintenance_note ?? null,
        creatorId,
      },
      this.now(),
    );
    return { runner, token };
  }

  /**
   * Legacy `POST /runners` with a registration token. Spec: registration tokens and the server-side arguments
   * return 410 Gone from 17.0 (removal 18.0).
   */
  async registerLegacy(
    token: string,
    o: RunnerOptions & { active?: boolean; info?: { name?: string } },
    ip: string | null,
  ) {
    if (this.gates.inEffect('runner_registration_token_api')) throw registrationGone();
    const scope = await this.resolveRegistrationToken(token);
    if (!scope) throw forbidden('invalid token supplied');
    if (o.active !== undefined && o.paused !== undefined)
      throw paramError('active, paused are mutually exclusive');
    const options = {
      ...o,
      paused: o.paused ?? (o.active === undefined ? undefined : !o.active),
      name: o.info?.name ?? null,
    };
    const [kind, id] = scope.split(':');
    const created =
      kind === 'instance'
        ? await this.insert('instance_type', null, null, options, null)
        : kind === 'group'
          ? await this.insert('group_type', Number(id), null, options, null)
          : await this.insert('project_type', null, Number(id), options, null);
    await this.repo.contact(created.runner.id, ip, this.now());
    return created;
  }

  private async resolveRegistrationToken(token: string): Promise<string | null> {
    // Before 18.0, SVC_SHARED_RUNNERS_REGISTRATION_TOKEN is the instance registration token (spec: 18.0 removal).
    if (this.sharedRegistrationToken && safeEqual(token, this.sharedRegistrationToken)) return 'instance';
    return this.repo.scopeOfRegistrationToken(digest(token));
  }

  /** Reset endpoints for registration tokens: work before 18.0, 410 from 18.0 (spec). */
  async resetRegistrationToken(
    actor: User | null,
    scope: { kind: 'instance' } | { kind: 'project' | 'group'; id: string },
  ) {
    const user = this.access.signedIn(actor);
    let key = 'instance';
    if (scope.kind === 'instance') {
      this.access.admin(user);
    } else if (scope.kind === 'project') {
      const { project } = await this.access.project(user, scope.id, AccessLevel.Maintainer);
      key = `project:${project.id}`;
    } else {
      const { group } = await this.access.group(user, scope.id, AccessLevel.Owner);
      key = `group:${group.id}`;
    }
    if (this.gates.isRemoved('runner_reset_registration_token_api')) throw registrationGone();
    const token = `GR1348941${randomBytes(15).toString('base64url')}`;
    // Spec/ARCHITECTURE: a secret that needs only checking is stored as a digest; svc shows it once, here.
    await this.repo.setRegistrationToken(key, digest(token));
    return { token, token_expires_at: null };
  }

  // The runner's own endpoints (authenticated by its token)

  private async byToken(token: string): Promise<Runner> {
    const r = await this.repo.findByToken(digest(token));
    if (!r) throw forbidden();
    return r;
  }

  async verify(token: string, ip: string | null): Promise<Runner> {
    const r = await this.byToken(token);
    await this.repo.contact(r.id, ip, this.now());
    return r;
  }

  async deleteByToken(token: string): Promise<void> {
    await this.repo.delete((await this.byToken(token)).id);
  }

  async resetAuthenticationToken(token: string): Promise<{ token: string; token_expires_at: null }> {
    const r = await this.byToken(token);
    const fresh = newToken();
    await this.repo.setToken(r.id, digest(fresh));
    return { token: fresh, token_expires_at: null };
  }

  // Management

  /** Whether the caller owns (may manage) a runner: admins; group Owners; Maintainers of an assigned project. */
  private async owns(actor: User, r: Runner): Promise<boolean> {
    if (this.access.isAdmin(actor)) return true;
    if (r.runnerType === 'group_type' && r.groupId !== null) {
      return this.access.allowsGroup(actor, String(r.groupId), AccessLevel.Owner);
    }
    for (const pid of r.projectIds) {
      if (await this.access.allowsProject(actor, String(pid), AccessLevel.Maintainer)) return true;
    }
    return false;
  }

  async get(actor: User | null, id: number): Promise<Runner> {
    const user = this.access.signedIn(actor);
    const r = await this.repo.find(id);
    if (!r) throw notFound('Runner');
    // Instance runners are visible to every signed-in user (GitLab); others to their owners.
    if (r.runnerType !== 'instance_type' && !(await this.owns(user, r))) throw forbidden('No access granted');
    return r;
  }

  /** The status values each API version takes are its input schema's (v5 refuses `active` and `paused`). */
  private filter(runners: Runner[], f: RunnerFilter): Runner[] {
    const now = this.clock.now();
    return runners.filter(
      (r) =>
        (f.type === undefined || r.runnerType === f.type) &&
        (f.paused === undefined || r.active === !f.paused) &&
        (f.tagList === undefined || f.tagList.every((t) => r.tagList.includes(t))) &&
        (f.status === undefined ||
          (f.status === 'active'
            ? r.active
            : f.status === 'paused'
              ? !r.active
              : contactStatus(r, now) === f.status || legacyStatus(r, now) === f.status)),
    );
  }

  /** `GET /runners`: the runners the caller owns; `all` for admins. */
  async list(actor: User | null, all: boolean, f: RunnerFilter): Promise<Runner[]> {
    const user = this.access.signedIn(actor);
    if (all) this.access.admin(user);
    const every = await this.repo.list({});
    const mine = all
      ? every
      : (
          await Promise.all(
            every.map(async (r) =>
              (r.runnerType !== 'instance_type' || this.access.isAdmin(user)) && (await this.owns(user, r))
                ? r
                : null,
            ),
          )
        ).filter((r): r is Runner => r !== null);
    return this.filter(mine, f);
  }

  async listForProject(actor: User | null, idOrPath: string, f: RunnerFilter): Promise<Runner[]> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    const own = await this.repo.list({ projectIds: [project.id] });
    const instance = await this.repo.list({ type: 'instance_type' });
    const ids = new Set(own.map((r) => r.id));
    return this.filter(
      [...own, ...instance.filter((r) => !ids.has(r.id))].sort((a, b) => a.id - b.id),
      f,
    );
  }

  async listForGroup(actor: User | null, idOrPath: string, f: RunnerFilter): Promise<Runner[]> {
    const { group, level } = await this.access.group(actor, idOrPath);
    this.access.forbidBelow(level, AccessLevel.Maintainer);
    return this.filter(await this.repo.list({ groupIds: [group.id] }), f);
  }

  async update(actor: User | null, id: number, o: RunnerOptions & { active?: boolean }): Promise<Runner> {
    const r = await this.get(actor, id);
    if (!(await this.owns(actor!, r))) throw forbidden();
    if (o.active !== undefined && o.paused !== undefined)
      throw paramError('active, paused are mutually exclusive');
    const keys = Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined);
    if (keys.length === 0) {
      throw paramError(
        'description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout, maintenance_note are missing, at least one parameter must be provided',
      );
    }
    if (o.maximum_timeout !== undefined && o.maximum_timeout !== null && o.maximum_timeout < 600) {
      throw invalidFields({ maximum_timeout: ['needs to be at least 10 minutes'] });
    }
    await this.repo.update(
      id,
      {
        description: o.description,
        maintenance_note: o.maintenance_note,
        access_level: o.access_level,
        // `paused` is `active` negated (GitLab).
        active: o.active ?? (o.paused === undefined ? undefined : !o.paused),
        locked: o.locked,
        run_untagged: o.run_untagged,
        tag_list: tags(o.tag_list),
        maximum_timeout: o.maximum_timeout,
      },
      this.now(),
    );
    return (await this.repo.find(id))!;
  }

  async delete(actor: User | null, id: number): Promise<void> {
    const r = await this.get(actor, id);
    if (!(await this.owns(actor!, r))) throw forbidden();
    if (r.runnerType === 'project_type' && r.projectIds.length > 1 && !this.access.isAdmin(actor)) {
      throw forbidden('Runner associated with more than one project');
    }
    await this.repo.delete(id);
  }

  async assign(actor: User | null, idOrPath: string, runnerId: number): Promise<Runner> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    const r = await this.repo.find(runnerId);
    if (!r) throw notFound('Runner');
    if (r.runnerType !== 'project_type')
      throw forbidden(`Runner is a ${r.runnerType === 'group_type' ? 'group' : 'instance'} runner`);
    if (r.locked) throw forbidden('Runner is locked');
    if (!(await this.owns(actor!, r))) throw forbidden();
    if (r.projectIds.includes(project.id)) throw invalidFields({ runner: ['has already been taken'] });
    await this.repo.assign(r.id, project.id);
    return (await this.repo.find(r.id))!;
  }

  async unassign(actor: User | null, idOrPath: string, runnerId: number): Promise<void> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    const r = await this.repo.find(runnerId);
    if (!r || !r.projectIds.includes(project.id)) throw notFound('Runner');
    if (r.projectIds.length === 1) throw forbidden('You cannot unassign a runner from its only project');
    await this.repo.unassign(r.id, project.id);
  }
}
