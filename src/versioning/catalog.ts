import { ALERTS_ERRORS_STORAGE } from './catalog/alerts-errors-storage.js';
import { REMOVALS_17_0 } from './catalog/removals-17-0.js';
import { REMOVALS_18_0 } from './catalog/removals-18-0.js';
import { V4_TO_V5 } from './catalog/v4-to-v5.js';
import type { Deprecation } from './deprecation.js';
import { compareRelease, parseRelease } from './release.js';

// The catalog: one entry per row of the three tables in spec/versioning-deprecations.md ("REST API v4 to v5
// changes", "Removals in release 18.0", "Removals in release 17.0") plus the deprecations that only
// spec/alerts-errors-storage.md names, one file per table under catalog/. `title` is the spec's Item text
// verbatim (catalog.test.ts checks it against the spec); `change` and `replacement` paraphrase the row. Product
// names stay neutral, as in the spec. Two deprecations appear in both documents (svc:list_repos and the audit
// event change): each is one entry, carrying the 17.0 table's data, with the other document's facts folded into
// `change`.

/**
 * Every catalog id, derived from the data (`as const`): a misspelt id in `isRemoved('...')`,
 * `reply.deprecated('...')` or anywhere else fails to compile.
 */
export type DeprecationId =
  | (typeof V4_TO_V5)[number]['id']
  | (typeof REMOVALS_18_0)[number]['id']
  | (typeof REMOVALS_17_0)[number]['id']
  | (typeof ALERTS_ERRORS_STORAGE)[number]['id'];

const withSource = (
  rows: readonly (Omit<Deprecation, 'id' | 'source'> & { readonly id: DeprecationId })[],
  source: Deprecation['source'],
): Deprecation[] => rows.map((r) => Object.freeze({ ...r, source }));

/** Every deprecation svc knows, in spec order: v4-to-v5, 18.0, 17.0, then alerts-errors-storage. */
export const CATALOG: readonly Deprecation[] = Object.freeze([
  ...withSource(V4_TO_V5, 'v4-to-v5'),
  ...withSource(REMOVALS_18_0, 'removals-18.0'),
  ...withSource(REMOVALS_17_0, 'removals-17.0'),
  ...withSource(ALERTS_ERRORS_STORAGE, 'alerts-errors-storage'),
]);

const BY_ID: ReadonlyMap<string, Deprecation> = new Map(CATALOG.map((d) => [d.id, d]));

/** Whether a string (a URL segment, a scanner's rule) names a catalog entry. */
export function isDeprecationId(id: string): id is DeprecationId {
  return BY_ID.has(id);
}

/**
 * The catalog entry with this id. Ids are checked at compile time; an unknown id that got past the type (a cast)
 * still throws, so a typo never silently un-gates.
 */
export function findDeprecation(id: DeprecationId): Deprecation {
  const d = BY_ID.get(id);
  if (!d) throw new Error(`Unknown deprecation id: ${id}`);
  return d;
}

/** Filter for {@link filterCatalog}; every given field must match. */
export interface CatalogFilter {
  /** Entries removed at or before this release (`17.0`); excludes v5-only and unscheduled entries. */
  readonly release?: string;
  readonly breaking?: boolean;
  readonly area?: string;
  readonly source?: Deprecation['source'];
}

/** Catalog entries matching every given field of `filter`, in catalog order. */
export function filterCatalog(filter: CatalogFilter = {}): Deprecation[] {
  const release = filter.release === undefined ? null : parseRelease(filter.release);
  return CATALOG.filter((d) => {
    if (filter.breaking !== undefined && d.breaking !== filter.breaking) return false;
    if (filter.area !== undefined && d.area !== filter.area) return false;
    if (filter.source !== undefined && d.source !== filter.source) return false;
    if (release) {
      if (!isDatedRelease(d.removal)) return false;
      if (compareRelease(parseRelease(d.removal), release) > 0) return false;
    }
    return true;
  });
}

/** Whether `removal` is a `MAJOR.MINOR` release (not `v5`, not null). */
export function isDatedRelease(removal: string | null): removal is string {
  return removal !== null && /^\d+\.\d+$/.test(removal);
}

/**
 * Release days of every release the catalog names. The spec gives no dates; up to 16.5 this uses the reference's
 * convention (reference §6: "release day = the 22nd"), from 16.6 the actual release Thursdays. catalog.test.ts
 * checks that every announced and removal release of the catalog is listed.
 */
export const RELEASE_DATES: Readonly<Record<string, string>> = Object.freeze({
  '13.8': '2021-01-22',
  '14.5': '2021-11-22',
  '14.7': '2022-01-22',
  '14.8': '2022-02-22',
  '15.1': '2022-06-22',
  '15.3': '2022-08-22',
  '15.6': '2022-11-22',
  '15.7': '2022-12-22',
  '15.8': '2023-01-22',
  '15.9': '2023-02-22',
  '15.10': '2023-03-22',
  '15.11': '2023-04-22',
  '16.0': '2023-05-22',
  '16.1': '2023-06-22',
  '16.2': '2023-07-22',
  '16.3': '2023-08-22',
  '16.4': '2023-09-22',
  '16.5': '2023-10-22',
  '16.6': '2023-11-16',
  '16.7': '2023-12-21',
  '16.8': '2024-01-18',
  '16.9': '2024-02-15',
  '16.10': '2024-03-21',
  '16.11': '2024-04-18',
  '17.0': '2024-05-16',
  '18.0': '2025-05-15',
});

/** Midnight UTC of the release day of `release`; throws for a release missing from {@link RELEASE_DATES}. */
export function releaseDate(release: string): Date {
  const day = RELEASE_DATES[release];
  if (!day) throw new Error(`No release date known for ${release}`);
  return new Date(`${day}T00:00:00Z`);
}

/** Unix seconds of the announcement release day (for RFC 9745 `Deprecation: @<seconds>`), or null when not given. */
export function announcedAt(d: Deprecation): number | null {
  if (d.announced === null) return null;
  return Math.floor(releaseDate(d.announced).getTime() / 1000);
}

/** Day of the removal release (for RFC 8594 `Sunset`), or null for v5-only or unscheduled removals. */
export function sunsetAt(d: Deprecation): Date | null {
  return isDatedRelease(d.removal) ? releaseDate(d.removal) : null;
}
