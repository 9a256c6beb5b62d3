// Catalog data, one spec table per file (see ../catalog.ts); each title is the spec's Item text verbatim.
import type { DeprecationRow } from '../deprecation.js';

/** REST API v4 to v5 (all breaking, no date). `announced` = reference §6 "Suggested Deprecation dates", else null. */
export const V4_TO_V5 = [
  {
    id: 'geo_nodes_api',
    title: 'geo_nodes endpoints',
    area: 'geo',
    // Not in the spec: GitLab deprecated the geo_nodes endpoints when nodes were renamed to sites (16.0).
    announced: '16.0',
    removal: 'v5',
    breaking: true,
    change:
      'Deprecated in v4 and removed in v5; the same functionality is available under the new name (nodes are renamed to sites).',
    replacement: 'geo_sites endpoints',
    enforced: true,
  },
  {
    id: 'mr_merged_by',
    title: 'merged_by field of the merge request API',
    area: 'api',
    announced: '14.7',
    removal: 'v5',
    breaking: true,
    change: 'The merged_by field is removed from merge requests in v5.',
    replacement: 'merge_user field',
    enforced: true,
  },
  {
    id: 'mr_merge_status',
    title: 'merge_status field of the merge request API',
    area: 'api',
    announced: '15.6',
    removal: 'v5',
    breaking: true,
    change: 'The merge_status field is removed from merge requests in v5.',
    replacement: 'detailed_merge_status field',
    enforced: true,
  },
  {
    id: 'users_private_profile_null',
    title: 'private_profile attribute of the user API',
    area: 'api',
    // Not in the spec: GitLab announced the change with issue 387005 (15.8; its code says "remove in 16.0").
    announced: '15.8',
    removal: 'v5',
    breaking: true,
    change:
      'null is no longer a valid private_profile on user create and update and results in a 400 response; only true and false are valid.',
    replacement: null,
    enforced: true,
  },
  {
    id: 'mr_changes_endpoint',
    title: 'Endpoint for the changes of a single merge request',
    area: 'api',
    announced: '15.7',
    removal: 'v5',
    breaking: true,
    change: 'The endpoint returning the changes of a single merge request is removed in v5.',
    replacement: 'list merge request diffs endpoint',
    enforced: true,
  },
  {
    id: 'managed_licenses_api',
    title: 'Managed licenses endpoint (all managed licenses of a project)',
    area: 'api',
    announced: null,
    removal: 'v5',
    breaking: true,
    change: 'The endpoint listing all managed licenses of a project is removed in v5.',
    replacement: 'License Approval policy feature',
    enforced: true,
  },
  {
    id: 'approvals_approvers_fields',
    title: 'approvers and approval_groups fields in the merge request approval configuration endpoint',
    area: 'api',
    announced: null,
    removal: 'v5',
    breaking: true,
    change: 'The fields currently return empty arrays; v5 removes them from the get-configuration endpoint.',
    replacement: 'endpoint for project-level rules of a merge request',
    enforced: true,
  },
  {
    id: 'runner_active',
    title: 'Runner property active',
    area: 'runners',
    announced: '14.8',
    removal: 'v5',
    breaking: true,
    change:
      'active is replaced by paused in the endpoints taking or returning it. In v4, from 14.8, paused can be used in place of active; ' +
      'the runner GraphQL occurrences of active are renamed to paused in 16.0; the runner release 16.0 uses paused when registering. ' +
      'Affected v5 endpoints: GET /runners; GET /runners/all; GET /runners/:id; PUT /runners/:id (form field active); ' +
      'GET /projects/:id/runners; POST /projects/:id/runners; GET /groups/:id/runners.',
    replacement: 'paused',
    enforced: true,
  },
  {
    id: 'runner_status_values',
    title: 'Runner status values',
    area: 'runners',
    announced: '14.5',
    removal: 'v5',
    breaking: true,
    change:
      'status takes only online, offline and not_connected; paused and active no longer appear in status ' +
      '(same v5 endpoints as the active property).',
    replacement: 'the boolean paused (true means paused; active means paused is false)',
    enforced: true,
  },
  {
    id: 'runner_ip_address',
    title: 'Runner ip_address',
    area: 'runners',
    announced: null,
    removal: 'v5',
    breaking: true,
    change:
      'From release 17.0 the Runners API returns an empty string in place of ip_address; v5 removes the field.',
    replacement: null,
    enforced: true,
  },
] as const satisfies readonly DeprecationRow[];
