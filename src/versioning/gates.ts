import { type DeprecationId, findDeprecation } from './catalog.js';
import { compareRelease, parseRelease, type Release } from './release.js';

/**
 * The one place that decides whether a catalog entry's removal is in force at a release. Behaviour that
 * depends on the instance's release asks here (`isRemoved('users_offset_pagination')`), never compares
 * versions itself.
 */
export function isRemovedAt(release: Release, id: DeprecationId): boolean {
  const d = findDeprecation(id);
  if (d.removal === null || d.removal === 'v5') return false;
  return compareRelease(release, parseRelease(d.removal)) >= 0;
}

/**
 * Entries whose behaviour changes at a release other than their catalog removal, as the spec's rows say:
 * registration tokens answer 410 from 17.0 ("the entry states release 17.0 for the 410 and 18.0 as removal"),
 * and the Runners API returns an empty ip_address from 17.0 before v5 removes the field.
 */
const EFFECTIVE_FROM: Readonly<Partial<Record<DeprecationId, string>>> = {
  runner_registration_token_api: '17.0',
  runner_ip_address: '17.0',
};

/** Whether an entry's change is in effect at a release: its effective release above, else its removal. */
function inEffectAt(release: Release, id: DeprecationId): boolean {
  const from = EFFECTIVE_FROM[id];
  if (from === undefined) return isRemovedAt(release, id);
  findDeprecation(id); // unknown ids still fail loudly
  return compareRelease(release, parseRelease(from)) >= 0;
}

/** The gates of one instance. */
export class ReleaseGates {
  constructor(readonly release: Release) {}

  isRemoved(id: DeprecationId): boolean {
    return isRemovedAt(this.release, id);
  }

  /** Whether the change of an entry applies here (see EFFECTIVE_FROM). */
  inEffect(id: DeprecationId): boolean {
    return inEffectAt(this.release, id);
  }
}
