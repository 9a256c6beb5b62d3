import type { Static } from 'typebox';
import type { PolicyView, RuleEscalationView, RuleView } from '../../escalation/escalation.service.js';
import type { User } from '../../users/users.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  AlertEscalationEntity,
  EscalationPolicyEntity,
  EscalationRuleEntity,
} from './escalation.entities.js';

/** A rule's target: a schedule (iid and name) or a user. */
function target(
  r: { schedule: { iid: number; name: string } | null; user: User | null },
  v: View,
): Pick<Static<typeof EscalationRuleEntity>, 'oncall_schedule' | 'user'> {
  return {
    oncall_schedule: r.schedule ? { iid: r.schedule.iid, name: r.schedule.name } : null,
    user: r.user ? userBasic(r.user, v) : null,
  };
}

export function escalationRule(r: RuleView, v: View): Static<typeof EscalationRuleEntity> {
  return {
    id: r.id,
    elapsed_time_seconds: r.elapsedTimeSeconds,
    status: r.status,
    ...target(r, v),
    integration_slug: r.chatIntegration?.slug ?? null,
  };
}

export function escalationPolicy(p: PolicyView, v: View): Static<typeof EscalationPolicyEntity> {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    rules: p.rules.map((r) => escalationRule(r, v)),
    repeat: p.repeat,
    ack_timeout_minutes: p.ackTimeoutMinutes,
  };
}

export function alertEscalation(e: RuleEscalationView, v: View): Static<typeof AlertEscalationEntity> {
  return {
    rule_id: e.ruleId,
    elapsed_time_seconds: e.elapsedTimeSeconds,
    status: e.status,
    ...target(e, v),
    due_at: e.dueAt,
    state: e.state,
    pages: e.pages.map((p) => ({
      round: p.round,
      cycle: p.cycle,
      user: p.user ? userBasic(p.user, v) : null,
      paged_at: p.at,
      email_status: p.emailStatus,
    })),
  };
}
