import type { Frame } from './events.js';

/** Error tracking domain types. */

export type ErrorStatus = 'unresolved' | 'resolved' | 'ignored';
export const ERROR_STATUSES: readonly ErrorStatus[] = ['unresolved', 'resolved', 'ignored'];

export interface ErrorTrackingSettings {
  readonly enabled: boolean;
  readonly integrated: boolean;
  /** External backend: `https://sentry.example/api/0/projects/<org>/<project>/`. */
  readonly apiUrl: string | null;
  readonly hasToken: boolean;
  readonly projectName: string | null;
  readonly organizationName: string | null;
}

export interface ClientKey {
  readonly id: number;
  readonly projectId: number;
  readonly active: boolean;
  readonly publicKey: string;
  readonly createdAt: string;
}

export interface TrackedError {
  readonly id: number;
  /** The external system's own title, when it has one (Sentry issues); else built from type and message. */
  readonly title?: string;
  readonly projectId: number;
  readonly type: string;
  readonly message: string;
  readonly culprit: string;
  readonly platform: string;
  readonly status: ErrorStatus;
  readonly count: number;
  readonly userCount: number;
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** When the error, resolved, was last seen again (a regression); null when it never was, or unknown. */
  readonly regressedAt?: string | null;
  readonly firstRelease: string | null;
  readonly lastRelease: string | null;
  readonly environment: string | null;
  readonly tags: Readonly<Record<string, string>>;
  /** The error's page in the external system (a Sentry issue's permalink); absent for integrated errors. */
  readonly externalUrl?: string | null;
}

export interface ErrorEvent {
  readonly id: number;
  readonly errorId: number;
  readonly eventId: string;
  readonly level: string;
  readonly environment: string | null;
  readonly release: string | null;
  readonly message: string;
  readonly userKey: string | null;
  readonly occurredAt: string;
  readonly payload: Record<string, unknown>;
}

export interface StackTrace {
  readonly errorId: number | string;
  readonly dateReceived: string;
  readonly frames: readonly Frame[];
}

/** A grouping hash of an error: events with this hash land in it. */
export interface ErrorHash {
  readonly hash: string;
  /** The grouping version that computed it (grouping.ts). */
  readonly groupingVersion: string;
  readonly createdAt: string;
  /** Stored events of the error that this hash brought. */
  readonly eventsCount: number;
}
