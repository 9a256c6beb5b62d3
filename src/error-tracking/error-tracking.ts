import type { ResolvedFrame } from './symbolication.js';

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
  /** Largest attachment the collector keeps, in bytes; larger ones are dropped and counted. */
  readonly maxAttachmentSize: number;
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
  /** Triage (integrated backend only; absent for an external Sentry's errors). */
  readonly assigneeId?: number | null;
  readonly resolution?: Resolution | null;
  readonly ignore?: IgnoreCondition | null;
}

/**
 * How a resolved error stays resolved (Sentry's GroupResolution): `in_release` a named release, `in_next_release`
 * any release newer than `release`, the latest when it was resolved. `releaseSeenAt` is when that release was first
 * seen in the project, which orders it against an event's release.
 */
export interface Resolution {
  readonly type: 'in_release' | 'in_next_release';
  readonly release: string;
  readonly releaseSeenAt: string;
}

/**
 * Until when an ignored error stays ignored (Sentry's GroupSnooze): until a time, for `count` more events, for
 * `userCount` more users; the first condition to lapse makes it unresolved. The bases are the error's counts when
 * it was ignored.
 */
export interface IgnoreCondition {
  readonly until: string | null;
  readonly count: number | null;
  readonly eventsBase: number | null;
  readonly userCount: number | null;
  readonly usersBase: number | null;
}

/** What happened to an error: Sentry's activity types, and `note` for a comment. */
export type ActivityKind =
  | 'note'
  | 'set_resolved'
  | 'set_resolved_in_release'
  | 'set_unresolved'
  | 'set_ignored'
  | 'unignored'
  | 'set_regression'
  | 'assigned'
  | 'unassigned'
  | 'merge'
  | 'unmerge_source'
  | 'unmerge_destination';

export interface ErrorActivity {
  readonly id: number;
  readonly errorId: number;
  readonly kind: ActivityKind;
  /** Who did it; null for what the system did (a regression, an ignore that lapsed). */
  readonly authorId: number | null;
  /** A comment's Markdown. */
  readonly body: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

/** Whether an ignore has lapsed at `now` with the error's counts (`count`, `userCount`) as they are now. */
export function ignoreLapsed(
  c: IgnoreCondition,
  now: string,
  counts: { count: number; userCount: number },
): 'until' | 'count' | 'user_count' | null {
  if (c.until !== null && Date.parse(c.until) <= Date.parse(now)) return 'until';
  // "For N more events": the N events after the ignore keep it ignored, the one after them does not.
  if (c.count !== null && c.eventsBase !== null && counts.count - c.eventsBase > c.count) return 'count';
  if (c.userCount !== null && c.usersBase !== null && counts.userCount - c.usersBase > c.userCount)
    return 'user_count';
  return null;
}

/**
 * Whether an event of `release` (first seen in the project at `releaseSeenAt`) leaves a resolution standing
 * (Sentry's GroupResolution.has_resolution, ordered by when releases were first seen): an event without a release
 * or of an older one does; for `in_next_release` so does one of the release it was resolved in; for `in_release`
 * an event of that very release is a regression (the fix was meant to be in it).
 */
export function resolutionHolds(
  r: Resolution,
  release: string | null,
  releaseSeenAt: string | null,
): boolean {
  if (release === null || releaseSeenAt === null) return true;
  if (release === r.release) return r.type === 'in_next_release';
  const seen = Date.parse(releaseSeenAt);
  const resolved = Date.parse(r.releaseSeenAt);
  // Sentry's comparison of the releases' dates: strict for the next release, inclusive for a named one.
  return r.type === 'in_next_release' ? seen < resolved : seen <= resolved;
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
  /** Caller first; JavaScript frames resolved through uploaded source maps carry their minified frame. */
  readonly frames: readonly ResolvedFrame[];
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
