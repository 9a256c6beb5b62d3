/** Who may see a project, group or snippet without a membership (settings name the defaults for new ones). */
export type Visibility = 'private' | 'internal' | 'public';

export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];
