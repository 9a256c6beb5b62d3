/**
 * The v5 presenters: v4's, except the features the spec's v4-to-v5 table changes, which presenters/ derives
 * from v4's with the removed fields dropped (each with its spec line).
 */

export * from '../alerts/alerts.presenters.js';
export * from '../audit/audit.presenters.js';
export type { View } from '../common/common.presenters.js';
export * from '../error-tracking/error-tracking.presenters.js';
export * from '../escalation/escalation.presenters.js';
export * from '../geo/geo.presenters.js';
export * from '../git/repository.presenters.js';
export * from '../groups/groups.presenters.js';
export * from '../issues/issues.presenters.js';
export * from '../members/members.presenters.js';
export * from '../merge-requests/merge-request-approvals.presenters.v5.js';
export * from '../merge-requests/merge-requests.presenters.v5.js';
export * from '../merge-requests/project-approval-rules.presenters.v5.js';
export * from '../notes/notes.presenters.js';
export * from '../notifications/notifications.presenters.js';
export * from '../oncall/oncall.presenters.js';
export * from '../projects/projects.presenters.js';
export * from '../runners/runners.presenters.v5.js';
export * from '../settings/settings.presenters.js';
export * from '../snippets/snippets.presenters.js';
export * from '../storage-moves/storage-moves.presenters.js';
export * from '../users/users.presenters.js';
