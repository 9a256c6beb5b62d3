import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock.js';
import { readBool, writeBool } from '../db/dialect.js';
import type { Database, ProjectApprovalSettingsTable } from '../db/schema.js';
import { conflict, invalidFields, notFound, paramError } from '../errors.js';
import type { Namespace } from '../groups/namespaces.js';
import type { NamespacesRepository } from '../groups/namespaces.repository.js';
import { AccessLevel } from '../members/members.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import type { UsersRepository } from '../users/users.repository.js';

/** A project's merge request approval configuration (`GET/POST /projects/:id/approvals`). */
export interface ApprovalSettings {
  readonly approvals_before_merge: number;
  readonly reset_approvals_on_push: boolean;
  readonly disable_overriding_approvers_per_merge_request: boolean;
  readonly merge_requests_author_approval: boolean;
  readonly merge_requests_disable_committers_approval: boolean;
  readonly require_password_to_approve: boolean;
}

/** GitLab's defaults for a project that never changed its configuration. */
const DEFAULT_SETTINGS: ApprovalSettings = {
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
};

export interface ApprovalRule {
  readonly id: number;
  readonly name: string;
  readonly approvalsRequired: number;
  readonly users: readonly User[];
  readonly groups: readonly Namespace[];
}

export interface ApprovalRuleInput {
  readonly name?: string;
  readonly approvals_required?: number;
  readonly user_ids?: readonly number[];
  readonly group_ids?: readonly number[];
}

export interface ManagedLicense {
  readonly id: number;
  readonly name: string;
  readonly approval_status: 'allowed' | 'denied';
}

/** GitLab's older status names are still accepted on input. */
const LICENSE_STATUS: Record<string, ManagedLicense['approval_status']> = {
  allowed: 'allowed',
  approved: 'allowed',
  denied: 'denied',
  blacklisted: 'denied',
};

const ids = (text: string): number[] => JSON.parse(text) as number[];

/** Approval configuration, project-level approval rules and (v4 only) managed licenses. */
export class ApprovalsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly projects: ProjectsService,
    private readonly users: UsersRepository,
    private readonly namespaces: NamespacesRepository,
    private readonly clock: Clock,
  ) {}

  async settings(actor: User | null, idOrPath: string): Promise<ApprovalSettings> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    const row = await this.db
      .selectFrom('project_approval_settings')
      .selectAll()
      .where('project_id', '=', project.id)
      .executeTakeFirst();
    return row ? toSettings(row) : DEFAULT_SETTINGS;
  }

  async updateSettings(
    actor: User | null,
    idOrPath: string,
    input: Partial<ApprovalSettings>,
  ): Promise<ApprovalSettings> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    const next = { ...(await this.settings(actor, String(project.id))), ...input };
    const row = {
      approvals_before_merge: next.approvals_before_merge,
      reset_approvals_on_push: writeBool(next.reset_approvals_on_push),
      disable_overriding_approvers_per_merge_request: writeBool(
        next.disable_overriding_approvers_per_merge_request,
      ),
      merge_requests_author_approval: writeBool(next.merge_requests_author_approval),
      merge_requests_disable_committers_approval: writeBool(next.merge_requests_disable_committers_approval),
      require_password_to_approve: writeBool(next.require_password_to_approve),
    };
    await this.db
      .insertInto('project_approval_settings')
      .values({ project_id: project.id, ...row })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(row))
      .execute();
    return next;
  }

  async rules(actor: User | null, idOrPath: string): Promise<ApprovalRule[]> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    const rows = await this.db
      .selectFrom('approval_rules')
      .selectAll()
      .where('project_id', '=', project.id)
      .orderBy('id')
      .execute();
    return Promise.all(rows.map((r) => this.toRule(r)));
  }

  async rule(actor: User | null, idOrPath: string, id: number): Promise<ApprovalRule> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Reporter);
    return this.toRule(await this.ruleRow(project.id, id));
  }

  async createRule(actor: User | null, idOrPath: string, input: ApprovalRuleInput): Promise<ApprovalRule> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    if (input.name === undefined) throw paramError('name is missing');
    if (input.approvals_required === undefined) throw paramError('approvals_required is missing');
    await this.validateRule(project.id, input, null);
    const row = await this.db
      .insertInto('approval_rules')
      .values({
        project_id: project.id,
        name: input.name.trim(),
        approvals_required: input.approvals_required,
        user_ids: JSON.stringify(unique(input.user_ids)),
        group_ids: JSON.stringify(unique(input.group_ids)),
        created_at: this.clock.now().toISOString(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.toRule(row);
  }

  async updateRule(
    actor: User | null,
    idOrPath: string,
    id: number,
    input: ApprovalRuleInput,
  ): Promise<ApprovalRule> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    await this.ruleRow(project.id, id);
    await this.validateRule(project.id, input, id);
    await this.db
      .updateTable('approval_rules')
      .set({
        ...(input.name !== undefined && { name: input.name.trim() }),
        ...(input.approvals_required !== undefined && { approvals_required: input.approvals_required }),
        ...(input.user_ids !== undefined && { user_ids: JSON.stringify(unique(input.user_ids)) }),
        ...(input.group_ids !== undefined && { group_ids: JSON.stringify(unique(input.group_ids)) }),
      })
      .where('id', '=', id)
      .execute();
    return this.toRule(await this.ruleRow(project.id, id));
  }

  async deleteRule(actor: User | null, idOrPath: string, id: number): Promise<void> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    await this.ruleRow(project.id, id);
    await this.db.deleteFrom('approval_rules').where('id', '=', id).execute();
  }

  async licenses(actor: User | null, idOrPath: string): Promise<ManagedLicense[]> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Developer);
    const rows = await this.db
      .selectFrom('managed_licenses')
      .selectAll()
      .where('project_id', '=', project.id)
      .orderBy('id')
      .execute();
    return rows.map(toLicense);
  }

  async license(actor: User | null, idOrPath: string, idOrName: string): Promise<ManagedLicense> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Developer);
    return toLicense(await this.licenseRow(project.id, idOrName));
  }

  async createLicense(
    actor: User | null,
    idOrPath: string,
    name: string,
    status: string,
  ): Promise<ManagedLicense> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    const approval = LICENSE_STATUS[status];
    if (!approval) throw paramError('approval_status does not have a valid value');
    if (!name.trim()) throw invalidFields({ name: ["can't be blank"] });
    const existing = await this.db
      .selectFrom('managed_licenses')
      .select('id')
      .where('project_id', '=', project.id)
      .where('name', '=', name.trim())
      .executeTakeFirst();
    if (existing) throw conflict('Software license already exists');
    const row = await this.db
      .insertInto('managed_licenses')
      .values({ project_id: project.id, name: name.trim(), approval_status: approval })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toLicense(row);
  }

  async deleteLicense(actor: User | null, idOrPath: string, idOrName: string): Promise<void> {
    const { project } = await this.projects.findWithLevel(actor, idOrPath, AccessLevel.Maintainer);
    const row = await this.licenseRow(project.id, idOrName);
    await this.db.deleteFrom('managed_licenses').where('id', '=', row.id).execute();
  }

  private async licenseRow(projectId: number, idOrName: string) {
    let q = this.db.selectFrom('managed_licenses').selectAll().where('project_id', '=', projectId);
    q = /^\d+$/.test(idOrName) ? q.where('id', '=', Number(idOrName)) : q.where('name', '=', idOrName);
    const row = await q.executeTakeFirst();
    if (!row) throw notFound('Software License');
    return row;
  }

  private async ruleRow(projectId: number, id: number) {
    const row = await this.db
      .selectFrom('approval_rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('Approval Rule');
    return row;
  }

  private async validateRule(projectId: number, input: ApprovalRuleInput, id: number | null): Promise<void> {
    const errors: Record<string, string[]> = {};
    if (input.name !== undefined) {
      if (!input.name.trim()) errors.name = ["can't be blank"];
      else {
        let q = this.db
          .selectFrom('approval_rules')
          .select('id')
          .where('project_id', '=', projectId)
          .where('name', '=', input.name.trim());
        if (id !== null) q = q.where('id', '!=', id);
        if (await q.executeTakeFirst()) errors.name = ['has already been taken'];
      }
    }
    for (const u of input.user_ids ?? []) {
      if (!(await this.users.findById(u))) errors.user_ids = [`user ${u} does not exist`];
    }
    for (const g of input.group_ids ?? []) {
      const ns = await this.namespaces.findById(g);
      if (!ns || ns.kind !== 'group') errors.group_ids = [`group ${g} does not exist`];
    }
    if (Object.keys(errors).length > 0) throw invalidFields(errors);
  }

  private async toRule(r: Selectable<Database['approval_rules']>): Promise<ApprovalRule> {
    const [users, groups] = await Promise.all([
      Promise.all(ids(r.user_ids).map((id) => this.users.findById(id))),
      Promise.all(ids(r.group_ids).map((id) => this.namespaces.findById(id))),
    ]);
    return {
      id: r.id,
      name: r.name,
      approvalsRequired: r.approvals_required,
      // Users and groups deleted since are dropped from the rule.
      users: users.filter((u): u is User => u !== null),
      groups: groups.filter((g): g is Namespace => g !== null),
    };
  }
}

function unique(values: readonly number[] | undefined): number[] {
  return [...new Set(values ?? [])];
}

function toSettings(r: Selectable<ProjectApprovalSettingsTable>): ApprovalSettings {
  return {
    approvals_before_merge: r.approvals_before_merge,
    reset_approvals_on_push: readBool(r.reset_approvals_on_push),
    disable_overriding_approvers_per_merge_request: readBool(
      r.disable_overriding_approvers_per_merge_request,
    ),
    merge_requests_author_approval: readBool(r.merge_requests_author_approval),
    merge_requests_disable_committers_approval: readBool(r.merge_requests_disable_committers_approval),
    require_password_to_approve: readBool(r.require_password_to_approve),
  };
}

function toLicense(r: Selectable<Database['managed_licenses']>): ManagedLicense {
  return { id: r.id, name: r.name, approval_status: r.approval_status as ManagedLicense['approval_status'] };
}
