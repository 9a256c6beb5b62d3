import { useId, useState } from 'react';
import { ALERT_STATUSES, SeverityBadge, STATUS_LABELS, StatusBadge } from '../alert-labels';
import { getPage, sendJson } from '../api';
import { BulkBar, type BulkOutcome, BulkSummary, runBulk, useSelection } from '../bulk';
import {
  ErrorNotice,
  Pagination,
  ResourceView,
  SearchForm,
  TabList,
  TableScroll,
  Timestamp,
} from '../components';
import { UpdatedAt, usePolling } from '../live';
import { Link, paths } from '../router';
import type { Alert, AlertCounts, AlertStatus, Project } from '../types';
import { oneOf, useQueryState } from '../use-query-state';
import { useResource, useTimedLoader } from '../use-resource';
import { useAssignableMembers } from './incidents';

const PER_PAGE = 20;

/** The status tabs: everything, the open ones (triggered + acknowledged), then each status. */
type StatusFilter = 'all' | 'open' | AlertStatus;
const FILTERS: readonly StatusFilter[] = ['all', 'open', ...ALERT_STATUSES];
const FILTER_LABELS: Record<StatusFilter, string> = { all: 'All', open: 'Open', ...STATUS_LABELS };

type OrderBy = 'started_at' | 'severity' | 'event_count' | 'status';
type Sort = 'asc' | 'desc';

type Query = {
  readonly status: StatusFilter;
  readonly search: string;
  readonly orderBy: OrderBy;
  readonly sort: Sort;
  readonly page: number;
};

/** The list's state in the URL: `?status=open&search=db&order_by=severity&sort=asc&page=2`. */
const QUERY = {
  status: oneOf(FILTERS, 'all'),
  search: { fallback: '' },
  orderBy: {
    ...oneOf<OrderBy>(['started_at', 'severity', 'event_count', 'status'], 'started_at'),
    name: 'order_by',
  },
  sort: oneOf<Sort>(['asc', 'desc'], 'desc'),
  page: { fallback: 1 },
} as const;

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
  const [query, setQuery] = useQueryState<Query>(QUERY);
  const [refreshKey, setRefreshKey] = useState(0);
  // The list, its counts and its tabs follow new alerts while open; each unchanged answer is a 304.
  const key = refreshKey + usePolling();
  const counts = useResource<AlertCounts>(
    `/api/v4/projects/${project.id}/alert_management/alerts/counts`,
    key,
  );
  // `status=open` is triggered and acknowledged together, filtered by the server.
  const { resource: alerts, updatedAt } = useTimedLoader(alertsPath(project.id, query), getPage<Alert>, key);
  const headingId = useId();
  const baseId = useId();
  const tabId = (f: StatusFilter): string => `${baseId}-status-${f}`;
  const panelId = `${baseId}-alerts`;
  const shown = alerts.status === 'ok' ? alerts.data.items : [];
  const selection = useSelection(shown.map((a) => a.iid));
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);

  const update = (change: Partial<Query>): void => {
    selection.clear();
    setQuery({ page: 1, ...change });
  };
  const sortBy = (orderBy: OrderBy): void =>
    update({ orderBy, sort: query.orderBy === orderBy && query.sort === 'desc' ? 'asc' : 'desc' });
  const bulk = async (action: string, body: { status?: AlertStatus; assignee_usernames?: string[] }) => {
    const iids = selection.selected;
    const result = await runBulk(
      action,
      iids,
      (iid) => `Alert #${iid}`,
      (iid) => sendJson('PUT', `/api/v4/projects/${project.id}/alert_management/alerts/${iid}`, body),
    );
    setOutcome(result);
    selection.clear();
    setRefreshKey((k) => k + 1);
  };

  return (
    <>
      <div className="panel-header">
        <h2 id={headingId}>Alerts</h2>
        <UpdatedAt at={updatedAt} />
        <button type="button" className="button button-small" onClick={() => setRefreshKey((k) => k + 1)}>
          Refresh
        </button>
      </div>
      <TabList
        label="Alert status"
        tabs={FILTERS}
        selected={query.status}
        onSelect={(status) => update({ status })}
        tabId={tabId}
        panelId={() => panelId}
      >
        {(f) => (
          <>
            {FILTER_LABELS[f]}{' '}
            <span className="count">{countOf(counts.status === 'ok' ? counts.data : null, f)}</span>
          </>
        )}
      </TabList>
      {counts.status === 'error' && <ErrorNotice message={`Could not load the counts: ${counts.message}`} />}
      <search>
        <SearchForm
          key={query.search}
          label="Search alerts"
          placeholder="Search by title, description, service or tool"
          search={query.search}
          onSearch={(search) => update({ search })}
        />
      </search>
      {outcome && <BulkSummary outcome={outcome} onDismiss={() => setOutcome(null)} />}
      {selection.selected.length > 0 && (
        <AlertBulkBar project={project} count={selection.selected.length} onApply={bulk} />
      )}
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
                  selection={selection}
                />
                <Pagination
                  page={page}
                  perPage={PER_PAGE}
                  onPage={(p) => {
                    selection.clear();
                    setQuery({ page: p });
                  }}
                />
              </>
            )
          }
        </ResourceView>
      </div>
    </>
  );
}

/** Status changes and assignment for the selected alerts. */
function AlertBulkBar({
  project,
  count,
  onApply,
}: {
  readonly project: Project;
  readonly count: number;
  readonly onApply: (
    action: string,
    body: { status?: AlertStatus; assignee_usernames?: string[] },
  ) => Promise<void>;
}) {
  const members = useAssignableMembers(project.id);
  const [assignee, setAssignee] = useState('');
  const [busy, setBusy] = useState(false);
  const assignId = useId();
  const apply = (action: string, body: { status?: AlertStatus; assignee_usernames?: string[] }): void => {
    setBusy(true);
    void onApply(action, body).finally(() => setBusy(false));
  };
  return (
    <BulkBar count={count}>
      <button
        type="button"
        className="button button-small"
        disabled={busy}
        onClick={() => apply('Acknowledge', { status: 'acknowledged' })}
      >
        Acknowledge
      </button>
      <button
        type="button"
        className="button button-small"
        disabled={busy}
        onClick={() => apply('Resolve', { status: 'resolved' })}
      >
        Resolve
      </button>
      <button
        type="button"
        className="button button-small"
        disabled={busy}
        onClick={() => apply('Ignore', { status: 'ignored' })}
      >
        Ignore
      </button>
      <label htmlFor={assignId} className="visually-hidden">
        Assignee
      </label>
      <select id={assignId} value={assignee} onChange={(e) => setAssignee(e.target.value)}>
        <option value="">Unassigned</option>
        {members.map((m) => (
          <option key={m.id} value={m.username}>
            {m.name} (@{m.username})
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button button-small"
        disabled={busy}
        onClick={() => apply('Assign', { assignee_usernames: assignee === '' ? [] : [assignee] })}
      >
        Assign
      </button>
    </BulkBar>
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
  selection,
}: {
  readonly project: Project;
  readonly alerts: readonly Alert[];
  readonly query: Query;
  readonly onSort: (orderBy: OrderBy) => void;
  readonly labelledBy: string;
  readonly selection: ReturnType<typeof useSelection<number>>;
}) {
  return (
    <TableScroll label="Alerts">
      <table className="table alerts-table" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            <th scope="col" className="select-cell">
              <input
                type="checkbox"
                aria-label="Select all alerts on this page"
                checked={selection.allSelected}
                onChange={(e) => selection.setAll(e.target.checked)}
              />
            </th>
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
              <td className="select-cell">
                <input
                  type="checkbox"
                  aria-label={`Select alert #${alert.iid}`}
                  checked={selection.isSelected(alert.iid)}
                  onChange={(e) => selection.toggle(alert.iid, e.target.checked)}
                />
              </td>
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
    </TableScroll>
  );
}
