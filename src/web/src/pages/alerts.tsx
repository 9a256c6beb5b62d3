import { type FormEvent, type KeyboardEvent, useId, useRef, useState } from 'react';
import { ALERT_STATUSES, SeverityBadge, STATUS_LABELS, StatusBadge } from '../alert-labels';
import { getPage } from '../api';
import { ErrorNotice, Pagination, ResourceView, Timestamp } from '../components';
import { Link, paths } from '../router';
import type { Alert, AlertCounts, AlertStatus, Project } from '../types';
import { useLoader, useResource } from '../use-resource';

const PER_PAGE = 20;

/** The status tabs: everything, the open ones (triggered + acknowledged), then each status. */
type StatusFilter = 'all' | 'open' | AlertStatus;
const FILTERS: readonly StatusFilter[] = ['all', 'open', ...ALERT_STATUSES];
const FILTER_LABELS: Record<StatusFilter, string> = { all: 'All', open: 'Open', ...STATUS_LABELS };

type OrderBy = 'started_at' | 'severity' | 'event_count' | 'status';
type Sort = 'asc' | 'desc';

interface Query {
  readonly status: StatusFilter;
  readonly search: string;
  readonly orderBy: OrderBy;
  readonly sort: Sort;
  readonly page: number;
}

function alertsPath(projectId: number, q: Query): string {
  const params = new URLSearchParams({
    order_by: q.orderBy,
    sort: q.sort,
    page: String(q.page),
    per_page: String(PER_PAGE),
  });
  if (q.status !== 'all') params.set('status', q.status);
  if (q.search !== '') params.set('search', q.search);
  return `/api/v4/projects/${projectId}/alert_management/alerts?${params.toString()}`;
}

/** The project's alerts: status tabs with counts, search, a sortable table and pagination. */
export function AlertsPanel({ project }: { readonly project: Project }) {
  const [query, setQuery] = useState<Query>({
    status: 'all',
    search: '',
    orderBy: 'started_at',
    sort: 'desc',
    page: 1,
  });
  const [draft, setDraft] = useState('');
  const [refreshKey, setRefreshKey] = useState(0);
  const counts = useResource<AlertCounts>(
    `/api/v4/projects/${project.id}/alert_management/alerts/counts`,
    refreshKey,
  );
  // `status=open` is triggered and acknowledged together, filtered by the server.
  const alerts = useLoader(alertsPath(project.id, query), getPage<Alert>, refreshKey);
  const searchId = useId();
  const headingId = useId();
  const baseId = useId();
  const tabId = (f: StatusFilter): string => `${baseId}-status-${f}`;
  const panelId = `${baseId}-alerts`;
  const tabRefs = useRef<Partial<Record<StatusFilter, HTMLButtonElement | null>>>({});

  // Arrow keys, Home and End move between the status tabs (WAI-ARIA tabs pattern).
  const onTabKey = (event: KeyboardEvent<HTMLDivElement>): void => {
    const index = FILTERS.indexOf(query.status);
    const last = FILTERS.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    const filter = FILTERS[target]!;
    update({ status: filter });
    tabRefs.current[filter]?.focus();
  };

  const update = (change: Partial<Query>): void => setQuery((q) => ({ ...q, page: 1, ...change }));
  const submitSearch = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    update({ search: draft.trim() });
  };
  const sortBy = (orderBy: OrderBy): void =>
    update({ orderBy, sort: query.orderBy === orderBy && query.sort === 'desc' ? 'asc' : 'desc' });

  return (
    <>
      <div className="panel-header">
        <h2 id={headingId}>Alerts</h2>
        <button type="button" className="button button-small" onClick={() => setRefreshKey((k) => k + 1)}>
          Refresh
        </button>
      </div>
      <div className="subtabs" role="tablist" aria-label="Alert status" onKeyDown={onTabKey}>
        {FILTERS.map((f) => (
          <button
            key={f}
            ref={(el) => {
              tabRefs.current[f] = el;
            }}
            type="button"
            role="tab"
            id={tabId(f)}
            aria-selected={query.status === f}
            aria-controls={panelId}
            tabIndex={query.status === f ? 0 : -1}
            className="subtab"
            onClick={() => update({ status: f })}
          >
            {FILTER_LABELS[f]}{' '}
            <span className="count">{countOf(counts.status === 'ok' ? counts.data : null, f)}</span>
          </button>
        ))}
      </div>
      {counts.status === 'error' && <ErrorNotice message={`Could not load the counts: ${counts.message}`} />}
      <search>
        <form className="search-row" onSubmit={submitSearch}>
          <label htmlFor={searchId} className="visually-hidden">
            Search alerts
          </label>
          <input
            id={searchId}
            type="search"
            placeholder="Search by title, description, service or tool"
            value={draft}
            onChange={(event) => {
              setDraft(event.target.value);
              if (event.target.value === '' && query.search !== '') update({ search: '' });
            }}
          />
          <button type="submit" className="button">
            Search
          </button>
        </form>
      </search>
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(query.status)}>
        <ResourceView resource={alerts}>
          {(page) =>
            page.items.length === 0 ? (
              <EmptyAlerts project={project} filtered={query.status !== 'all' || query.search !== ''} />
            ) : (
              <>
                <AlertsTable
                  project={project}
                  alerts={page.items}
                  query={query}
                  onSort={sortBy}
                  labelledBy={headingId}
                />
                <Pagination
                  page={page}
                  perPage={PER_PAGE}
                  onPage={(p) => setQuery((q) => ({ ...q, page: p }))}
                />
              </>
            )
          }
        </ResourceView>
      </div>
    </>
  );
}

function countOf(counts: AlertCounts | null, filter: StatusFilter): string {
  return counts === null ? '…' : String(counts[filter] ?? 0);
}

function EmptyAlerts({ project, filtered }: { readonly project: Project; readonly filtered: boolean }) {
  if (filtered) {
    return (
      <div className="empty-state">
        <p>No alerts match this filter.</p>
      </div>
    );
  }
  return (
    <div className="empty-state">
      <p>No alerts yet.</p>
      <p className="muted">
        Alerts appear here when a monitoring tool posts to one of this project's integrations.{' '}
        <Link to={paths.project(project.id, 'settings')}>Set up an integration</Link> in Settings.
      </p>
    </div>
  );
}

const COLUMNS: readonly { readonly label: string; readonly orderBy: OrderBy | null }[] = [
  { label: 'Severity', orderBy: 'severity' },
  { label: 'Start time', orderBy: 'started_at' },
  { label: 'Alert', orderBy: null },
  { label: 'Events', orderBy: 'event_count' },
  { label: 'Status', orderBy: 'status' },
];

function AlertsTable({
  project,
  alerts,
  query,
  onSort,
  labelledBy,
}: {
  readonly project: Project;
  readonly alerts: readonly Alert[];
  readonly query: Query;
  readonly onSort: (orderBy: OrderBy) => void;
  readonly labelledBy: string;
}) {
  return (
    <table className="table alerts-table" aria-labelledby={labelledBy}>
      <thead>
        <tr>
          {COLUMNS.map((c) => {
            const active = c.orderBy !== null && c.orderBy === query.orderBy;
            return (
              <th
                key={c.label}
                scope="col"
                aria-sort={active ? (query.sort === 'asc' ? 'ascending' : 'descending') : undefined}
                className={c.label === 'Events' ? 'numeric' : undefined}
              >
                {c.orderBy === null ? (
                  c.label
                ) : (
                  <button type="button" className="sort-button" onClick={() => onSort(c.orderBy!)}>
                    {c.label}
                    <span aria-hidden="true" className="sort-mark">
                      {active ? (query.sort === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                )}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {alerts.map((alert) => (
          <tr key={alert.iid}>
            <td>
              <SeverityBadge severity={alert.severity} />
            </td>
            <td>
              <Timestamp value={alert.started_at} />
            </td>
            <td>
              <Link to={paths.alert(project.id, alert.iid)}>{alert.title}</Link>
              <span className="muted small">
                #{alert.iid}
                {alert.monitoring_tool ? ` · ${alert.monitoring_tool}` : ''}
                {alert.service ? ` · ${alert.service}` : ''}
              </span>
            </td>
            <td className="numeric">{alert.event_count}</td>
            <td>
              <StatusBadge status={alert.status} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
