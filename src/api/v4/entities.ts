/**
 * The v4 response and input schemas (GitLab's shapes), one file per feature under entities/. They drive
 * validation, serialisation and the OpenAPI document; this file is the version's table of them for version.ts.
 */

export * from './entities/alerts.js';
export * from './entities/approvals.js';
export * from './entities/audit.js';
export { MessageEntity } from './entities/common.js';
export * from './entities/error-tracking.js';
export * from './entities/escalation.js';
export * from './entities/geo.js';
export * from './entities/groups.js';
export * from './entities/issues.js';
export * from './entities/members.js';
export * from './entities/merge-requests.js';
export * from './entities/mr-approvals.js';
export * from './entities/notifications.js';
export * from './entities/oncall.js';
export * from './entities/projects.js';
export * from './entities/runners.js';
export * from './entities/settings.js';
export * from './entities/snippets.js';
export * from './entities/storage-moves.js';
export * from './entities/users.js';
