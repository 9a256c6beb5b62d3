/**
 * The v5 response and input schemas: v4's, except the features the spec's v4-to-v5 table changes, which
 * entities/ derives from v4's with the removed fields omitted (each with its spec line).
 */

export * from '../v4/entities/alerts.js';
export * from '../v4/entities/audit.js';
export { MessageEntity } from '../v4/entities/common.js';
export * from '../v4/entities/error-tracking.js';
export * from '../v4/entities/escalation.js';
export * from '../v4/entities/geo.js';
export * from '../v4/entities/groups.js';
export * from '../v4/entities/issues.js';
export * from '../v4/entities/members.js';
export * from '../v4/entities/notifications.js';
export * from '../v4/entities/oncall.js';
export * from '../v4/entities/projects.js';
export * from '../v4/entities/settings.js';
export * from '../v4/entities/snippets.js';
export * from '../v4/entities/storage-moves.js';
export * from './entities/approvals.js';
export * from './entities/merge-requests.js';
export * from './entities/mr-approvals.js';
export * from './entities/runners.js';
export * from './entities/users.js';
