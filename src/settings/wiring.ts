import type { Kysely } from 'kysely';
import type { InstancePolicy } from '../access/access.policy.js';
import type { Clock } from '../clock.js';
import type { RateCounter } from '../cluster/rate-counter.js';
import type { Database } from '../db/schema.js';
import type { User } from '../users/users.js';
import { ApiThrottle } from './api-throttle.js';
import { GITLAB_DEFAULTS } from './application-settings.js';
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
  /** Where the API throttles count (shared by every process on PostgreSQL). */
  rates: RateCounter;
}): { settings: SettingsService; apiThrottle: ApiThrottle } {
  const settings = new SettingsService(
    new SettingsRepository(deps.kysely),
    {
      ...GITLAB_DEFAULTS,
      // GitLab opens sign-up by default, with an administrator's approval of each new account; svc has no such
      // approval, so an instance starts closed and an administrator opens it.
      signup_enabled: false,
      repository_storages_weighted: deps.storageWeights,
      incident_management_notification_max_alerts: deps.maxAlertsPerPayload,
      error_tracking_rate_limit_per_minute: 0,
      error_tracking_retention_days: 90,
    },
    deps.access,
    deps.clock,
    deps.cacheTtlMs,
  );
  return { settings, apiThrottle: new ApiThrottle(settings, deps.rates, deps.clock) };
}
