/** Escalation policies (Premium and Ultimate, as GitLab): domain types and pure rules. */

import type { AlertStatus } from '../alerts/alerts.js';

/** What a rule waits for: `acknowledged` pages while the alert is still triggered, `resolved` while it is open. */
export type EscalationStatus = 'acknowledged' | 'resolved';
export const ESCALATION_STATUSES: readonly EscalationStatus[] = ['acknowledged', 'resolved'];

/** GitLab's limits (IncidentManagement::EscalationPolicy and EscalationRule). */
export const MAX_RULES = 10;
export const MAX_ELAPSED_SECONDS = 86_400;
export const MAX_NAME = 72;
export const MAX_DESCRIPTION = 160;
/** How many more rounds of the rules a policy may run (svc's, as PagerDuty's `num_loops` limit). */
export const MAX_REPEAT = 9;
/** The longest acknowledgement timeout (a day, as PagerDuty's). */
export const MAX_ACK_TIMEOUT_MINUTES = 1440;

/** One rule of a policy: after `elapsedTimeSeconds`, page the on-call people of a schedule or one user. */
export interface EscalationRule {
  readonly id: number;
  readonly position: number;
  readonly elapsedTimeSeconds: number;
  readonly status: EscalationStatus;
  readonly schedule: { readonly id: number; readonly iid: number; readonly name: string } | null;
  readonly userId: number | null;
  /** A chat integration the rule pages (its channel), instead of a schedule or a user. */
  readonly chatIntegration?: { readonly id: number; readonly slug: string } | null;
}

/**
 * Whom a policy belongs to: a project, or a group (the policy of every project below it that has none of its own).
 */
export interface PolicyOwner {
  readonly type: 'project' | 'group';
  readonly id: number;
}

/** A project's or a group's escalation policy (at most one each). */
export interface EscalationPolicy {
  readonly id: number;
  /** The owner: a project or a group (exactly one of the two is set). */
  readonly projectId: number | null;
  readonly groupId: number | null;
  readonly name: string;
  readonly description: string | null;
  readonly rules: readonly EscalationRule[];
  /** How many more times the rules run, from the first, while the alert stays triggered after the last. */
  readonly repeat: number;
  /** Minutes an acknowledged alert may stay unresolved before it is triggered again; null: for ever. */
  readonly ackTimeoutMinutes: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A rule as stored (targets resolved to ids), for insert. */
export interface RuleRecord {
  readonly elapsedTimeSeconds: number;
  readonly status: EscalationStatus;
  readonly scheduleId: number | null;
  readonly userId: number | null;
  readonly chatIntegrationId?: number | null;
}

/**
 * Where the people are that a schedule has on call (implemented by the on-call schedules feature; a port here).
 * `at` is when the rule was due, so a late run pages whoever was on call then.
 */
export interface OnCallLookup {
  onCallUserIds(scheduleId: number, at: Date): Promise<number[]>;
}

/**
 * Whether a rule still pages an alert in `status`. GitLab orders the statuses triggered < acknowledged < resolved <
 * ignored and stops a rule once the alert's status reaches the rule's: an `acknowledged` rule pages only a
 * triggered alert; a `resolved` rule pages a triggered or acknowledged one. An ignored alert pages nobody.
 */
export function rulePages(rule: EscalationStatus, status: AlertStatus): boolean {
  if (rule === 'acknowledged') return status === 'triggered';
  return status === 'triggered' || status === 'acknowledged';
}

/** Rules in GitLab's order: by elapsed time, then status (acknowledged first). */
export function orderRules<T extends { elapsedTimeSeconds: number; status: EscalationStatus }>(
  rules: readonly T[],
): T[] {
  return [...rules].sort(
    (a, b) =>
      a.elapsedTimeSeconds - b.elapsedTimeSeconds ||
      ESCALATION_STATUSES.indexOf(a.status) - ESCALATION_STATUSES.indexOf(b.status),
  );
}

/**
 * The job that pages one rule's targets for one alert (or incident): a snapshot of the rule as it was when the
 * escalation started.
 */
export interface PageJob {
  readonly projectId: number;
  /** The alert's id, or the incident's (issue id) when `incident`. */
  readonly alertId: number;
  /** Whether this escalates an incident paged by hand (absent: an alert's). */
  readonly incident?: true;
  readonly iid: number;
  readonly policyId: number;
  readonly ruleId: number;
  readonly elapsedTimeSeconds: number;
  readonly status: EscalationStatus;
  readonly scheduleId: number | null;
  readonly userId: number | null;
  /** The chat integration the rule pages (absent: none). */
  readonly chatIntegrationId?: number | null;
  /** When the rule was due (the start of its round plus the elapsed time). */
  readonly dueAt: string;
  /** The round: 0 the first run of the rules, then 1.. for the repeats (absent in jobs queued before repeats). */
  readonly round?: number;
  /** Whether this is the policy's last rule (its job starts the next round); absent: not. */
  readonly last?: boolean;
  /**
   * Which run of the escalation: absent for the one the alert's creation started, else the time (ms) the alert was
   * triggered again after an acknowledgement timed out (its pages are new pages, not repeats of the first run's).
   */
  readonly cycle?: number;
}

/** How long a page's acknowledge link works (a day: a page older than that is news no more). */
export const ACK_LINK_TTL_MS = 24 * 3_600_000;

/** The job that triggers an acknowledged alert again when its acknowledgement times out. */
export interface AckTimeoutJob {
  readonly projectId: number;
  /** The alert's id, or the incident's (issue id) when `incident`. */
  readonly alertId: number;
  readonly incident?: true;
  readonly iid: number;
  readonly policyId: number;
  readonly minutes: number;
}

/**
 * What names an escalation's target in the keys below: an alert's id, or `i<issue id>` for an incident (so that
 * an alert's `escalation:<id>:%` never matches an incident's keys).
 */
export const targetRef = (id: number, incident?: boolean): string => (incident ? `i${id}` : String(id));

/** The dedupe key of the e-mail that pages `userId` for a rule and alert (unique: a re-run sends nothing twice). */
export const pageKey = (alertId: number | string, ruleId: number, round = 0, cycle?: number) =>
  `page:${alertId}:${ruleId}${runSuffix(round, cycle)}`;
/**
 * The unique key of the pending job of a rule, round, cycle and alert (the first round of the first cycle keeps
 * the key jobs had before repeats).
 */
export const jobKey = (alertId: number | string, ruleId: number, round = 0, cycle?: number) =>
  `escalation:${alertId}:${ruleId}${runSuffix(round, cycle)}`;
const runSuffix = (round: number, cycle?: number) =>
  `${cycle === undefined ? '' : `:c${cycle}`}${round === 0 ? '' : `:r${round}`}`;
/** The unique key of an acknowledgement's timeout job (`at`: when the alert was acknowledged, ms). */
export const ackKey = (alertId: number | string, at: number) => `escalation-ack:${alertId}:${at}`;

/**
 * GitLab's `/page <policy name>` quick action in a note's text: the policy names of its `/page` lines (outside
 * fenced code, as GitLab's extractor), and the text without them (blank: the note is commands only).
 */
export function pageCommands(body: string): { names: string[]; rest: string } {
  const names: string[] = [];
  const kept: string[] = [];
  let fenced = false;
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^\/page(?:[ \t]+(.*?))?[ \t]*\r?$/.exec(line);
    if (m) names.push(m[1] ?? '');
    else kept.push(line);
  }
  return { names, rest: kept.join('\n') };
}
