import type { Kysely, Selectable } from 'kysely';
import { readBool, writeBool } from '../db/dialect.js';
import type { Database, ProjectApprovalSettingsTable } from '../db/schema.js';
import type { ApprovalRuleRecord, ApprovalSettings, ManagedLicense } from './project-approval-rules.js';

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

/** A stored approval rule (of a project or a merge request: the same columns) as a record. */
export function toRule(
  r: Pick<
    Selectable<Database['approval_rules']>,
    'id' | 'name' | 'approvals_required' | 'user_ids' | 'group_ids'
  >,
): ApprovalRuleRecord {
  return {
    id: r.id,
    name: r.name,
    approvalsRequired: r.approvals_required,
    userIds: JSON.parse(r.user_ids) as number[],
    groupIds: JSON.parse(r.group_ids) as number[],
  };
}

/** The columns a change of a rule sets (only what it names). */
export function ruleChange(change: Partial<Omit<ApprovalRuleRecord, 'id'>>) {
  return {
    ...(change.name !== undefined && { name: change.name }),
    ...(change.approvalsRequired !== undefined && { approvals_required: change.approvalsRequired }),
    ...(change.userIds !== undefined && { user_ids: JSON.stringify(change.userIds) }),
    ...(change.groupIds !== undefined && { group_ids: JSON.stringify(change.groupIds) }),
  };
}

function toLicense(r: Selectable<Database['managed_licenses']>): ManagedLicense {
  return { id: r.id, name: r.name, approval_status: r.approval_status as ManagedLicense['approval_status'] };
}

/** Approval configuration, approval rules and managed licenses of projects. */
export class ProjectApprovalRulesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The project's configuration; null when it never changed it. */
  async settings(projectId: number): Promise<ApprovalSettings | null> {
    const row = await this.db
      .selectFrom('project_approval_settings')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return row ? toSettings(row) : null;
  }

  async saveSettings(projectId: number, s: ApprovalSettings): Promise<void> {
    const row = {
      approvals_before_merge: s.approvals_before_merge,
      reset_approvals_on_push: writeBool(s.reset_approvals_on_push),
      disable_overriding_approvers_per_merge_request: writeBool(
        s.disable_overriding_approvers_per_merge_request,
      ),
      merge_requests_author_approval: writeBool(s.merge_requests_author_approval),
      merge_requests_disable_committers_approval: writeBool(s.merge_requests_disable_committers_approval),
      require_password_to_approve: writeBool(s.require_password_to_approve),
    };
    await this.db
      .insertInto('project_approval_settings')
      .values({ project_id: projectId, ...row })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(row))
      .execute();
  }

  async rules(projectId: number): Promise<ApprovalRuleRecord[]> {
    const rows = await this.db
      .selectFrom('approval_rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(toRule);
  }

  async rule(projectId: number, id: number): Promise<ApprovalRuleRecord | null> {
    const row = await this.db
      .selectFrom('approval_rules')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRule(row) : null;
  }

  /** Whether another rule of the project (not `exceptId`) has this name. */
  async ruleNameTaken(projectId: number, name: string, exceptId: number | null): Promise<boolean> {
    let q = this.db
      .selectFrom('approval_rules')
      .select('id')
      .where('project_id', '=', projectId)
      .where('name', '=', name);
    if (exceptId !== null) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async insertRule(
    projectId: number,
    rule: Omit<ApprovalRuleRecord, 'id'>,
    now: string,
  ): Promise<ApprovalRuleRecord> {
    const row = await this.db
      .insertInto('approval_rules')
      .values({
        project_id: projectId,
        name: rule.name,
        approvals_required: rule.approvalsRequired,
        user_ids: JSON.stringify(rule.userIds),
        group_ids: JSON.stringify(rule.groupIds),
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRule(row);
  }

  async updateRule(id: number, change: Partial<Omit<ApprovalRuleRecord, 'id'>>): Promise<void> {
    await this.db.updateTable('approval_rules').set(ruleChange(change)).where('id', '=', id).execute();
  }

  async deleteRule(id: number): Promise<void> {
    await this.db.deleteFrom('approval_rules').where('id', '=', id).execute();
  }

  async licenses(projectId: number): Promise<ManagedLicense[]> {
    const rows = await this.db
      .selectFrom('managed_licenses')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
    return rows.map(toLicense);
  }

  /** A license by numeric id, or else by name. */
  async license(projectId: number, idOrName: string): Promise<ManagedLicense | null> {
    let q = this.db.selectFrom('managed_licenses').selectAll().where('project_id', '=', projectId);
    q = /^\d+$/.test(idOrName) ? q.where('id', '=', Number(idOrName)) : q.where('name', '=', idOrName);
    const row = await q.executeTakeFirst();
    return row ? toLicense(row) : null;
  }

  async licenseNameTaken(projectId: number, name: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('managed_licenses')
      .select('id')
      .where('project_id', '=', projectId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertLicense(
    projectId: number,
    name: string,
    status: ManagedLicense['approval_status'],
  ): Promise<ManagedLicense> {
    const row = await this.db
      .insertInto('managed_licenses')
      .values({ project_id: projectId, name, approval_status: status })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toLicense(row);
  }

  async deleteLicense(id: number): Promise<void> {
    await this.db.deleteFrom('managed_licenses').where('id', '=', id).execute();
  }
}
