import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/** One rule of an escalation policy (GitLab's GraphQL EscalationRuleType in snake_case). */
export const EscalationRuleEntity = Type.Object({
  id: Int,
  elapsed_time_seconds: Int,
  /** `acknowledged`: page while the alert is triggered; `resolved`: page while it is not resolved. */
  status: Str,
  oncall_schedule: Nullable(Type.Object({ iid: Int, name: Str })),
  user: Nullable(UserBasic),
  /** svc: the chat integration the rule pages (its slug), or null. */
  integration_slug: Type.Optional(Nullable(Str)),
});

/** An escalation policy (GitLab's GraphQL EscalationPolicyType in snake_case). */
export const EscalationPolicyEntity = Type.Object({
  id: Int,
  name: Str,
  description: Nullable(Str),
  rules: Type.Array(EscalationRuleEntity),
  /** svc: how many more times the rules run, from the first, while the alert stays triggered (0..9). */
  repeat: Int,
  /** svc: minutes an acknowledged alert may stay unresolved before it is triggered again; null: for ever. */
  ack_timeout_minutes: Nullable(Int),
});

/** A rule as `POST/PUT .../escalation_policies` take it: one target of `oncall_schedule_iid`, `username`, `user_id`. */
export const EscalationRuleInput = Type.Object({
  elapsed_time_seconds: Type.Optional(Type.Integer()),
  status: Type.Optional(Type.String()),
  oncall_schedule_iid: Type.Optional(Type.Integer()),
  username: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.Integer()),
  /** svc: a chat integration of the project to page (`slack`, `discord` ...). */
  integration_slug: Type.Optional(Type.String()),
});

export const EscalationPolicyInput = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
  rules: Type.Optional(Type.Array(EscalationRuleInput)),
  repeat: Type.Optional(Type.Integer()),
  ack_timeout_minutes: Type.Optional(Nullable(Type.Integer())),
});

/** One rule's escalation of one alert (svc): pending, paged (whom, when) or skipped. */
export const AlertEscalationEntity = Type.Object({
  rule_id: Int,
  elapsed_time_seconds: Nullable(Int),
  status: Nullable(Str),
  oncall_schedule: Nullable(Type.Object({ iid: Int, name: Str })),
  user: Nullable(UserBasic),
  due_at: Nullable(Str),
  state: Str,
  pages: Type.Array(
    Type.Object({
      round: Int,
      cycle: Nullable(Int),
      user: Nullable(UserBasic),
      paged_at: Str,
      email_status: Str,
    }),
  ),
});
