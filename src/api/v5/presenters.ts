/**
 * The v5 presenters: v4's, except the features the spec's v4-to-v5 table changes, which presenters/ derives
 * from v4's with the removed fields dropped (each with its spec line).
 */

export * from '../v4/presenters/alerts.js';
export * from '../v4/presenters/audit.js';
export type { View } from '../v4/presenters/common.js';
export * from '../v4/presenters/error-tracking.js';
export * from '../v4/presenters/escalation.js';
export * from '../v4/presenters/geo.js';
export * from '../v4/presenters/groups.js';
export * from '../v4/presenters/issues.js';
export * from '../v4/presenters/members.js';
export * from '../v4/presenters/notifications.js';
export * from '../v4/presenters/oncall.js';
export * from '../v4/presenters/projects.js';
export * from '../v4/presenters/settings.js';
export * from '../v4/presenters/snippets.js';
export * from '../v4/presenters/storage-moves.js';
export * from '../v4/presenters/users.js';
export * from './presenters/approvals.js';
export * from './presenters/merge-requests.js';
export * from './presenters/mr-approvals.js';
export * from './presenters/runners.js';
