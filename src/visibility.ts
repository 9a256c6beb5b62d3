import { invalidFields } from './errors.js';

/** Who may see a project, group or snippet without a membership (settings name the defaults for new ones). */
export type Visibility = 'private' | 'internal' | 'public';

export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];

/**
 * GitLab's `Gitlab::VisibilityLevel.allowed_for?`: administrators may give every level, others none of the levels
 * the instance restricts (`restricted_visibility_levels`). Refused as GitLab's model validation: 400
 * `{"message":{"visibility_level":["public has been restricted by your GitLab administrator"]}}`.
 */
export function assertVisibilityAllowed(
  level: Visibility,
  restricted: readonly Visibility[],
  admin: boolean,
): void {
  if (admin || !restricted.includes(level)) return;
  throw invalidFields({ visibility_level: [`${level} has been restricted by your GitLab administrator`] });
}
