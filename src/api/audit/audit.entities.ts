import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';

/** GitLab's AuditEvent entity (`id` is null only for events that were streamed, never stored). */
export const AuditEventEntity = Type.Object({
  id: Nullable(Int),
  author_id: Nullable(Int),
  entity_id: Int,
  entity_type: Type.Union([Type.Literal('Project'), Type.Literal('Group'), Type.Literal('User')]),
  event_name: Str,
  details: Type.Record(Str, Type.Unknown()),
  created_at: Str,
});

/** A streaming destination, with the token it receives in every event's header. */
export const AuditDestinationEntity = Type.Object({ id: Int, destination_url: Str, verification_token: Str });
