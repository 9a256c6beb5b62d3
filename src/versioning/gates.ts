import { findDeprecation } from './catalog.js';
import { compareRelease, parseRelease, type Release } from './release.js';

/**
 * The one place that decides whether a catalog entry's removal is in force at a release. Behaviour that
 * depends on the instance's release asks here (`isRemoved('users_offset_pagination')`), never compares
 * versions itself.
 */
export function isRemovedAt(release: Release, id: string): boolean {
  const d = findDeprecation(id);
  if (d.removal === null || d.removal === 'v5') return false;
  return compareRelease(release, parseRelease(d.removal)) >= 0;
}

/** The gates of one instance. */
export class ReleaseGates {
  constructor(readonly release: Release) {}

  isRemoved(id: string): boolean {
    return isRemovedAt(this.release, id);
  }
}
