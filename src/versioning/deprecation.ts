import type { DeprecationId } from './catalog.js';

/** One row of a spec deprecation table, as the catalog's data files (catalog/*.ts) write it. */
export interface DeprecationRow {
  /** Stable id, snake_case, e.g. `users_offset_pagination`, `runner_registration_token`. */
  readonly id: string;
  readonly title: string;
  /** Area: `api`, `runners`, `ci`, `graphql`, `security`, `packages`, `geo`, `auth`, `operations`, `repositories`, `alerts`, `error_tracking`, ... */
  readonly area: string;
  /** Release the deprecation was announced in (`16.5`), or null when the spec does not give one. */
  readonly announced: string | null;
  /** Release of removal (`17.0`, `18.0`), `v5` for REST API v4-to-v5 changes, or null when not scheduled. */
  readonly removal: string | null;
  readonly breaking: boolean;
  /** What changes, in a sentence or two (from the spec). */
  readonly change: string;
  /** The replacement, or null when there is none. */
  readonly replacement: string | null;
  /** Whether svc itself enforces the change (gates behaviour on it), as opposed to listing it for information. */
  readonly enforced: boolean;
}

/** One entry of the deprecation catalog (see catalog.ts): the single source of truth for gating, CLI, API and UI. */
export interface Deprecation extends DeprecationRow {
  readonly id: DeprecationId;
  /** Which spec table the entry comes from. */
  readonly source: 'v4-to-v5' | 'removals-18.0' | 'removals-17.0' | 'alerts-errors-storage';
}
