import { useId, useState } from 'react';
import { Breadcrumbs, ResourceView, TableScroll } from '../components';
import { navigate, paths } from '../router';
import type { Deprecation, DeprecationCatalog, DeprecationSource, SessionUser } from '../types';
import { useResource } from '../use-resource';
import { AdminNav, AdminOnly } from './admin';

// The whole catalog (about a hundred entries) comes in one request; the filters work on it in the browser,
// so they answer at once and the summary and the filter options always describe the same data.
const CATALOG_PATH = '/api/v4/deprecations';

/** Removal filter value for every entry. */
const ALL = 'all';
/** The `removal` of REST API v4-to-v5 changes. */
const V5 = 'v5';
/** Bucket of the entries without a removal release. */
const NOT_SCHEDULED = 'none';

const RELEASE = /^(\d+)\.(\d+)$/;

const AREA_LABELS: Readonly<Record<string, string>> = {
  api: 'REST API',
  graphql: 'GraphQL',
  ci: 'CI/CD',
  auth: 'Authentication',
  audit: 'Audit events',
  packages: 'Packages and registries',
  error_tracking: 'Error tracking',
};

const SOURCE_LABELS: Readonly<Record<DeprecationSource, string>> = {
  'v4-to-v5': 'REST API v4 to v5 changes',
  'removals-18.0': 'Removals in release 18.0',
  'removals-17.0': 'Removals in release 17.0',
  'alerts-errors-storage': 'Alert intake, error tracking and repository storages',
};

/** "runners" -> "Runners", "error_tracking" -> "Error tracking"; a few areas have a proper name. */
function areaLabel(area: string): string {
  const known = AREA_LABELS[area];
  if (known !== undefined) return known;
  const words = area.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function sourceLabel(source: string): string {
  return SOURCE_LABELS[source as DeprecationSource] ?? source;
}

/** The group an entry is listed under: its removal release, `v5`, or `none`. */
function bucketOf(d: Deprecation): string {
  return d.removal ?? NOT_SCHEDULED;
}

/** How a removal reads in the filter and the table. */
function removalLabel(bucket: string): string {
  if (bucket === V5) return 'v5 API';
  if (bucket === NOT_SCHEDULED) return 'Not scheduled';
  return bucket;
}

/** Releases oldest first, then the v5 API, then anything this UI does not know, then the unscheduled entries. */
function compareBuckets(a: string, b: string): number {
  const rank = (x: string): number => (RELEASE.test(x) ? 0 : x === V5 ? 1 : x === NOT_SCHEDULED ? 3 : 2);
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  const ra = RELEASE.exec(a);
  const rb = RELEASE.exec(b);
  if (ra && rb) return Number(ra[1]) - Number(rb[1]) || Number(ra[2]) - Number(rb[2]);
  return a.localeCompare(b);
}

/** What the list shows; kept in the URL so a filtered view can be reloaded and shared. */
interface Filters {
  /** `all`, or one bucket (`17.0`, `v5`, `none`). */
  readonly removal: string;
  /** An area, or '' for every area. */
  readonly area: string;
  readonly breaking: boolean;
  readonly search: string;
}

const NO_FILTERS: Filters = { removal: ALL, area: '', breaking: false, search: '' };

function readFilters(search: string): Filters {
  const params = new URLSearchParams(search);
  return {
    removal: params.get('removal') || ALL,
    area: params.get('area') ?? '',
    breaking: params.get('breaking') === 'true',
    search: params.get('q') ?? '',
  };
}

function filtersUrl(f: Filters): string {
  const params = new URLSearchParams();
  if (f.removal !== ALL) params.set('removal', f.removal);
  if (f.area !== '') params.set('area', f.area);
  if (f.breaking) params.set('breaking', 'true');
  if (f.search !== '') params.set('q', f.search);
  const query = params.toString();
  return query === '' ? paths.adminDeprecations() : `${paths.adminDeprecations()}?${query}`;
}

/** Whether `d` passes every filter (the removal filter only when `withRemoval`). */
function matches(d: Deprecation, f: Filters, withRemoval = true): boolean {
  if (withRemoval && f.removal !== ALL && bucketOf(d) !== f.removal) return false;
  if (f.area !== '' && d.area !== f.area) return false;
  if (f.breaking && !d.breaking) return false;
  // Every word of the search must occur in the title or the change.
  const text = `${d.title}\n${d.change}`.toLowerCase();
  return f.search
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

const isDated = (d: Deprecation): boolean => d.removal !== null && RELEASE.test(d.removal);

/** Admin area > Deprecations: the catalog, what is in force at this instance's release, and what comes next. */
export function DeprecationsPage({ user }: { readonly user: SessionUser }) {
  if (!user.is_admin) return <AdminOnly />;
  return <Deprecations />;
}

function Deprecations() {
  const catalog = useResource<DeprecationCatalog>(CATALOG_PATH);
  return (
    <>
      <Breadcrumbs links={[{ to: paths.admin(), label: 'Admin area' }]} current="Deprecations" />
      <h1>Deprecations</h1>
      <AdminNav current="deprecations" />
      <ResourceView resource={catalog}>{(data) => <CatalogView catalog={data} />}</ResourceView>
    </>
  );
}

function CatalogView({ catalog }: { readonly catalog: DeprecationCatalog }) {
  const [requested, setRequested] = useState<Filters>(() => readFilters(window.location.search));
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const all = catalog.deprecations;
  const buckets = [...new Set(all.map(bucketOf))].sort(compareBuckets);
  const areas = [...new Set(all.map((d) => d.area))].sort((a, b) => areaLabel(a).localeCompare(areaLabel(b)));
  // A removal or area from an old link that the catalog no longer has falls back to "all".
  const filters: Filters = {
    ...requested,
    removal: buckets.includes(requested.removal) ? requested.removal : ALL,
    area: areas.includes(requested.area) ? requested.area : '',
  };
  const update = (patch: Partial<Filters>): void => {
    const next = { ...filters, ...patch };
    setRequested(next);
    navigate(filtersUrl(next), { replace: true });
  };
  const toggle = (id: string): void =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const shown = all.filter((d) => matches(d, filters));
  const groups = buckets
    .map((bucket) => ({ bucket, items: shown.filter((d) => bucketOf(d) === bucket) }))
    .filter((g) => g.items.length > 0);
  const isFiltered = filtersUrl(filters) !== paths.adminDeprecations();
  const headingId = useId();

  return (
    <>
      <Summary catalog={catalog} />
      <section className="card section" aria-labelledby={headingId}>
        <h2 id={headingId}>Catalog</h2>
        <FilterBar
          filters={filters}
          buckets={buckets}
          areas={areas}
          // Each removal option counts what the other filters leave, so a choice never leads to nothing unseen.
          bucketCounts={countBy(
            all.filter((d) => matches(d, filters, false)),
            bucketOf,
          )}
          onChange={update}
        />
        <output className="muted small result-count">
          Showing {shown.length} of {all.length} deprecations
        </output>
        {groups.length === 0 ? (
          <div className="empty-state">
            <p>No deprecations match these filters.</p>
            <p className="muted">Try another removal or area, or a shorter search.</p>
            {isFiltered && (
              <p>
                <button type="button" className="button" onClick={() => update(NO_FILTERS)}>
                  Clear filters
                </button>
              </p>
            )}
          </div>
        ) : (
          groups.map((g) => (
            <Group
              key={g.bucket}
              bucket={g.bucket}
              items={g.items}
              instanceRelease={catalog.instance_release}
              expanded={expanded}
              onToggle={toggle}
            />
          ))
        )}
      </section>
    </>
  );
}

function countBy<T>(items: readonly T[], key: (item: T) => string): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

// Summary

function Summary({ catalog }: { readonly catalog: DeprecationCatalog }) {
  const headingId = useId();
  const all = catalog.deprecations;
  const release = catalog.instance_release;
  const inForce = all.filter((d) => d.applies).length;
  const upcoming = all.filter((d) => isDated(d) && !d.applies).length;
  const v5 = all.filter((d) => d.removal === V5).length;
  const enforced = all.filter((d) => d.enforced).length;
  return (
    <section aria-labelledby={headingId} className="dep-summary">
      <h2 id={headingId}>This instance runs release {release}</h2>
      <p className="muted">
        A removal is <strong>in force</strong> once the instance runs its release or a later one. svc changes
        its own behaviour for the {enforced} entries marked <strong>Enforced by svc</strong>; the others are
        listed so you can check the clients and tools around it.
      </p>
      <div className="stat-row">
        <Stat label="In force now" value={inForce} note={`removed in ${release} or earlier`} />
        <Stat label="Upcoming" value={upcoming} note="removed in a later release" />
        <Stat label="v5 API changes" value={v5} note="only under /api/v5; v4 keeps them" />
      </div>
    </section>
  );
}

function Stat({
  label,
  value,
  note,
}: {
  readonly label: string;
  readonly value: number;
  readonly note: string;
}) {
  return (
    <div className="card stat">
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
      <span className="stat-note">{note}</span>
    </div>
  );
}

// Filters

function FilterBar({
  filters,
  buckets,
  areas,
  bucketCounts,
  onChange,
}: {
  readonly filters: Filters;
  readonly buckets: readonly string[];
  readonly areas: readonly string[];
  readonly bucketCounts: ReadonlyMap<string, number>;
  readonly onChange: (patch: Partial<Filters>) => void;
}) {
  const ids = { search: useId(), area: useId(), breaking: useId(), removal: useId() };
  const total = [...bucketCounts.values()].reduce((sum, n) => sum + n, 0);
  const options = [ALL, ...buckets];
  return (
    <div className="dep-filters">
      <fieldset className="segmented">
        <legend>Removal</legend>
        {options.map((bucket) => (
          <label key={bucket} className={filters.removal === bucket ? 'segment segment-selected' : 'segment'}>
            <input
              type="radio"
              name={ids.removal}
              value={bucket}
              checked={filters.removal === bucket}
              onChange={() => onChange({ removal: bucket })}
            />
            {bucket === ALL ? 'All' : removalLabel(bucket)}{' '}
            <span className="count">{bucket === ALL ? total : (bucketCounts.get(bucket) ?? 0)}</span>
          </label>
        ))}
      </fieldset>
      <div className="toolbar">
        <search className="toolbar-grow">
          <div className="search-row">
            <label htmlFor={ids.search} className="visually-hidden">
              Search deprecations
            </label>
            <input
              id={ids.search}
              type="search"
              placeholder="Search titles and changes"
              value={filters.search}
              onChange={(event) => onChange({ search: event.target.value })}
            />
          </div>
        </search>
        <div className="field field-inline">
          <label htmlFor={ids.area}>Area</label>
          <select
            id={ids.area}
            value={filters.area}
            onChange={(event) => onChange({ area: event.target.value })}
          >
            <option value="">All areas</option>
            {areas.map((a) => (
              <option key={a} value={a}>
                {areaLabel(a)}
              </option>
            ))}
          </select>
        </div>
        <label className="checkbox dep-breaking-filter" htmlFor={ids.breaking}>
          <input
            id={ids.breaking}
            type="checkbox"
            checked={filters.breaking}
            onChange={(event) => onChange({ breaking: event.target.checked })}
          />
          Breaking only
        </label>
      </div>
    </div>
  );
}

// The grouped table

function groupText(bucket: string, items: readonly Deprecation[], instanceRelease: string) {
  if (bucket === V5) {
    return {
      title: 'REST API v5',
      note: 'Changes from v4 to v5, all breaking. They apply to requests under /api/v5; /api/v4 keeps the old behaviour.',
    };
  }
  if (bucket === NOT_SCHEDULED) {
    return { title: 'No removal scheduled', note: 'Deprecated, with no release of removal given yet.' };
  }
  if (!RELEASE.test(bucket)) return { title: `Removal: ${bucket}`, note: '' };
  if (items.every((d) => d.applies)) {
    return {
      title: `Removed in ${bucket}`,
      note: `In force: this instance runs release ${instanceRelease}.`,
    };
  }
  return {
    title: `Removal in ${bucket}`,
    note: `Not in force yet: these take effect when the instance is upgraded to ${bucket}.`,
  };
}

function Group({
  bucket,
  items,
  instanceRelease,
  expanded,
  onToggle,
}: {
  readonly bucket: string;
  readonly items: readonly Deprecation[];
  readonly instanceRelease: string;
  readonly expanded: ReadonlySet<string>;
  readonly onToggle: (id: string) => void;
}) {
  const headingId = useId();
  const { title, note } = groupText(bucket, items, instanceRelease);
  return (
    <section className="dep-group" aria-labelledby={headingId}>
      <div className="dep-group-header">
        <h3 id={headingId}>{title}</h3>
        <span className="count" title={`${items.length} shown`}>
          {items.length}
        </span>
      </div>
      {note !== '' && <p className="muted small dep-group-note">{note}</p>}
      <TableScroll label={title}>
        <table className="table dep-table" aria-labelledby={headingId}>
          {/* Fixed widths, so the columns line up from one group's table to the next. */}
          <colgroup>
            <col className="dep-col-title" />
            <col className="dep-col-area" />
            <col className="dep-col-announced" />
            <col className="dep-col-removal" />
            <col className="dep-col-status" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Deprecation</th>
              <th scope="col">Area</th>
              <th scope="col">Announced</th>
              <th scope="col">Removal</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <DeprecationRows key={d.id} d={d} open={expanded.has(d.id)} onToggle={() => onToggle(d.id)} />
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}

function DeprecationRows({
  d,
  open,
  onToggle,
}: {
  readonly d: Deprecation;
  readonly open: boolean;
  readonly onToggle: () => void;
}) {
  const detailsId = useId();
  return (
    <>
      <tr className={open ? 'dep-row dep-row-open' : 'dep-row'}>
        <th scope="row">
          <button
            type="button"
            className="disclosure"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={onToggle}
          >
            <span className="disclosure-icon" aria-hidden="true">
              {open ? '▾' : '▸'}
            </span>
            <span className="disclosure-label">{d.title}</span>
          </button>
        </th>
        <td>{areaLabel(d.area)}</td>
        <td>{d.announced ?? <span className="muted">not given</span>}</td>
        <td className="nowrap">{removalLabel(bucketOf(d))}</td>
        <td>
          <Badges d={d} />
        </td>
      </tr>
      <tr id={detailsId} className="dep-details" hidden={!open}>
        <td colSpan={5}>
          <dl className="details">
            <dt>What changes</dt>
            <dd>{d.change}</dd>
            <dt>Replacement</dt>
            <dd>{d.replacement ?? <span className="muted">None</span>}</dd>
            <dt>Catalog ID</dt>
            <dd>
              <code>{d.id}</code>
            </dd>
            <dt>Listed in</dt>
            <dd>{sourceLabel(d.source)}</dd>
          </dl>
        </td>
      </tr>
    </>
  );
}

function Badges({ d }: { readonly d: Deprecation }) {
  return (
    <span className="inline-list">
      {d.breaking && (
        <span className="status dep-breaking" title="Clients that use this stop working after the removal">
          Breaking
        </span>
      )}
      {d.applies && (
        <span className="status dep-in-force" title="The removal's release is at or before this instance's">
          In force
        </span>
      )}
      {d.enforced && (
        <span className="status dep-enforced" title="svc changes its own behaviour at the removal">
          Enforced by svc
        </span>
      )}
    </span>
  );
}
