import type { Static } from 'typebox';
import type { Namespace } from '../../namespaces/namespaces.js';
import type { Project } from '../../projects/projects.js';
import { contactStatus, type Runner } from '../../runners/runners.js';
import type { View } from '../common/common.presenters.js';
import type { RunnerDetailsEntity, RunnerEntity } from './runners.entities.v5.js';
import * as v4 from './runners.presenters.js';

export type { RunnerView } from './runners.presenters.js';

/**
 * v5 Runner. Spec: "Runner property active — replaced by paused"; "Runner status values — only online, offline,
 * not_connected; paused and active no longer appear in status"; "Runner ip_address — in v5 the field is removed".
 */
export function runner(r: Runner, v: v4.RunnerView): Static<typeof RunnerEntity> {
  const { active: _active, ip_address: _ip, ...rest } = v4.runner(r, v);
  return { ...rest, status: contactStatus(r, v.now) };
}

export function runnerDetails(
  r: Runner,
  v: v4.RunnerView,
  projects: readonly Project[],
  groups: readonly Namespace[],
  view: View,
): Static<typeof RunnerDetailsEntity> {
  const { active: _active, ip_address: _ip, ...rest } = v4.runnerDetails(r, v, projects, groups, view);
  return { ...rest, status: contactStatus(r, v.now) };
}
