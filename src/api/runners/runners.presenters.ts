import type { Static } from 'typebox';
import type { Namespace } from '../../namespaces/namespaces.js';
import type { Project } from '../../projects/projects.js';
import { isOnline, legacyStatus, type Runner } from '../../runners/runners.js';
import type { View } from '../common/common.presenters.js';
import type { RunnerDetailsEntity, RunnerEntity } from './runners.entities.js';

/** What runner presenters need besides the runner: the time, and whether ip_address is blanked (17.0). */
export interface RunnerView {
  readonly now: Date;
  readonly blankIpAddress: boolean;
}

/** v4 Runner: `active` and `paused`, the legacy status (with `paused`), `ip_address` ("" from 17.0, spec). */
export function runner(r: Runner, v: RunnerView): Static<typeof RunnerEntity> {
  return {
    id: r.id,
    description: r.description,
    ip_address: v.blankIpAddress ? '' : r.ipAddress,
    active: r.active,
    paused: !r.active,
    is_shared: r.runnerType === 'instance_type',
    runner_type: r.runnerType,
    name: r.name,
    online: isOnline(r, v.now),
    status: legacyStatus(r, v.now),
    created_at: r.createdAt,
  };
}

export function runnerDetails(
  r: Runner,
  v: RunnerView,
  projects: readonly Project[],
  groups: readonly Namespace[],
  view: View,
): Static<typeof RunnerDetailsEntity> {
  return {
    ...runner(r, v),
    tag_list: [...r.tagList],
    run_untagged: r.runUntagged,
    locked: r.locked,
    maximum_timeout: r.maximumTimeout,
    access_level: r.accessLevel,
    version: null,
    revision: null,
    platform: null,
    architecture: null,
    contacted_at: r.contactedAt,
    maintenance_note: r.maintenanceNote,
    projects: projects.map((p) => ({
      id: p.id,
      name: p.name,
      name_with_namespace: `${p.namespace.name} / ${p.name}`,
      path: p.path,
      path_with_namespace: p.fullPath,
    })),
    groups: groups.map((g) => ({
      id: g.id,
      name: g.name,
      web_url: `${view.externalUrl}/groups/${g.fullPath}`,
    })),
  };
}
