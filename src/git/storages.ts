import type { StorageConfig } from '../config.js';

/**
 * Picks a storage for a new repository by weight (GitLab's `repository_storages_weighted`): a storage with
 * weight 0 never receives new repositories. `random` is in [0, 1).
 */
export function pickStorage(weights: Readonly<Record<string, number>>, random: number): string {
  const entries = Object.entries(weights).filter(([, w]) => w > 0);
  if (entries.length === 0) throw new Error('No repository storage has a weight above 0');
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let point = random * total;
  for (const [name, w] of entries) {
    if (point < w) return name;
    point -= w;
  }
  return entries[entries.length - 1]![0];
}

/** The configured weights, by storage name. */
export function configuredWeights(storages: Readonly<Record<string, StorageConfig>>): Record<string, number> {
  return Object.fromEntries(Object.entries(storages).map(([name, s]) => [name, s.weight]));
}
