/**
 * The v4 presenters, one file per feature under presenters/: each builds a fresh object of its entity from
 * domain types (never spreading a model). This file is the version's table of them for version.ts.
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
export * from '../merge-requests/merge-request-approvals.presenters.js';
export * from '../merge-requests/merge-requests.presenters.js';
export * from '../merge-requests/project-approval-rules.presenters.js';
export * from '../notes/notes.presenters.js';
export * from '../notifications/notifications.presenters.js';
export * from '../oncall/oncall.presenters.js';
export * from '../projects/projects.presenters.js';
export * from '../runners/runners.presenters.js';
export * from '../settings/settings.presenters.js';
export * from '../snippets/snippets.presenters.js';
export * from '../storage-moves/storage-moves.presenters.js';
export * from '../users/users.presenters.js';
