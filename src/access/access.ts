/**
 * Access levels, visibility and the one rule for refusals. Pure: no I/O, no feature types, so every feature and
 * the policy share it.
 *
 * THE RULE (what a refused caller is told):
 * 1. 404 when the caller may not know the object exists: it does not exist, or its visibility hides it from the
 *    caller. This holds for anonymous callers too: a private project answers an anonymous request 404, never 401
 *    (GitLab does the same; saying 401 would tell strangers the path exists).
 * 2. Otherwise, when the caller's level is below what the action needs: 401 if nobody is signed in (signing in
 *    might help), 403 if a user is signed in (it would not).
 * 3. Instance-wide actions (admin-only) have nothing to hide: 401 anonymous, 403 a signed-in non-admin.
 * 4. A feature beyond the instance's tier is 403 with the feature's message, once the object is visible.
 */
import type { Visibility } from '../visibility.js';

export type { Visibility };

/** GitLab's access levels. */
export const AccessLevel = {
  None: 0,
  Guest: 10,
  Reporter: 20,
  Developer: 30,
  Maintainer: 40,
  Owner: 50,
} as const;

/** Whether a caller with `level` (and signed-in state) can see something of `visibility`. */
export function canSee(visibility: Visibility, signedIn: boolean, level: number): boolean {
  if (visibility === 'public') return true;
  if (visibility === 'internal') return signedIn;
  return level >= AccessLevel.Guest;
}

/** What the rule decides for one request. */
export type Verdict = 'allow' | 'not_found' | 'unauthorized' | 'forbidden';

/** The rule above, for an object the caller can see or not, and an action that needs `min`. */
export function verdict(a: {
  readonly signedIn: boolean;
  readonly visible: boolean;
  readonly level: number;
  readonly min: number;
}): Verdict {
  if (!a.visible) return 'not_found';
  if (a.level >= a.min) return 'allow';
  return a.signedIn ? 'forbidden' : 'unauthorized';
}
