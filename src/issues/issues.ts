import type { OutboxWriter } from '../ingest/outbox.js';
import type { UnitOfWork } from '../unit-of-work.js';
import type { User } from '../users/users.js';

/** Issues of a project; incidents are issues of type `incident`. */
export type IssueType = 'issue' | 'incident';
export const ISSUE_TYPES: readonly IssueType[] = ['issue', 'incident'];

/** GitLab's `IssuableSeverity` (an incident's; `unknown` until set). */
export type IssueSeverity = 'unknown' | 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly IssueSeverity[] = ['unknown', 'low', 'medium', 'high', 'critical'];

/** GitLab's `IssuableSeverity::SEVERITY_LABELS`, as its system notes name a severity. */
export const SEVERITY_LABELS: Readonly<Record<IssueSeverity, string>> = {
  unknown: 'Unknown',
  low: 'Low - S4',
  medium: 'Medium - S3',
  high: 'High - S2',
  critical: 'Critical - S1',
};

/** GitLab's incident escalation status (`IncidentManagement::IssuableEscalationStatus`). */
export type EscalationStatus = 'triggered' | 'acknowledged' | 'resolved';
export const ESCALATION_STATUSES: readonly EscalationStatus[] = ['triggered', 'acknowledged', 'resolved'];

/** GitLab's limits on an issue's title and description (`Issuable` validations). */
export const MAX_TITLE_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 1_048_576;

export interface Issue {
  readonly id: number;
  readonly projectId: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string;
  readonly issueType: IssueType;
  readonly state: 'opened' | 'closed';
  readonly authorId: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly closedAt: string | null;
  readonly closedById: number | null;
  readonly severity: IssueSeverity;
  /** An incident's escalation status; null for a plain issue. */
  readonly escalationStatus: EscalationStatus | null;
  readonly assigneeIds: readonly number[];
  /** Label names, sorted (GitLab lists an issue's labels by title). */
  readonly labels: readonly string[];
  /** The escalation policy an incident was paged with (by hand or `/page`); null when never paged. */
  readonly escalationPolicyId: number | null;
}

/** An issue as the API shows it: with its people, its project's path and its count of comments. */
export interface IssueView extends Issue {
  readonly projectPath: string;
  readonly author: User | null;
  readonly assignees: readonly User[];
  readonly closedBy: User | null;
  readonly userNotesCount: number;
  /** The escalation policy paging it (GitLab's GraphQL `escalationPolicy`); null when none (or deleted). */
  readonly escalationPolicy: { readonly id: number; readonly name: string } | null;
}

/** How issues are listed (GitLab's issues API filters). */
export interface IssueFilter {
  readonly issueType?: IssueType;
  readonly state?: 'opened' | 'closed';
  /** Every label named (GitLab's `labels`: AND), or `None` / `Any`. */
  readonly labels?: readonly string[] | 'none' | 'any';
  readonly assigneeId?: number | 'none' | 'any';
  readonly authorId?: number;
  /** Text in the title or description. */
  readonly search?: string;
  /** Incidents of this severity (svc's filter: GitLab filters by severity in GraphQL only). */
  readonly severity?: IssueSeverity;
  readonly orderBy: 'created_at' | 'updated_at';
  readonly sort: 'asc' | 'desc';
}

/**
 * What an incident's alerts do when the incident changes: the alerts feature implements it (wired in
 * src/context.ts), so that issues need not know alerts and the folders stay acyclic.
 */
export interface IncidentAlerts {
  /** Whether closing an incident resolves its alerts in this project (the alert setting `auto_resolve_alerts`). */
  closeResolvesAlerts(trx: UnitOfWork, projectId: number): Promise<boolean>;
  /** Resolves the incident's open alerts, in the caller's transaction, because `closer` closed it. */
  resolveFor(
    trx: UnitOfWork,
    outbox: OutboxWriter,
    incident: { projectId: number; iid: number },
    closer: User,
    now: string,
  ): Promise<void>;
  /** Forgets the incident on its alerts (it is being deleted). */
  unlink(trx: UnitOfWork, projectId: number, iid: number): Promise<void>;
}

/** What a timeline event records (GitLab's `action`: its icon in the timeline). */
export type TimelineAction = 'comment' | 'issues' | 'status' | 'severity' | 'label' | 'escalation';

/** GitLab's predefined timeline event tags (`IncidentManagement::TimelineEventTag::PREDEFINED_TAGS`). */
export const PREDEFINED_TIMELINE_TAGS = [
  'Start time',
  'End time',
  'Impact detected',
  'Response initiated',
  'Impact mitigated',
  'Cause identified',
] as const;

/** GitLab's limit on the text of a timeline event someone writes (280; a promoted comment may be longer). */
export const MAX_TIMELINE_NOTE_LENGTH = 280;

export interface TimelineEventTag {
  readonly id: number;
  readonly projectId: number;
  readonly name: string;
}

/** One entry of an incident's timeline. */
export interface TimelineEvent {
  readonly id: number;
  readonly projectId: number;
  readonly issueId: number;
  readonly authorId: number | null;
  readonly updatedById: number | null;
  readonly promotedFromNoteId: number | null;
  readonly note: string;
  readonly action: TimelineAction;
  readonly occurredAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly tags: readonly TimelineEventTag[];
}

export interface TimelineEventView extends TimelineEvent {
  readonly incidentIid: number;
  readonly author: User | null;
  readonly updatedBy: User | null;
}

/** A label as GitLab's system notes reference it: `~name`, or `~"two words"`. */
export function labelReference(name: string): string {
  return /^[\w\-.?&]+$/.test(name) ? `~${name}` : `~"${name}"`;
}
