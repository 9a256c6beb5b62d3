import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Params = Type.Object({ id: Type.String() });
const RuleParams = Type.Object({ id: Type.String(), approval_rule_id: Type.Integer() });
const LicenseParams = Type.Object({ id: Type.String(), managed_license_id: Type.String() });
/** The fields of an approval rule's body (a project's or a merge request's). */
export const RuleBody = {
  approvals_required: Type.Integer({ minimum: 0 }),
  user_ids: Type.Optional(Type.Array(Type.Integer())),
  group_ids: Type.Optional(Type.Array(Type.Integer())),
};

/** Approval configuration and project-level approval rules; managed licenses (v4 only, deprecated). */
export function approvalRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'projectApprovalRules' | 'config'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['merge request approvals'];

  app.get(
    '/projects/:id/approvals',
    {
      schema: {
        tags,
        summary: 'Approval configuration of a project',
        params: Params,
        response: { 200: E.ApprovalSettingsEntity },
      },
    },
    async (req, reply) => {
      // v4 still carries the always-empty approvers and approver_groups (spec: removed in v5).
      if (!api.removes('approvals_approvers_fields')) reply.deprecated('approvals_approvers_fields');
      return P.approvalSettings(await ctx.projectApprovalRules.settings(req.actor.user, req.params.id));
    },
  );
  app.post(
    '/projects/:id/approvals',
    {
      schema: {
        tags,
        summary: 'Change the approval configuration of a project (Maintainer)',
        params: Params,
        body: Type.Object({
          approvals_before_merge: Type.Optional(Type.Integer({ minimum: 0 })),
          reset_approvals_on_push: Type.Optional(Type.Boolean()),
          disable_overriding_approvers_per_merge_request: Type.Optional(Type.Boolean()),
          merge_requests_author_approval: Type.Optional(Type.Boolean()),
          merge_requests_disable_committers_approval: Type.Optional(Type.Boolean()),
          require_password_to_approve: Type.Optional(Type.Boolean()),
        }),
        response: { 201: E.ApprovalSettingsEntity },
      },
    },
    async (req, reply) => {
      const s = await ctx.projectApprovalRules.updateSettings(req.actor.user, req.params.id, req.body);
      if (!api.removes('approvals_approvers_fields')) reply.deprecated('approvals_approvers_fields');
      return reply.status(201).send(P.approvalSettings(s));
    },
  );

  const rules = '/projects/:id/approval_rules';
  app.get(
    rules,
    {
      schema: {
        tags,
        summary: 'Project-level approval rules',
        params: Params,
        response: { 200: Type.Array(E.ApprovalRuleEntity) },
      },
    },
    async (req) =>
      (await ctx.projectApprovalRules.rules(req.actor.user, req.params.id)).map((r) =>
        P.approvalRule(r, viewOf(req, url)),
      ),
  );
  app.get(
    `${rules}/:approval_rule_id`,
    {
      schema: {
        tags,
        summary: 'A project-level approval rule',
        params: RuleParams,
        response: { 200: E.ApprovalRuleEntity },
      },
    },
    async (req) =>
      P.approvalRule(
        await ctx.projectApprovalRules.rule(req.actor.user, req.params.id, req.params.approval_rule_id),
        viewOf(req, url),
      ),
  );
  app.post(
    rules,
    {
      schema: {
        tags,
        summary: 'Create a project-level approval rule (Maintainer)',
        params: Params,
        body: Type.Object({ name: Type.String(), ...RuleBody }),
        response: { 201: E.ApprovalRuleEntity },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          P.approvalRule(
            await ctx.projectApprovalRules.createRule(req.actor.user, req.params.id, req.body),
            viewOf(req, url),
          ),
        ),
  );
  app.put(
    `${rules}/:approval_rule_id`,
    {
      schema: {
        tags,
        summary: 'Update a project-level approval rule (Maintainer)',
        params: RuleParams,
        body: Type.Object({
          name: Type.Optional(Type.String()),
          ...RuleBody,
          approvals_required: Type.Optional(RuleBody.approvals_required),
        }),
        response: { 200: E.ApprovalRuleEntity },
      },
    },
    async (req) =>
      P.approvalRule(
        await ctx.projectApprovalRules.updateRule(
          req.actor.user,
          req.params.id,
          req.params.approval_rule_id,
          req.body,
        ),
        viewOf(req, url),
      ),
  );
  app.delete(
    `${rules}/:approval_rule_id`,
    { schema: { tags, summary: 'Delete a project-level approval rule (Maintainer)', params: RuleParams } },
    async (req, reply) => {
      await ctx.projectApprovalRules.deleteRule(req.actor.user, req.params.id, req.params.approval_rule_id);
      return reply.status(204).send();
    },
  );

  // Spec: "Managed licenses endpoint … Removed" in v5 (replacement: the License Approval policy feature).
  if (api.removes('managed_licenses_api')) return;
  const licenses = '/projects/:id/managed_licenses';
  const licenseTags = ['managed licenses'];
  app.get(
    licenses,
    {
      schema: {
        tags: licenseTags,
        summary: 'Managed licenses of a project (deprecated; removed in v5)',
        deprecated: true,
        params: Params,
        response: { 200: Type.Array(E.ManagedLicenseEntity) },
      },
    },
    async (req, reply) => {
      reply.deprecated('managed_licenses_api');
      return (await ctx.projectApprovalRules.licenses(req.actor.user, req.params.id)).map(P.managedLicense);
    },
  );
  app.get(
    `${licenses}/:managed_license_id`,
    {
      schema: {
        tags: licenseTags,
        summary: 'A managed license, by id or name (deprecated; removed in v5)',
        deprecated: true,
        params: LicenseParams,
        response: { 200: E.ManagedLicenseEntity },
      },
    },
    async (req, reply) => {
      reply.deprecated('managed_licenses_api');
      return P.managedLicense(
        await ctx.projectApprovalRules.license(req.actor.user, req.params.id, req.params.managed_license_id),
      );
    },
  );
  app.post(
    licenses,
    {
      schema: {
        tags: licenseTags,
        summary: 'Add a managed license (Maintainer; deprecated, removed in v5)',
        deprecated: true,
        params: Params,
        body: Type.Object({ name: Type.String(), approval_status: Type.String() }),
        response: { 201: E.ManagedLicenseEntity },
      },
    },
    async (req, reply) => {
      const l = await ctx.projectApprovalRules.createLicense(
        req.actor.user,
        req.params.id,
        req.body.name,
        req.body.approval_status,
      );
      return reply.deprecated('managed_licenses_api').status(201).send(P.managedLicense(l));
    },
  );
  app.delete(
    `${licenses}/:managed_license_id`,
    {
      schema: {
        tags: licenseTags,
        summary: 'Remove a managed license (Maintainer; deprecated, removed in v5)',
        deprecated: true,
        params: LicenseParams,
      },
    },
    async (req, reply) => {
      await ctx.projectApprovalRules.deleteLicense(
        req.actor.user,
        req.params.id,
        req.params.managed_license_id,
      );
      return reply.deprecated('managed_licenses_api').status(204).send();
    },
  );
}
