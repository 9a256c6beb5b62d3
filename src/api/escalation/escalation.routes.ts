import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { EscalationRef, PolicyInput } from '../../escalation/escalation.service.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Params = Type.Object({ id: Type.String() });
const PolicyParams = Type.Object({ id: Type.String(), policy_id: Type.Integer() });
const AlertParams = Type.Object({ id: Type.String(), alert_iid: Type.Integer() });

type RuleBody = {
  elapsed_time_seconds?: number;
  status?: string;
  oncall_schedule_iid?: number;
  username?: string;
  user_id?: number;
  integration_slug?: string;
};

const toInput = (b: {
  name?: string;
  description?: string | null;
  rules?: RuleBody[];
  repeat?: number;
  ack_timeout_minutes?: number | null;
}): PolicyInput => ({
  name: b.name,
  repeat: b.repeat,
  ackTimeoutMinutes: b.ack_timeout_minutes,
  description: b.description,
  rules: b.rules?.map((r) => ({
    elapsedTimeSeconds: r.elapsed_time_seconds,
    status: r.status,
    oncallScheduleIid: r.oncall_schedule_iid,
    username: r.username,
    userId: r.user_id,
    integrationSlug: r.integration_slug,
  })),
});

/**
 * Escalation policies (`/projects/:id/incident_management/escalation_policies`, and a group's at
 * `/groups/:id/incident_management/escalation_policies`; Premium and Ultimate: Reporter reads, Maintainer writes)
 * and an alert's escalation state (`.../alerts/:alert_iid/escalations`).
 */
export function escalationRoutes(
  app: ApiApp,
  ctx: Pick<AppContext, 'escalations' | 'config'>,
  api: ApiVersion,
): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['escalation policies'];
  // A group's policy is a project's, at the group's path; it escalates the alerts of the projects below the group
  // that have none of their own.
  const owners = [
    {
      base: '/projects/:id/incident_management/escalation_policies',
      ref: (id: string): EscalationRef => id,
      whose: 'project',
    },
    {
      base: '/groups/:id/incident_management/escalation_policies',
      ref: (id: string): EscalationRef => ({ group: id }),
      whose: 'group',
    },
  ];
  for (const { base, ref, whose } of owners) {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: `The ${whose}'s escalation policy (a list of at most one; Reporter)`,
          params: Params,
          response: { 200: Type.Array(E.EscalationPolicyEntity) },
        },
      },
      async (req) =>
        (await ctx.escalations.list(req.actor.user, ref(req.params.id))).map((p) =>
          P.escalationPolicy(p, viewOf(req, url)),
        ),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: `Create the escalation policy of a ${whose} (one per ${whose}; Maintainer)`,
          params: Params,
          body: E.EscalationPolicyInput,
          response: { 201: E.EscalationPolicyEntity },
        },
      },
      async (req, reply) => {
        const policy = await ctx.escalations.create(
          req.actor.user,
          ref(req.params.id),
          toInput(req.body ?? {}),
        );
        return reply.status(201).send(P.escalationPolicy(policy, viewOf(req, url)));
      },
    );
    app.get(
      `${base}/:policy_id`,
      {
        schema: {
          tags,
          summary: 'One escalation policy (Reporter)',
          params: PolicyParams,
          response: { 200: E.EscalationPolicyEntity },
        },
      },
      async (req) =>
        P.escalationPolicy(
          await ctx.escalations.get(req.actor.user, ref(req.params.id), req.params.policy_id),
          viewOf(req, url),
        ),
    );
    app.put(
      `${base}/:policy_id`,
      {
        schema: {
          tags,
          summary: 'Change an escalation policy; `rules`, when given, replace its rules (Maintainer)',
          params: PolicyParams,
          body: E.EscalationPolicyInput,
          response: { 200: E.EscalationPolicyEntity },
        },
      },
      async (req) =>
        P.escalationPolicy(
          await ctx.escalations.update(
            req.actor.user,
            ref(req.params.id),
            req.params.policy_id,
            toInput(req.body ?? {}),
          ),
          viewOf(req, url),
        ),
    );
    app.delete(
      `${base}/:policy_id`,
      {
        schema: {
          tags,
          summary: 'Delete an escalation policy; escalations in progress stop (Maintainer)',
          params: PolicyParams,
        },
      },
      async (req, reply) => {
        await ctx.escalations.delete(req.actor.user, ref(req.params.id), req.params.policy_id);
        return reply.status(204).send();
      },
    );
  }
  app.get(
    '/projects/:id/alert_management/alerts/:alert_iid/escalations',
    {
      schema: {
        tags,
        summary: "An alert's escalation: each rule pending, paged (whom and when) or skipped (Reporter)",
        params: AlertParams,
        response: { 200: Type.Array(E.AlertEscalationEntity) },
      },
    },
    async (req) =>
      (await ctx.escalations.escalations(req.actor.user, req.params.id, req.params.alert_iid)).map((e) =>
        P.alertEscalation(e, viewOf(req, url)),
      ),
  );

  app.post(
    '/projects/:id/issues/:issue_iid/page',
    {
      schema: {
        tags,
        summary:
          "Page an incident: start an escalation policy on it (the project's by default) (Developer and above)",
        params: Type.Object({ id: Type.String(), issue_iid: Type.Integer() }),
        body: Type.Optional(Type.Object({ escalation_policy_id: Type.Optional(Type.Integer()) })),
        response: { 201: E.IssueEntity },
      },
    },
    async (req, reply) => {
      const issue = await ctx.escalations.pageIncident(
        req.actor.user,
        req.params.id,
        req.params.issue_iid,
        req.body?.escalation_policy_id,
      );
      return reply.status(201).send(P.issue(issue, viewOf(req, url)));
    },
  );
}
