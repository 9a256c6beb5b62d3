import { randomInt } from 'node:crypto';
import type { StorageConfig } from '../config.js';

/** No storage (other than the one left out) has a weight above 0: nowhere to put a new repository. */
export class NoWeightedStorage extends Error {
  constructor() {
    super('No repository storage has a weight above 0');
  }
}

/**
 * Picks a storage for a new repository by weight (GitLab's `repository_storages_weighted`): a storage with
 * weight 0 never receives new repositories. `random` is in [0, 1).
 */
export function pickStorage(weights: Readonly<Record<string, number>>, random: number): string {
  const entries = Object.entries(weights).filter(([, w]) => w > 0);
  if (entries.length === 0) throw new NoWeightedStorage();
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

/**
 * The one place new repositories get their storage: by the current weights (application settings), for new
 * projects, snippets and group wikis, a storage move with no destination named, and a restore onto a storage
 * layout without the archive's storage.
 */
export class WeightedStorages {
  constructor(
    /** The current weights (`repository_storages_weighted`). */
    readonly weights: () => Promise<Readonly<Record<string, number>>>,
    private readonly random: () => number = () => randomInt(1_000_000) / 1_000_000,
  ) {}

  /** A storage picked by weight, never `except` (a move's source); throws NoWeightedStorage when none is left. */
  async pick(except?: string): Promise<string> {
    const weights = { ...(await this.weights()) };
    if (except !== undefined) delete weights[except];
    return pickStorage(weights, this.random());
  }
}
