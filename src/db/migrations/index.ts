import type { DialectName } from '../dialect.js';
import * as m0001 from './0001_accounts.js';
import * as m0002 from './0002_alerts.js';
import * as m0003 from './0003_error_tracking.js';
import * as m0004 from './0004_jobs.js';
import * as m0005 from './0005_storage_moves.js';
import * as m0006 from './0006_geo_audit.js';
import * as m0007 from './0007_runners_mrs.js';
import * as m0008 from './0008_hardening_moves.js';
import * as m0009 from './0009_event_dedupe.js';
import * as m0010 from './0010_sign_in_lockout.js';
import * as m0011 from './0011_project_settings.js';
import * as m0012 from './0012_merge_request_approvals.js';
import * as m0013 from './0013_merge_request_versions.js';
import * as m0015 from './0015_alert_events_assignees.js';
import * as m0017 from './0017_notifications.js';
import * as m0018 from './0018_cluster.js';
import * as m0019 from './0019_oncall_escalation.js';
import * as m0020 from './0020_read_path_indexes.js';
import * as m0021 from './0021_alert_search.js';
import * as m0022 from './0022_error_rule_intervals.js';
import * as m0023 from './0023_job_lanes.js';
import * as m0024 from './0024_hook_backoff.js';
import * as m0025 from './0025_notes.js';
import * as m0026 from './0026_hook_event_flags.js';
import * as m0027 from './0027_projects_limit.js';
import * as m0028 from './0028_avatars_repository_state.js';
import * as m0029 from './0029_access_tokens.js';
import * as m0030 from './0030_redirect_routes_rebase.js';
import * as m0033 from './0033_incidents.js';
import * as m0034 from './0034_oncall_overrides.js';
import * as m0035 from './0035_escalation_repeats.js';
import * as m0036 from './0036_alert_silences.js';
import * as m0037 from './0037_incident_paging.js';
import * as m0038 from './0038_maintenance_windows.js';
import * as m0039 from './0039_group_oncall.js';
import * as m0040 from './0040_alert_integration_warnings.js';
import * as m0041 from './0041_chat_integrations.js';
import * as m0042 from './0042_heartbeats_cron_monitors.js';
import * as m0043 from './0043_error_grouping.js';
import * as m0044 from './0044_sentry_releases.js';
import * as m0045 from './0045_error_triage.js';
import * as m0046 from './0046_error_reports.js';
import type { MigrationEnv } from './helpers.js';

/** Every migration in order; names are what the migrations table records. */
export const MIGRATIONS: ReadonlyArray<
  readonly [string, (db: never, dialect: DialectName, env: MigrationEnv) => Promise<void>]
> = [
  ['0001_accounts', m0001.up],
  ['0002_alerts', m0002.up],
  ['0003_error_tracking', m0003.up],
  ['0004_jobs', m0004.up],
  ['0005_storage_moves', m0005.up],
  ['0006_geo_audit', m0006.up],
  ['0007_runners_mrs', m0007.up],
  ['0008_hardening_moves', m0008.up],
  ['0009_event_dedupe', m0009.up],
  ['0010_sign_in_lockout', m0010.up],
  ['0011_project_settings', m0011.up],
  ['0012_merge_request_approvals', m0012.up],
  ['0013_merge_request_versions', m0013.up],
  ['0015_alert_events_assignees', m0015.up],
  ['0017_notifications', m0017.up],
  ['0018_cluster', m0018.up],
  ['0019_oncall_escalation', m0019.up],
  ['0020_read_path_indexes', m0020.up],
  ['0021_alert_search', m0021.up],
  ['0022_error_rule_intervals', m0022.up],
  ['0023_job_lanes', m0023.up],
  ['0024_hook_backoff', m0024.up],
  ['0025_notes', m0025.up],
  ['0026_hook_event_flags', m0026.up],
  ['0027_projects_limit', m0027.up],
  ['0028_avatars_repository_state', m0028.up],
  ['0029_access_tokens', m0029.up],
  ['0030_redirect_routes_rebase', m0030.up],
  ['0033_incidents', m0033.up],
  ['0034_oncall_overrides', m0034.up],
  ['0035_escalation_repeats', m0035.up],
  ['0036_alert_silences', m0036.up],
  ['0037_incident_paging', m0037.up],
  ['0038_maintenance_windows', m0038.up],
  ['0039_group_oncall', m0039.up],
  ['0040_alert_integration_warnings', m0040.up],
  ['0041_chat_integrations', m0041.up],
  ['0042_heartbeats_cron_monitors', m0042.up],
  ['0043_error_grouping', m0043.up],
  ['0044_sentry_releases', m0044.up],
  ['0045_error_triage', m0045.up],
  ['0046_error_reports', m0046.up],
];
