/**
 * Maintenance windows (PagerDuty's): a planned period in which a whole project, or one alert integration, pages,
 * e-mails and calls hooks for nobody. Alerts that come meanwhile are stored and counted as any other; what they
 * held back goes out when the window ends if they still fire (as for a silence).
 */

import type { SilenceState } from './silences.js';

export interface MaintenanceWindow {
  readonly id: number;
  readonly projectId: number;
  /** Null: the whole project. */
  readonly integrationId: number | null;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly createdById: number | null;
  readonly comment: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** As a silence's: `pending` before it starts, `active` in [starts_at, ends_at), `expired` after. */
export type WindowState = SilenceState;

/** Whether a window covers an alert of `integrationId` (a project-wide one covers every alert). */
export function covers(w: Pick<MaintenanceWindow, 'integrationId'>, integrationId: number | null): boolean {
  return w.integrationId === null || w.integrationId === integrationId;
}

/**
 * What holds an alert back now: a silence (Alertmanager's, by matchers) or a maintenance window (by project or
 * integration), and when it ends.
 */
export type Silencer =
  | { readonly kind: 'silence'; readonly id: number; readonly endsAt: string }
  | {
      readonly kind: 'maintenance_window';
      readonly id: number;
      readonly endsAt: string;
      readonly integrationId: number | null;
    };
