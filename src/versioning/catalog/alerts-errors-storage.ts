// Catalog data, one spec table per file (see ../catalog.ts); each title is the spec's Item text verbatim.
import type { DeprecationRow } from '../deprecation.js';

/**
 * Deprecations only alerts-errors-storage.md names. The spec does not call either removal breaking, so neither is
 * flagged; neither has a 17.0/18.0 table row.
 */
export const ALERTS_ERRORS_STORAGE = [
  {
    id: 'oncall_link',
    title: "Direct link to the external on-call tool's alert list",
    area: 'alerts',
    announced: '13.8',
    removal: null,
    breaking: false,
    change:
      "The direct link from the external on-call tool integration to the tool's alert list is deprecated from 13.8; " +
      'no removal release is given.',
    replacement: null,
    enforced: true,
  },
  {
    id: 'prometheus_api_url_features',
    title: 'Features using the API base URL of the metrics-alerting receiver',
    area: 'alerts',
    announced: null,
    removal: '16.0',
    breaking: false,
    change:
      'The API base URL stays required on creation of a metrics-alerting receiver (a placeholder URL is acceptable), ' +
      'but the features that use it are deprecated and scheduled for removal in 16.0.',
    replacement: null,
    enforced: true,
  },
] as const satisfies readonly DeprecationRow[];
