import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  announcedAt,
  CATALOG,
  type DeprecationId,
  filterCatalog,
  findDeprecation,
  isDatedRelease,
  isDeprecationId,
  RELEASE_DATES,
  releaseDate,
  sunsetAt,
} from './catalog.js';
import type { Deprecation } from './deprecation.js';

/**
 * The spec: the repository's copy (docs/spec), which must equal the team's shared spec when that sits next to
 * the checkout (../shared/spec), so a clone anywhere can run this test and a changed spec is noticed.
 */
const VENDORED = join(import.meta.dirname, '../../docs/spec');
const SHARED = join(import.meta.dirname, '../../../shared/spec');
function spec(file: string): string {
  const text = readFileSync(join(VENDORED, file), 'utf8');
  if (existsSync(join(SHARED, file))) {
    expect(text, `docs/spec/${file} differs from ../shared/spec/${file}: copy it again`).toBe(
      readFileSync(join(SHARED, file), 'utf8'),
    );
  }
  return text;
}
const versioningSpec = spec('versioning-deprecations.md');
const alertsSpec = spec('alerts-errors-storage.md');

/** Data rows (cells) of the first table after the heading that starts with `heading`. */
function tableRows(markdown: string, heading: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`### ${heading}`));
  if (start < 0) throw new Error(`heading not found: ${heading}`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  // Drop the header row and the |---| separator.
  return rows.slice(2);
}

const TABLES = [
  { heading: 'REST API v4 to v5 changes', source: 'v4-to-v5', removal: 'v5' },
  { heading: 'Removals in release 18.0', source: 'removals-18.0', removal: '18.0' },
  { heading: 'Removals in release 17.0', source: 'removals-17.0', removal: '17.0' },
] as const;

const ENFORCED = [
  'geo_nodes_api',
  'mr_merged_by',
  'mr_merge_status',
  'users_private_profile_null',
  'mr_changes_endpoint',
  'managed_licenses_api',
  'approvals_approvers_fields',
  'runner_active',
  'runner_status_values',
  'runner_ip_address',
  'runner_registration_token_api',
  'runner_reset_registration_token_api',
  'shared_runners_registration_token_env',
  'audit_repository_download_operation',
  'settings_sign_in_text_help_text',
  'duplicate_storage_paths',
  'list_repos',
  'users_offset_pagination',
  'oncall_link',
  'prometheus_api_url_features',
] as const satisfies readonly DeprecationId[];

describe('CATALOG against spec/versioning-deprecations.md', () => {
  for (const table of TABLES) {
    describe(table.heading, () => {
      const rows = tableRows(versioningSpec, table.heading);
      const entries = CATALOG.filter((d) => d.source === table.source);

      it('has the expected number of rows and one entry per row', () => {
        expect(rows.length).toBeGreaterThan(5);
        expect(entries).toHaveLength(rows.length);
      });

      it.each(rows.map((r) => [r[0]!, r] as const))('%s', (item, row) => {
        const matches = CATALOG.filter((d) => d.title === item);
        expect(matches).toHaveLength(1);
        const d = matches[0]!;
        expect(d.source).toBe(table.source);
        expect(d.removal).toBe(table.removal);
        if (table.source === 'v4-to-v5') {
          // "(all breaking)"
          expect(d.breaking).toBe(true);
          return;
        }
        // Announced column, e.g. `15.9 (end of support 17.0)`.
        expect(d.announced).toBe(row[1]!.split(' ')[0]);
        // 18.0 rows end in "Breaking."; 17.0 rows are breaking "unless stated otherwise".
        expect(d.breaking).toBe(!/not flagged breaking/i.test(row[2]!));
      });
    });
  }

  it('flags exactly the four 17.0 rows the spec marks "not flagged breaking"', () => {
    expect(filterCatalog({ source: 'removals-17.0', breaking: false }).map((d) => d.id)).toEqual([
      'graphql_temporary_storage_increase_fields',
      'runner_termination_grace_period_seconds',
      'runner_legacy_shell_escaping',
      'linux_packages_distribution_18_04',
    ]);
  });

  it('uses the reference §6 announcement releases for v4-to-v5 entries, GitLab dates for two that svc signals, else null', () => {
    const announced = Object.fromEntries(
      filterCatalog({ source: 'v4-to-v5' }).map((d) => [d.id, d.announced]),
    );
    expect(announced).toEqual({
      geo_nodes_api: '16.0',
      mr_merged_by: '14.7',
      mr_merge_status: '15.6',
      users_private_profile_null: '15.8',
      mr_changes_endpoint: '15.7',
      managed_licenses_api: null,
      approvals_approvers_fields: null,
      runner_active: '14.8',
      runner_status_values: '14.5',
      runner_ip_address: null,
    });
  });
});

describe('CATALOG against spec/alerts-errors-storage.md', () => {
  it('records the on-call link deprecation (13.8, no removal)', () => {
    expect(alertsSpec).toContain('deprecated from release 13.8');
    expect(findDeprecation('oncall_link')).toMatchObject({
      source: 'alerts-errors-storage',
      announced: '13.8',
      removal: null,
    });
  });

  it('records the metrics-alerting API base URL features (removal 16.0)', () => {
    expect(alertsSpec).toContain('scheduled for removal in release 16.0');
    expect(findDeprecation('prometheus_api_url_features')).toMatchObject({
      source: 'alerts-errors-storage',
      removal: '16.0',
    });
  });

  it('keeps one list_repos entry with the 17.0 data and the 16.4 deprecation in change', () => {
    expect(alertsSpec).toContain('deprecated in release 16.4');
    const entries = CATALOG.filter((d) => /list_repos/.test(d.title) || d.id === 'list_repos');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: 'list_repos', announced: '16.7', removal: '17.0' });
    expect(entries[0]!.change).toContain('16.4');
  });

  it('keeps one audit event entry', () => {
    expect(alertsSpec).toContain('public_repository_download_operation');
    expect(CATALOG.filter((d) => d.title.includes('repository_download_operation'))).toHaveLength(1);
    expect(findDeprecation('audit_repository_download_operation').removal).toBe('17.0');
  });

  it('has two entries of its own', () => {
    expect(filterCatalog({ source: 'alerts-errors-storage' }).map((d) => d.id)).toEqual([
      'oncall_link',
      'prometheus_api_url_features',
    ]);
  });
});

describe('catalog invariants', () => {
  it('has unique snake_case ids and unique titles', () => {
    const ids = CATALOG.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    expect(new Set(CATALOG.map((d) => d.title)).size).toBe(CATALOG.length);
  });

  it('enforces exactly the ids svc gates behaviour on', () => {
    for (const id of ENFORCED) expect(findDeprecation(id).enforced).toBe(true);
    expect(
      CATALOG.filter((d) => d.enforced)
        .map((d) => d.id)
        .sort(),
    ).toEqual([...ENFORCED].sort());
  });

  it('fills change for every entry and uses a known area', () => {
    const areas = new Set(CATALOG.map((d) => d.area));
    for (const d of CATALOG) {
      expect(d.change.length).toBeGreaterThan(10);
      expect(d.area).toMatch(/^[a-z_]+$/);
    }
    expect(areas.size).toBeLessThan(20);
  });

  it('has a release date for every announced and removal release it names', () => {
    for (const d of CATALOG) {
      if (d.announced) expect(RELEASE_DATES[d.announced], `${d.id} announced`).toBeDefined();
      if (isDatedRelease(d.removal)) expect(RELEASE_DATES[d.removal], `${d.id} removal`).toBeDefined();
    }
  });

  it('never sunsets before it deprecates (RFC 9745 §4)', () => {
    for (const d of CATALOG) {
      const dep = announcedAt(d);
      const sunset = sunsetAt(d);
      if (dep !== null && sunset !== null) expect(sunset.getTime() / 1000, d.id).toBeGreaterThan(dep);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(CATALOG)).toBe(true);
    expect(Object.isFrozen(CATALOG[0])).toBe(true);
  });
});

describe('findDeprecation', () => {
  it('returns the entry', () => {
    expect(findDeprecation('runner_active').replacement).toBe('paused');
  });

  it('refuses an unknown id at compile time, and at run time when a cast got it past the type', () => {
    // @ts-expect-error: not a catalog id (tsc fails here if it ever becomes one or the parameter widens to string)
    expect(() => findDeprecation('runner_registration_token')).toThrow(/Unknown deprecation id/);
    expect(isDeprecationId('runner_registration_token')).toBe(false);
    expect(isDeprecationId('runner_registration_token_api')).toBe(true);
  });
});

describe('filterCatalog', () => {
  const ids = (list: Deprecation[]) => list.map((d) => d.id);

  it('returns everything without a filter', () => {
    expect(filterCatalog()).toHaveLength(CATALOG.length);
  });

  it('release: removals at or before the release, without v5 or unscheduled entries', () => {
    const at16 = filterCatalog({ release: '16.11' });
    expect(ids(at16)).toEqual(['prometheus_api_url_features']);

    const at17 = filterCatalog({ release: '17.0' });
    expect(at17.every((d) => d.removal === '17.0' || d.removal === '16.0')).toBe(true);
    expect(at17).toHaveLength(CATALOG.filter((d) => d.source === 'removals-17.0').length + 1);

    const at18 = filterCatalog({ release: '18.0' });
    expect(at18).toHaveLength(at17.length + CATALOG.filter((d) => d.source === 'removals-18.0').length);
    expect(at18.some((d) => d.removal === 'v5' || d.removal === null)).toBe(false);

    expect(filterCatalog({ release: '99.0' })).toHaveLength(at18.length);
  });

  it('compares releases numerically (17.10 is after 17.9)', () => {
    expect(filterCatalog({ release: '17.10' })).toHaveLength(filterCatalog({ release: '17.9' }).length);
    expect(filterCatalog({ release: '17.10' }).length).toBeLessThan(
      filterCatalog({ release: '18.0' }).length,
    );
  });

  it('rejects a release that is not MAJOR.MINOR', () => {
    expect(() => filterCatalog({ release: 'v5' })).toThrow(/Not a release/);
  });

  it('breaking, area and source combine', () => {
    expect(ids(filterCatalog({ release: '17.0', breaking: false }))).toEqual([
      'graphql_temporary_storage_increase_fields',
      'runner_termination_grace_period_seconds',
      'runner_legacy_shell_escaping',
      'linux_packages_distribution_18_04',
      'prometheus_api_url_features',
    ]);
    expect(ids(filterCatalog({ area: 'runners', source: 'v4-to-v5' }))).toEqual([
      'runner_active',
      'runner_status_values',
      'runner_ip_address',
    ]);
    expect(filterCatalog({ area: 'geo', release: '18.0' }).map((d) => d.removal)).toEqual(['17.0', '17.0']);
    expect(filterCatalog({ area: 'no_such_area' })).toEqual([]);
  });
});

describe('release dates', () => {
  it('announcedAt gives Unix seconds of the announcement release day', () => {
    // merged_by: 14.7 = 2022-01-22 (reference §6).
    expect(announcedAt(findDeprecation('mr_merged_by'))).toBe(Date.UTC(2022, 0, 22) / 1000);
    expect(announcedAt(findDeprecation('mr_merged_by'))).toBe(1642809600);
    expect(announcedAt(findDeprecation('users_offset_pagination'))).toBe(Date.UTC(2023, 9, 22) / 1000);
    expect(announcedAt(findDeprecation('shared_runners_registration_token_env'))).toBe(
      Date.UTC(2024, 3, 18) / 1000,
    );
    expect(announcedAt(findDeprecation('oncall_link'))).toBe(Date.UTC(2021, 0, 22) / 1000);
    expect(announcedAt(findDeprecation('geo_nodes_api'))).toBe(Date.UTC(2023, 4, 22) / 1000);
    expect(announcedAt(findDeprecation('managed_licenses_api'))).toBeNull();
  });

  it('sunsetAt gives the removal release day, null for v5 and unscheduled removals', () => {
    expect(sunsetAt(findDeprecation('list_repos'))?.toISOString()).toBe('2024-05-16T00:00:00.000Z');
    expect(sunsetAt(findDeprecation('runner_registration_token_api'))?.toISOString()).toBe(
      '2025-05-15T00:00:00.000Z',
    );
    expect(sunsetAt(findDeprecation('prometheus_api_url_features'))?.toISOString()).toBe(
      '2023-05-22T00:00:00.000Z',
    );
    expect(sunsetAt(findDeprecation('mr_merged_by'))).toBeNull();
    expect(sunsetAt(findDeprecation('oncall_link'))).toBeNull();
  });

  it('releaseDate throws for a release it does not know', () => {
    expect(() => releaseDate('12.0')).toThrow(/No release date/);
  });
});
