/** Runners: domain types and the status rules. */

export type RunnerType = 'instance_type' | 'group_type' | 'project_type';
export const RUNNER_TYPES: readonly RunnerType[] = ['instance_type', 'group_type', 'project_type'];

export interface Runner {
  readonly id: number;
  readonly runnerType: RunnerType;
  readonly groupId: number | null;
  readonly projectIds: readonly number[];
  readonly description: string | null;
  readonly name: string | null;
  readonly active: boolean;
  readonly locked: boolean;
  readonly runUntagged: boolean;
  readonly tagList: readonly string[];
  readonly accessLevel: 'not_protected' | 'ref_protected';
  readonly maximumTimeout: number | null;
  readonly maintenanceNote: string | null;
  readonly contactedAt: string | null;
  readonly ipAddress: string | null;
  readonly creatorId: number | null;
  readonly createdAt: string;
}

/** A runner is online when it contacted svc within the last 2 hours (GitLab's window). */
const ONLINE_WINDOW_MS = 2 * 60 * 60 * 1000;

/** Spec (v5): status is only online, offline or not_connected (never contacted). */
export function contactStatus(r: Runner, now: Date): 'online' | 'offline' | 'not_connected' {
  if (r.contactedAt === null) return 'not_connected';
  return now.getTime() - Date.parse(r.contactedAt) <= ONLINE_WINDOW_MS ? 'online' : 'offline';
}

/** v4's status also says `paused` for paused runners (deprecated; spec v4-to-v5 table). */
export function legacyStatus(r: Runner, now: Date): 'online' | 'offline' | 'not_connected' | 'paused' {
  return r.active ? contactStatus(r, now) : 'paused';
}

export function isOnline(r: Runner, now: Date): boolean {
  return contactStatus(r, now) === 'online';
}
