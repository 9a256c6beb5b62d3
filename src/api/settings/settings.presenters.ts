import type { Static } from 'typebox';
import type { FeatureGates } from '../../settings/settings.js';
import type { ApplicationSettings } from '../../settings/settings.service.js';
import type { FeatureEntity, SettingsEntity } from './settings.entities.js';

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
