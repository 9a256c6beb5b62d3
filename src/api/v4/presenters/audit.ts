import type { Static } from '@sinclair/typebox';
import type { AuditEvent, Destination } from '../../../audit/audit.service.js';
import type { AuditDestinationEntity, AuditEventEntity } from '../entities/audit.js';

export function auditEvent(e: AuditEvent): Static<typeof AuditEventEntity> {
  return {
    id: e.id,
    author_id: e.authorId,
    entity_id: e.entityId,
    entity_type: e.entityType,
    event_name: e.eventName,
    details: e.details,
    created_at: e.createdAt,
  };
}

export function auditDestination(d: Destination): Static<typeof AuditDestinationEntity> {
  return { id: d.id, destination_url: d.destinationUrl, verification_token: d.verificationToken };
}
