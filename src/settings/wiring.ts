import type { Kysely } from 'kysely';
import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { User } from '../users/users.js';
import { SettingsRepository } from './settings.repository.js';
import { SettingsService } from './settings.service.js';

/** Application settings and feature flags, with GitLab's defaults for what the instance has not set. */
export function wireSettings(deps: {
  kysely: Kysely<Database>;
  access: InstancePolicy<User>;
  clock: Clock;
  cacheTtlMs: number;
  /** The configured storages' weights (`repository_storages_weighted` until an admin sets them). */
  storageWeights: Record<string, number>;
  /** The default of `incident_management_notification_max_alerts`. */
  maxAlertsPerPayload: number;
}): { settings: SettingsService } {
  const settings = new SettingsService(
    new SettingsRepository(deps.kysely),
    {
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      user_defaults_to_private_profile: false,
      signup_enabled: false,
      repository_storages_weighted: deps.storageWeights,
      // GitLab's defaults: the per-URL alert notification throttle is off, 3600 requests per 3600 s.
      throttle_incident_management_notification_enabled: false,
      throttle_incident_management_notification_per_period: 3600,
      throttle_incident_management_notification_period_in_seconds: 3600,
      incident_management_notification_max_alerts: deps.maxAlertsPerPayload,
      error_tracking_rate_limit_per_minute: 0,
      error_tracking_retention_days: 90,
      allow_local_requests_from_web_hooks_and_services: false,
      // GitLab's default: no maximum push size.
      receive_max_input_size: 0,
      sign_in_text: '',
      help_text: '',
    },
    deps.access,
    deps.clock,
    deps.cacheTtlMs,
  );
  return { settings };
}
