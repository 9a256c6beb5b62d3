import { Type } from 'typebox';
import { Literals } from '../common/common.entities.js';
import { REMOVED_FIELDS } from '../validation.js';
import * as v4 from './runners.entities.js';

export { RunnerSettingsInput } from './runners.entities.js';

/**
 * Spec (v4 to v5): "Runner property active — replaced by paused"; "Runner ip_address — in v5 the field is
 * removed".
 */
const REMOVED = ['active', 'ip_address'] as const;

/** Spec: "Runner status values — only online, offline, not_connected; paused and active no longer appear". */
const RUNNER_STATUSES = ['online', 'offline', 'not_connected'] as const;

/** v5 Runner: v4's without `active` and `ip_address`, and only the contact status. */
export const RunnerEntity = Type.Object({
  ...Type.Omit(v4.RunnerEntity, REMOVED).properties,
  status: Literals(RUNNER_STATUSES),
});

export const RunnerDetailsEntity = Type.Object({
  ...Type.Omit(v4.RunnerDetailsEntity, REMOVED).properties,
  status: Literals(RUNNER_STATUSES),
});

/** `PUT /runners/:id` without `active`, which v5 refuses (spec: "PUT /runners/:id (form field active)"). */
export const RunnerUpdateInput = Type.Omit(v4.RunnerUpdateInput, ['active'], {
  [REMOVED_FIELDS]: { active: 'active was removed in API v5: use paused' },
});

/** Spec: active is "replaced by paused in endpoints taking or returning it", so registration refuses it too. */
export const RunnerRegistrationInput = Type.Omit(v4.RunnerRegistrationInput, ['active'], {
  [REMOVED_FIELDS]: { active: 'active was removed in API v5: use paused' },
});

/** The `status` filter: only the v5 status values (spec). */
export const RunnerStatusInput = Literals(RUNNER_STATUSES);
