import { useId, useState } from 'react';
import { ApiError, describeError, getPage, type Page, sendJson } from '../api';
import { BulkBar, type BulkOutcome, BulkSummary, runBulk, useSelection } from '../bulk';
import { Pagination, ResourceView, SearchForm, TabList, TableScroll, Timestamp } from '../components';
import { ERROR_STATUS_ACTIONS, ERROR_STATUS_LABELS, ERROR_STATUSES } from '../error-labels';
import { Sparkline } from '../lazy';
import { UpdatedAt, usePolling } from '../live';
import { Link, paths } from '../router';
import type {
  ErrorCounts,
  ErrorMerge,
  ErrorSessions,
  ErrorStats,
  ErrorStatus,
  Project,
  TrackedError,
} from '../types';
import { oneOf, useQueryState } from '../use-query-state';
import { useResource, useTimedLoader } from '../use-resource';
import { CronMonitors } from './cron-monitors';

const PER_PAGE = 20;

type Sort = 'last_seen' | 'first_seen' | 'frequency';
const SORT_LABELS: Record<Sort, string> = {
  last_seen: 'Last seen',
  first_seen: 'First seen',
  frequency: 'Frequency',
};
const SORTS = Object.keys(SORT_LABELS) as Sort[];

type Query = {
  readonly status: ErrorStatus;
  readonly search: string;
  readonly sort: Sort;
  readonly page: number;
};

/** The list's state in the URL: `?status=resolved&search=KeyError&sort=frequency&page=2`. */
const QUERY = {
  status: oneOf(ERROR_STATUSES, 'unresolved'),
  search: { fallback: '' },
  sort: oneOf(SORTS, 'last_seen'),
  page: { fallback: 1 },
} as const;

/** A page of errors, or the reason the backend cannot list any (not enabled or not configured: a 400). */
type ErrorList =
  | { readonly kind: 'page'; readonly page: Page<TrackedError> }
  | { readonly kind: 'unavailable'; readonly message: string };

async function loadErrors(path: string): Promise<ErrorList> {
  try {
    return { kind: 'page', page: await getPage<TrackedError>(path) };
  } catch (err) {
    // "400 Bad request - Error Tracking is not enabled" (or "... not configured"): an empty state, not an error.
    if (err instanceof ApiError && err.status === 400 && /not (enabled|configured)/i.test(err.message)) {
      return { kind: 'unavailable', message: err.message };
    }
    throw err;
  }
}

function errorsPath(projectId: number, q: Query): string {
  const params = new URLSearchParams({ sort: q.sort, page: String(q.page), per_page: String(PER_PAGE) });
  // A search that names a status (`is:resolved`) says which errors it wants; the tab's status would contradict it.
  if (!/(^|\s)!?is:(unresolved|resolved|ignored)(\s|$)/.test(q.search)) params.set('status', q.status);
  if (q.search !== '') params.set('search', q.search);
  return `/api/v4/projects/${projectId}/error_tracking/errors?${params.toString()}`;
}

/** The project's tracked errors: status tabs, search, sort, a table and pagination. */
export function ErrorsPanel({ project }: { readonly project: Project }) {
  if (project.monitor_access_level === 'disabled') {
    return (
      <>
        <h2>Error tracking</h2>
        <div className="empty-state">
          <p>The Monitor feature is disabled for this project.</p>
          <p className="muted">Error tracking is part of Monitor; a project owner can turn it on again.</p>
        </div>
      </>
    );
  }
  return <ErrorsList project={project} />;
}

function ErrorsList({ project }: { readonly project: Project }) {
  const [query, setQuery] = useQueryState<Query>(QUERY);
  const [manualKey, setRefreshKey] = useState(0);
  // The list follows new and changed errors while open; each unchanged answer is a 304.
  const refreshKey = manualKey + usePolling();
  const { resource: errors, updatedAt } = useTimedLoader(
    errorsPath(project.id, query),
    loadErrors,
    refreshKey,
  );
  const counts = useResource<ErrorCounts>(
    `/api/v4/projects/${project.id}/error_tracking/errors/counts`,
    refreshKey,
  );
  const shown = errors.status === 'ok' && errors.data.kind === 'page' ? errors.data.page.items : [];
  const selection = useSelection(shown.map((e) => e.id));
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const [busy, setBusy] = useState(false);
  const bulk = (status: ErrorStatus): void => {
    setBusy(true);
    void runBulk(
      ERROR_STATUS_ACTIONS[status],
      selection.selected,
      (id) => `Error ${shown.find((e) => e.id === id)?.title ?? id}`,
      (id) => sendJson('PUT', `/api/v4/projects/${project.id}/error_tracking/errors/${id}`, { status }),
    ).then(finish);
  };
  const finish = (result: BulkOutcome): void => {
    setOutcome(result);
    selection.clear();
    setBusy(false);
    setRefreshKey((k) => k + 1);
  };
  /** One request for all the selected errors (the bulk endpoint, or merge): all change, or none does. */
  const together = (label: string, send: (ids: readonly number[]) => Promise<unknown>): void => {
    const ids = selection.selected;
    setBusy(true);
    void send(ids).then(
      () => finish({ action: label, done: ids.length, failed: [] }),
      (err: unknown) =>
        finish({
          action: label,
          done: 0,
          failed: [{ label: 'Selected errors', reason: describeError(err) }],
        }),
    );
  };
  const bulkPath = `/api/v4/projects/${project.id}/error_tracking/errors`;
  const headingId = useId();
  const sortId = useId();
  const baseId = useId();
  const tabId = (s: ErrorStatus): string => `${baseId}-status-${s}`;
  const panelId = `${baseId}-errors`;

  const update = (change: Partial<Query>): void => {
    selection.clear();
    setQuery({ page: 1, ...change });
  };

  // Filters make no sense while the backend cannot list errors at all.
  const unavailable = errors.status === 'ok' && errors.data.kind === 'unavailable';

  return (
    <>
      <div className="panel-header">
        <h2 id={headingId}>Errors</h2>
        <UpdatedAt at={updatedAt} />
        <button type="button" className="button button-small" onClick={() => setRefreshKey((k) => k + 1)}>
          Refresh
        </button>
      </div>
      <TabList
        label="Error status"
        tabs={ERROR_STATUSES}
        selected={query.status}
        onSelect={(status) => update({ status })}
        tabId={tabId}
        panelId={() => panelId}
        hidden={unavailable}
      >
        {(s) => (
          <>
            {ERROR_STATUS_LABELS[s]}
            {counts.status === 'ok' && (
              <>
                {' '}
                <span className="badge tab-count">{counts.data[s]}</span>
              </>
            )}
          </>
        )}
      </TabList>
      <div className="toolbar" hidden={unavailable}>
        <search className="toolbar-grow">
          <SearchForm
            key={query.search}
            label="Search errors"
            placeholder='is:assigned assigned:me release:1.2 server:web-1 "text"'
            search={query.search}
            onSearch={(search) => update({ search })}
          />
        </search>
        <div className="field field-inline">
          <label htmlFor={sortId}>Sort by</label>
          <select
            id={sortId}
            value={query.sort}
            onChange={(event) => update({ sort: event.target.value as Sort })}
          >
            {SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
      </div>
      {outcome && <BulkSummary outcome={outcome} onDismiss={() => setOutcome(null)} />}
      {selection.selected.length > 0 && (
        <BulkBar count={selection.selected.length}>
          {ERROR_STATUSES.filter((s) => s !== query.status).map((s) => (
            <button
              key={s}
              type="button"
              className="button button-small"
              disabled={busy}
              onClick={() => bulk(s)}
            >
              {ERROR_STATUS_ACTIONS[s]}
            </button>
          ))}
          <button
            type="button"
            className="button button-small"
            disabled={busy}
            onClick={() =>
              together('Assign to me', (ids) => sendJson('PUT', bulkPath, { ids, assignee: 'me' }))
            }
          >
            Assign to me
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={busy}
            onClick={() => together('Unassign', (ids) => sendJson('PUT', bulkPath, { ids, assignee: null }))}
          >
            Unassign
          </button>
          {selection.selected.length > 1 && (
            <button
              type="button"
              className="button button-small"
              disabled={busy}
              onClick={() =>
                together('Merge', (ids) =>
                  sendJson<ErrorMerge>('PUT', `${bulkPath}/merge`, { error_ids: ids }),
                )
              }
            >
              Merge
            </button>
          )}
        </BulkBar>
      )}
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(query.status)}>
        <ResourceView resource={errors}>
          {(result) =>
            result.kind === 'unavailable' ? (
              <NotEnabled project={project} message={result.message} />
            ) : result.page.items.length === 0 ? (
              <div className="empty-state">
                <p>
                  {query.search !== ''
                    ? 'No errors match this search.'
                    : `No ${ERROR_STATUS_LABELS[query.status].toLowerCase()} errors.`}
                </p>
                {query.status === 'unresolved' && query.search === '' && (
                  <p className="muted">
                    Errors appear here when an application reports them with a Sentry SDK.
                  </p>
                )}
              </div>
            ) : (
              <>
                <ErrorsTable
                  project={project}
                  errors={result.page.items}
                  labelledBy={headingId}
                  refreshKey={refreshKey}
                  selection={selection}
                />
                <Pagination
                  page={result.page}
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
      <Sessions project={project} refreshKey={refreshKey} />
      <CronMonitors project={project} refreshKey={refreshKey} />
    </>
  );
}

function NotEnabled({ project, message }: { readonly project: Project; readonly message: string }) {
  return (
    <div className="empty-state">
      <p>Error tracking is not set up for this project.</p>
      <p className="muted">
        {message}. <Link to={paths.project(project.id, 'settings')}>Enable error tracking</Link> in Settings,
        then send events with a Sentry SDK or connect an external Sentry.
      </p>
    </div>
  );
}

function ErrorsTable({
  project,
  errors,
  labelledBy,
  refreshKey,
  selection,
}: {
  readonly project: Project;
  readonly errors: readonly TrackedError[];
  readonly labelledBy: string;
  readonly refreshKey: number;
  readonly selection: ReturnType<typeof useSelection<number>>;
}) {
  // One request for the sparklines of the whole page, counted per hour by the database.
  const stats = useResource<ErrorStats[]>(
    `/api/v4/projects/${project.id}/error_tracking/errors/stats?stats_period=24h&error_ids=${errors.map((e) => e.id).join(',')}`,
    refreshKey,
  );
  const trend = new Map(stats.status === 'ok' ? stats.data.map((x) => [x.error_id, x.buckets]) : []);
  // An external Sentry keeps no event history here (the stats endpoint answers 400): no trend column then.
  const showTrend = stats.status !== 'error';
  return (
    <TableScroll label="Errors">
      <table className="table alerts-table" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            <th scope="col" className="select-cell">
              <input
                type="checkbox"
                aria-label="Select all errors on this page"
                checked={selection.allSelected}
                onChange={(e) => selection.setAll(e.target.checked)}
              />
            </th>
            <th scope="col">Error</th>
            <th scope="col" className="numeric">
              Events
            </th>
            <th scope="col" className="numeric">
              Users
            </th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            {showTrend && <th scope="col">Last 24 hours</th>}
          </tr>
        </thead>
        <tbody>
          {errors.map((e) => (
            <tr key={e.id}>
              <td className="select-cell">
                <input
                  type="checkbox"
                  aria-label={`Select ${e.title}`}
                  checked={selection.isSelected(e.id)}
                  onChange={(event) => selection.toggle(e.id, event.target.checked)}
                />
              </td>
              <td className="error-cell">
                <Link to={paths.error(project.id, e.id)}>{e.title}</Link>
                <span className="muted small">
                  {e.culprit || e.type}
                  {e.environment ? ` · ${e.environment}` : ''}
                  {e.assignee ? ` · assigned to @${e.assignee.username}` : ''}
                </span>
              </td>
              <td className="numeric">{e.count}</td>
              <td className="numeric">{e.user_count}</td>
              <td>
                <Timestamp value={e.first_seen} />
              </td>
              <td>
                <Timestamp value={e.last_seen} />
              </td>
              {showTrend && (
                <td>
                  {trend.has(e.id) ? (
                    <Sparkline buckets={trend.get(e.id)!} label={`Events of ${e.title}`} />
                  ) : (
                    <span className="muted inline">…</span>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Release health from session updates (Python and Rust SDKs send them); hidden while there are none. */
function Sessions({ project, refreshKey }: { readonly project: Project; readonly refreshKey: number }) {
  const sessions = useResource<ErrorSessions[]>(
    `/api/v4/projects/${project.id}/error_tracking/sessions`,
    refreshKey,
  );
  const headingId = useId();
  if (sessions.status !== 'ok' || sessions.data.length === 0) return null;
  return (
    <section className="subsection" aria-labelledby={headingId}>
      <h3 id={headingId} className="subheading">
        Release health
      </h3>
      <TableScroll label="Release health">
        <table className="table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Release</th>
              <th scope="col">Environment</th>
              <th scope="col" className="numeric">
                Sessions
              </th>
              <th scope="col" className="numeric">
                Errored
              </th>
              <th scope="col" className="numeric">
                Crashed
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((s) => (
              <tr key={`${s.release}\u0000${s.environment}`}>
                <td>{s.release || <span className="muted inline">none</span>}</td>
                <td>{s.environment || <span className="muted inline">none</span>}</td>
                <td className="numeric">{s.started}</td>
                <td className="numeric">{s.errored}</td>
                <td className="numeric">{s.crashed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
