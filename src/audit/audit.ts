/** Audit events and their streaming destinations. */

export interface AuditEvent {
  readonly id: number | null;
  readonly authorId: number | null;
  readonly entityType: 'Project' | 'Group' | 'User';
  readonly entityId: number;
  readonly eventName: string;
  readonly details: Record<string, unknown>;
  readonly ipAddress: string | null;
  readonly createdAt: string;
}

export interface Destination {
  readonly id: number;
  readonly destinationUrl: string;
  readonly verificationToken: string;
}

export interface AuditFilter {
  entityType?: string;
  entityId?: number;
  createdAfter?: string;
  createdBefore?: string;
}

/** The JSON body POSTed to a streaming destination for one event (the API's presenter answers the same). */
export type StreamedEvent = ReturnType<typeof streamedEvent>;

export function streamedEvent(e: AuditEvent) {
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
