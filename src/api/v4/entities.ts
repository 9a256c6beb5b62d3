/**
 * The v4 response and input schemas (GitLab's shapes), one file per feature under entities/. They drive
 * validation, serialisation and the OpenAPI document; this file is the version's table of them for version.ts.
 */

export * from '../alerts/alerts.entities.js';
export * from '../audit/audit.entities.js';
export { MessageEntity } from '../common/common.entities.js';
export * from '../error-tracking/error-tracking.entities.js';
export * from '../escalation/escalation.entities.js';
export * from '../geo/geo.entities.js';
export * from '../git/repository.entities.js';
export * from '../groups/groups.entities.js';
export * from '../issues/issues.entities.js';
export * from '../members/members.entities.js';
export * from '../merge-requests/merge-request-approvals.entities.js';
export * from '../merge-requests/merge-requests.entities.js';
export * from '../merge-requests/project-approval-rules.entities.js';
export * from '../notes/notes.entities.js';
export * from '../notifications/notifications.entities.js';
export * from '../oncall/oncall.entities.js';
export * from '../projects/projects.entities.js';
export * from '../runners/runners.entities.js';
export * from '../settings/settings.entities.js';
export * from '../snippets/snippets.entities.js';
export * from '../storage-moves/storage-moves.entities.js';
export * from '../users/users.entities.js';
