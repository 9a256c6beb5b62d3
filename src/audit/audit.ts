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
