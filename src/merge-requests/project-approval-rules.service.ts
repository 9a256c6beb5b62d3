import type { Clock } from '../clock.js';
import { conflict, invalidFields, notFound, paramError } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Namespace } from '../namespaces/namespaces.js';
import type { NamespacesService } from '../namespaces/namespaces.service.js';
import type { Access } from '../projects/access.js';
import type { User } from '../users/users.js';
import type { UsersService } from '../users/users.service.js';
import {
  type ApprovalRule,
  type ApprovalRuleInput,
  type ApprovalRuleRecord,
  type ApprovalSettings,
  DEFAULT_APPROVAL_SETTINGS,
  type ManagedLicense,
} from './project-approval-rules.js';
import type { ProjectApprovalRulesRepository } from './project-approval-rules.repository.js';

/** GitLab's older status names are still accepted on input. */
const LICENSE_STATUS: Record<string, ManagedLicense['approval_status']> = {
  allowed: 'allowed',
  approved: 'allowed',
  denied: 'denied',
  blacklisted: 'denied',
};

/** Approval configuration, project-level approval rules and (v4 only) managed licenses. */
export class ProjectApprovalRulesService {
  constructor(
    private readonly repo: ProjectApprovalRulesRepository,
    private readonly access: Access,
    private readonly users: Pick<UsersService, 'findById'>,
    private readonly namespaces: Pick<NamespacesService, 'findById'>,
    private readonly clock: Clock,
  ) {}

  async settings(actor: User | null, idOrPath: string): Promise<ApprovalSettings> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    return (await this.repo.settings(project.id)) ?? DEFAULT_APPROVAL_SETTINGS;
  }

  async updateSettings(
    actor: User | null,
    idOrPath: string,
    input: Partial<ApprovalSettings>,
  ): Promise<ApprovalSettings> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    const next = { ...(await this.settings(actor, String(project.id))), ...input };
    await this.repo.saveSettings(project.id, next);
    return next;
  }

  /** A project's approval configuration, for the merge request approvals service (no caller check). */
  async settingsOf(projectId: number): Promise<ApprovalSettings> {
    return (await this.repo.settings(projectId)) ?? DEFAULT_APPROVAL_SETTINGS;
  }

  /** A project's approval rules, for the merge request approvals service (no caller check). */
  async rulesOf(projectId: number): Promise<ApprovalRule[]> {
    return Promise.all((await this.repo.rules(projectId)).map((r) => this.toRule(r)));
  }

  /** A project's approval rules as stored (merge requests copy them when their rules are first changed). */
  recordsOf(projectId: number): Promise<ApprovalRuleRecord[]> {
    return this.repo.rules(projectId);
  }

  async rules(actor: User | null, idOrPath: string): Promise<ApprovalRule[]> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    return Promise.all((await this.repo.rules(project.id)).map((r) => this.toRule(r)));
  }

  async rule(actor: User | null, idOrPath: string, id: number): Promise<ApprovalRule> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Reporter);
    return this.toRule(await this.findRule(project.id, id));
  }

  async createRule(actor: User | null, idOrPath: string, input: ApprovalRuleInput): Promise<ApprovalRule> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    if (input.name === undefined) throw paramError('name is missing');
    if (input.approvals_required === undefined) throw paramError('approvals_required is missing');
    await this.validateRule(project.id, input, null);
    const rule = await this.repo.insertRule(
      project.id,
      {
        name: input.name.trim(),
        approvalsRequired: input.approvals_required,
        userIds: unique(input.user_ids),
        groupIds: unique(input.group_ids),
      },
      this.clock.now().toISOString(),
    );
    return this.toRule(rule);
  }

  async updateRule(
    actor: User | null,
    idOrPath: string,
    id: number,
    input: ApprovalRuleInput,
  ): Promise<ApprovalRule> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    await this.findRule(project.id, id);
    await this.validateRule(project.id, input, id);
    await this.repo.updateRule(id, {
      ...(input.name !== undefined && { name: input.name.trim() }),
      ...(input.approvals_required !== undefined && { approvalsRequired: input.approvals_required }),
      ...(input.user_ids !== undefined && { userIds: unique(input.user_ids) }),
      ...(input.group_ids !== undefined && { groupIds: unique(input.group_ids) }),
    });
    return this.toRule(await this.findRule(project.id, id));
  }

  async deleteRule(actor: User | null, idOrPath: string, id: number): Promise<void> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    await this.findRule(project.id, id);
    await this.repo.deleteRule(id);
  }

  async licenses(actor: User | null, idOrPath: string): Promise<ManagedLicense[]> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    return this.repo.licenses(project.id);
  }

  async license(actor: User | null, idOrPath: string, idOrName: string): Promise<ManagedLicense> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Developer);
    return this.findLicense(project.id, idOrName);
  }

  async createLicense(
    actor: User | null,
    idOrPath: string,
    name: string,
    status: string,
  ): Promise<ManagedLicense> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    const approval = LICENSE_STATUS[status];
    if (!approval) throw paramError('approval_status does not have a valid value');
    if (!name.trim()) throw invalidFields({ name: ["can't be blank"] });
    if (await this.repo.licenseNameTaken(project.id, name.trim()))
      throw conflict('Software license already exists');
    return this.repo.insertLicense(project.id, name.trim(), approval);
  }

  async deleteLicense(actor: User | null, idOrPath: string, idOrName: string): Promise<void> {
    const { project } = await this.access.project(actor, idOrPath, AccessLevel.Maintainer);
    await this.repo.deleteLicense((await this.findLicense(project.id, idOrName)).id);
  }

  private async findLicense(projectId: number, idOrName: string): Promise<ManagedLicense> {
    const license = await this.repo.license(projectId, idOrName);
    if (!license) throw notFound('Software License');
    return license;
  }

  private async findRule(projectId: number, id: number): Promise<ApprovalRuleRecord> {
    const rule = await this.repo.rule(projectId, id);
    if (!rule) throw notFound('Approval Rule');
    return rule;
  }

  private async validateRule(projectId: number, input: ApprovalRuleInput, id: number | null): Promise<void> {
    await this.validateRuleInput(input, async (name) => this.repo.ruleNameTaken(projectId, name, id));
  }

  /** 400 naming each bad field: a blank or taken name, users or groups that do not exist. */
  async validateRuleInput(
    input: ApprovalRuleInput,
    nameTaken: (name: string) => Promise<boolean>,
  ): Promise<void> {
    const errors: Record<string, string[]> = {};
    if (input.name !== undefined) {
      if (!input.name.trim()) errors.name = ["can't be blank"];
      else if (await nameTaken(input.name.trim())) errors.name = ['has already been taken'];
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

  /** A stored rule with its users and groups. */
  async toRule(r: ApprovalRuleRecord): Promise<ApprovalRule> {
    const [users, groups] = await Promise.all([
      Promise.all(r.userIds.map((id) => this.users.findById(id))),
      Promise.all(r.groupIds.map((id) => this.namespaces.findById(id))),
    ]);
    return {
      id: r.id,
      name: r.name,
      approvalsRequired: r.approvalsRequired,
      // Users and groups deleted since are dropped from the rule.
      users: users.filter((u): u is User => u !== null),
      groups: groups.filter((g): g is Namespace => g !== null),
    };
  }
}

export function unique(values: readonly number[] | undefined): number[] {
  return [...new Set(values ?? [])];
}
