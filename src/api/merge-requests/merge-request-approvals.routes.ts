import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { User } from '../../users/users.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';
import { RuleBody } from './project-approval-rules.routes.js';

const IidParams = Type.Object({ id: Type.String(), merge_request_iid: Type.Integer() });
const RuleParams = Type.Object({ ...IidParams.properties, approval_rule_id: Type.Integer() });

/** A merge request's approvals: state, approve, unapprove, and the rules that apply to it. */
export function mergeRequestApprovalRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'config' | 'mergeRequestApprovals'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['merge request approvals'];
  const path = '/projects/:id/merge_requests/:merge_request_iid';
  type IidRequest = { actor: { user: User | null }; params: { id: string; merge_request_iid: number } };
  const stateOf = (req: IidRequest) =>
    ctx.mergeRequestApprovals.state(req.actor.user, req.params.id, req.params.merge_request_iid);

  app.get(
    `${path}/approvals`,
    {
      schema: {
        tags,
        summary: 'Approvals of a merge request',
        params: IidParams,
        response: { 200: E.MergeRequestApprovalsEntity },
      },
    },
    async (req) => P.mergeRequestApprovals(await stateOf(req), viewOf(req, url)),
  );

  app.post(
    `${path}/approve`,
    {
      schema: {
        tags,
        summary: 'Approve a merge request (at its source head `sha`, when given)',
        params: IidParams,
        body: Type.Optional(
          Type.Partial(Type.Object({ sha: Type.String(), approval_password: Type.String() })),
        ),
        response: { 201: E.MergeRequestApprovalsEntity },
      },
    },
    async (req, reply) => {
      const state = await ctx.mergeRequestApprovals.approve(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        { sha: req.body?.sha, password: req.body?.approval_password },
      );
      return reply.status(201).send(P.mergeRequestApprovals(state, viewOf(req, url)));
    },
  );

  app.put(
    `${path}/reset_approvals`,
    {
      schema: {
        tags,
        summary: 'Withdraw every approval (GitLab: bot users of access tokens; svc: Maintainers)',
        params: IidParams,
      },
    },
    async (req, reply) => {
      await ctx.mergeRequestApprovals.resetApprovals(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
      );
      // GitLab's endpoint ends with `status :accepted`, whose value Grape sends as the body: the JSON number 202.
      return reply.status(202).type('application/json').send('202');
    },
  );

  app.post(
    `${path}/unapprove`,
    {
      schema: {
        tags,
        summary: "Withdraw the caller's approval",
        params: IidParams,
        response: { 201: E.MergeRequestApprovalsEntity },
      },
    },
    async (req, reply) => {
      const state = await ctx.mergeRequestApprovals.unapprove(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
      );
      return reply.status(201).send(P.mergeRequestApprovals(state, viewOf(req, url)));
    },
  );

  app.get(
    `${path}/approval_state`,
    {
      schema: {
        tags,
        summary: 'Each approval rule of a merge request and whether it is met',
        params: IidParams,
        response: { 200: E.MergeRequestApprovalStateEntity },
      },
    },
    async (req) => P.mergeRequestApprovalState(await stateOf(req), viewOf(req, url)),
  );

  app.get(
    `${path}/approval_rules`,
    {
      schema: {
        tags,
        summary: "The approval rules of a merge request (the project's rules)",
        params: IidParams,
        response: { 200: Type.Array(E.MergeRequestApprovalRuleEntity) },
      },
    },
    async (req) => (await stateOf(req)).rules.map((r) => P.mergeRequestApprovalRule(r, viewOf(req, url))),
  );

  app.post(
    `${path}/approval_rules`,
    {
      schema: {
        tags,
        summary: "Add an approval rule to a merge request (its rules then replace the project's for it)",
        params: IidParams,
        body: Type.Object({
          name: Type.String(),
          ...RuleBody,
          approval_project_rule_id: Type.Optional(Type.Integer()),
        }),
        response: { 201: E.MergeRequestApprovalRuleEntity },
      },
    },
    async (req, reply) => {
      const rule = await ctx.mergeRequestApprovals.createRule(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        req.body,
      );
      return reply.status(201).send(P.mergeRequestApprovalRule(rule, viewOf(req, url)));
    },
  );

  app.get(
    `${path}/approval_rules/:approval_rule_id`,
    {
      schema: {
        tags,
        summary: 'One approval rule of a merge request',
        params: RuleParams,
        response: { 200: E.MergeRequestApprovalRuleEntity },
      },
    },
    async (req) =>
      P.mergeRequestApprovalRule(
        await ctx.mergeRequestApprovals.rule(
          req.actor.user,
          req.params.id,
          req.params.merge_request_iid,
          req.params.approval_rule_id,
        ),
        viewOf(req, url),
      ),
  );

  app.put(
    `${path}/approval_rules/:approval_rule_id`,
    {
      schema: {
        tags,
        summary: 'Change an approval rule of a merge request',
        params: RuleParams,
        body: Type.Object({
          name: Type.Optional(Type.String()),
          ...RuleBody,
          approvals_required: Type.Optional(RuleBody.approvals_required),
        }),
        response: { 200: E.MergeRequestApprovalRuleEntity },
      },
    },
    async (req) =>
      P.mergeRequestApprovalRule(
        await ctx.mergeRequestApprovals.updateRule(
          req.actor.user,
          req.params.id,
          req.params.merge_request_iid,
          req.params.approval_rule_id,
          req.body,
        ),
        viewOf(req, url),
      ),
  );

  app.delete(
    `${path}/approval_rules/:approval_rule_id`,
    {
      schema: {
        tags,
        summary: 'Remove an approval rule from a merge request',
        params: RuleParams,
      },
    },
    async (req, reply) => {
      await ctx.mergeRequestApprovals.deleteRule(
        req.actor.user,
        req.params.id,
        req.params.merge_request_iid,
        req.params.approval_rule_id,
      );
      return reply.status(204).send();
    },
  );
}
