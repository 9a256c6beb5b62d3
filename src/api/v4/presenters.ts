/**
 * The v4 presenters, one file per feature under presenters/: each builds a fresh object of its entity from
 * domain types (never spreading a model). This file is the version's table of them for version.ts.
 */

export * from './presenters/alerts.js';
export * from './presenters/approvals.js';
export * from './presenters/audit.js';
export type { View } from './presenters/common.js';
export * from './presenters/error-tracking.js';
export * from './presenters/escalation.js';
export * from './presenters/geo.js';
export * from './presenters/groups.js';
export * from './presenters/issues.js';
export * from './presenters/members.js';
export * from './presenters/merge-requests.js';
export * from './presenters/mr-approvals.js';
export * from './presenters/notifications.js';
export * from './presenters/oncall.js';
export * from './presenters/projects.js';
export * from './presenters/runners.js';
export * from './presenters/settings.js';
export * from './presenters/snippets.js';
export * from './presenters/storage-moves.js';
export * from './presenters/users.js';
