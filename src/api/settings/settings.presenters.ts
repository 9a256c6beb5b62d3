import type { Static } from 'typebox';
import type { FeatureGates } from '../../settings/settings.js';
import type { ApplicationSettings } from '../../settings/settings.service.js';
import type { FeatureEntity, LicenseEntity, SettingsEntity } from './settings.entities.js';

/** Application settings; `sign_in_text` and `help_text` only while they exist (removed in 17.0). */
export function settings(s: ApplicationSettings, removedTexts: boolean): Static<typeof SettingsEntity> {
  const { sign_in_text, help_text, ...rest } = s;
  return {
    id: 1,
    ...rest,
    allow_local_requests_from_hooks_and_services: s.allow_local_requests_from_web_hooks_and_services,
    ...(!removedTexts && { sign_in_text, help_text }),
  };
}

export function feature(f: FeatureGates): Static<typeof FeatureEntity> {
  const gates: Static<typeof FeatureEntity>['gates'] = [{ key: 'boolean', value: f.enabled === true }];
  if (f.projectIds.length > 0)
    gates.push({ key: 'actors', value: f.projectIds.map((id) => `Project:${id}`) });
  const state = f.enabled === true ? 'on' : f.projectIds.length > 0 ? 'conditional' : 'off';
  return { name: f.name, state, gates };
}

/**
 * GitLab's license entity for svc's tier: svc has no license file, so the license is the tier itself, valid
 * since the instance was set up, without expiry, user limit or licensee. svc keeps no history of user counts:
 * the historical maximum is the current count.
 */
export function license(
  tier: 'premium' | 'ultimate',
  since: string,
  activeUsers: number,
): Static<typeof LicenseEntity> {
  return {
    id: 1,
    plan: tier,
    created_at: since,
    starts_at: since.slice(0, 10),
    expires_at: null,
    historical_max: activeUsers,
    maximum_user_count: activeUsers,
    licensee: {},
    add_ons: {},
    expired: false,
    overage: 0,
    user_limit: 0,
    active_users: activeUsers,
  };
}
