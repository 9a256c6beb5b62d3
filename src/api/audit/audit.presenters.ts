import type { Static } from 'typebox';
import { type AuditEvent, type Destination, streamedEvent } from '../../audit/audit.js';
import type { AuditDestinationEntity, AuditEventEntity } from './audit.entities.js';

/** GitLab's AuditEvent entity: the same JSON a streaming destination receives for the event. */
export function auditEvent(e: AuditEvent): Static<typeof AuditEventEntity> {
  return streamedEvent(e);
}

export function auditDestination(d: Destination): Static<typeof AuditDestinationEntity> {
  return { id: d.id, destination_url: d.destinationUrl, verification_token: d.verificationToken };
}
