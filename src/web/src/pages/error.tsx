import { type FormEvent, type ReactNode, useState } from 'react';
import { sendJson } from '../api';
import {
  Breadcrumbs,
  ErrorNotice,
  projectLabel,
  ResourceView,
  SuccessNotice,
  TableScroll,
  Timestamp,
} from '../components';
import {
  ERROR_STATUS_ACTIONS,
  ERROR_STATUS_LABELS,
  ERROR_STATUSES,
  ErrorStatusBadge,
  userLabel,
} from '../error-labels';
import { TextField } from '../form-fields';
import { OccurrenceChart } from '../lazy';
import { Link, navigate, paths } from '../router';
import type {
  ErrorEvent,
  ErrorHash,
  ErrorMerge,
  ErrorStatus,
  Project,
  StackTrace,
  StackTraceEntry,
  TrackedError,
} from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

const EVENTS_PER_PAGE = 20;

/** One tracked error: its figures, a status control, the stack trace of the latest event, and the latest events. */
export function ErrorPage({ projectId, errorId }: { readonly projectId: string; readonly errorId: string }) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(projectId)}`);
  const base = `/api/v4/projects/${encodeURIComponent(projectId)}/error_tracking/errors/${encodeURIComponent(errorId)}`;
  const error = useResource<TrackedError>(base);
  const [updated, setUpdated] = useState<TrackedError | null>(null);

  return (
    <>
      <Breadcrumbs
        links={[
          { to: paths.projects(), label: 'Projects' },
          { to: paths.project(projectId), label: projectLabel(project, projectId) },
          { to: paths.project(projectId, 'error_tracking'), label: 'Error tracking' },
        ]}
        current={`Error ${errorId}`}
      />
      <ResourceView resource={error}>
        {(loaded) => (
          <ErrorView projectId={projectId} error={updated ?? loaded} apiPath={base} onChanged={setUpdated} />
        )}
      </ResourceView>
    </>
  );
}

function ErrorView({
  projectId,
  error,
  apiPath,
  onChanged,
}: {
  readonly projectId: string;
  readonly error: TrackedError;
  readonly apiPath: string;
  readonly onChanged: (error: TrackedError) => void;
}) {
  const tags = Object.entries(error.tags);
  return (
    <>
      <header className="page-header alert-header">
        <div>
          <h1>{error.title}</h1>
          <p className="muted">
            <ErrorStatusBadge status={error.status} /> {error.type}
            {error.culprit ? (
              <>
                {' · '}
                <code>{error.culprit}</code>
              </>
            ) : null}
            {' · '}last seen <Timestamp value={error.last_seen} />
          </p>
        </div>
        <StatusActions error={error} apiPath={apiPath} onChanged={onChanged} />
      </header>

      <div className="stat-row">
        <Stat label="Occurrences" value={error.count} />
        <Stat label="Users affected" value={error.user_count} />
      </div>

      <section className="card section" aria-labelledby="error-frequency">
        <h2 id="error-frequency">Events over time</h2>
        <OccurrenceChart path={`${apiPath}/stats`} noun="event" key={error.count} />
      </section>

      <section className="card section" aria-labelledby="error-details">
        <h2 id="error-details">Error details</h2>
        <dl className="details">
          <Row label="Type">{error.type || <None />}</Row>
          <Row label="Message">
            {error.message ? <span className="prewrap">{error.message}</span> : <None />}
          </Row>
          <Row label="Culprit">{error.culprit ? <code>{error.culprit}</code> : <None />}</Row>
          <Row label="Platform">{error.platform || <None />}</Row>
          <Row label="Status">{ERROR_STATUS_LABELS[error.status as ErrorStatus] ?? error.status}</Row>
          <Row label="Occurrences">{error.count}</Row>
          <Row label="Users affected">{error.user_count}</Row>
          <Row label="First seen">
            <Timestamp value={error.first_seen} />
          </Row>
          <Row label="Last seen">
            <Timestamp value={error.last_seen} />
          </Row>
          <Row label="First release">{error.first_release ?? <None />}</Row>
          <Row label="Last release">{error.last_release ?? <None />}</Row>
          <Row label="Environment">{error.environment ?? <None />}</Row>
          <Row label="Tags">
            {tags.length > 0 ? (
              <ul className="inline-list" aria-label="Tags">
                {tags.map(([key, value]) => (
                  <li key={key}>
                    <span className="tag">
                      <span className="tag-key">{key}</span>
                      <span className="tag-value">{value}</span>
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <None />
            )}
          </Row>
        </dl>
      </section>

      <section className="card section" aria-labelledby="error-stack-trace">
        <h2 id="error-stack-trace">Stack trace</h2>
        <StackTraceView path={`${apiPath}/stack_trace`} />
      </section>

      <GroupingSection
        key={error.count}
        projectId={projectId}
        error={error}
        apiPath={apiPath}
        onChanged={onChanged}
      />

      <section className="card section" aria-labelledby="error-events">
        <h2 id="error-events">Latest events</h2>
        <EventsView
          path={`${apiPath}/events?per_page=${EVENTS_PER_PAGE}`}
          refreshKey={error.count}
          eventPath={(eventId) => paths.errorEvent(projectId, error.id, eventId)}
        />
      </section>
    </>
  );
}

/**
 * Grouping by hand: merge other errors into this one, or move some of its grouping hashes (and their events) into
 * a new error. The API answers 403 to Reporters, which the notice shows.
 */
function GroupingSection({
  projectId,
  error,
  apiPath,
  onChanged,
}: {
  readonly projectId: string;
  readonly error: TrackedError;
  readonly apiPath: string;
  readonly onChanged: (error: TrackedError) => void;
}) {
  const hashes = useResource<ErrorHash[]>(`${apiPath}/hashes`);
  const action = useAction();
  const [others, setOthers] = useState('');
  const errorsPath = apiPath.replace(/\/[^/]+$/, '');

  const merge = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const ids = others
      .split(/[\s,#]+/)
      .filter((v) => v !== '')
      .map(Number);
    if (ids.length === 0 || ids.some((n) => !Number.isInteger(n) || n <= 0)) {
      action.fail('Give the ids of the errors to merge, separated by commas.');
      return;
    }
    await action.run(async () => {
      const r = await sendJson<ErrorMerge>('PUT', `${errorsPath}/merge`, {
        error_ids: [error.id, ...ids],
      });
      setOthers('');
      if (r.error.id !== error.id) navigate(paths.error(projectId, r.error.id));
      else onChanged(r.error);
      return `Merged ${r.merged_error_ids.map((id) => `#${id}`).join(', ')} into #${r.error.id}.`;
    });
  };

  const unmerge = async (hash: string): Promise<void> => {
    await action.run(async () => {
      const created = await sendJson<TrackedError>('POST', `${apiPath}/unmerge`, { hashes: [hash] });
      navigate(paths.error(projectId, created.id));
      return `Unmerged into #${created.id}.`;
    });
  };

  return (
    <section className="card section" aria-labelledby="error-grouping">
      <h2 id="error-grouping">Grouping</h2>
      <form className="form-card" aria-label="Merge errors" onSubmit={(e) => void merge(e)}>
        <TextField
          label="Merge with errors"
          value={others}
          onChange={setOthers}
          placeholder="12, 15"
          help="Their events join this error (or this one joins theirs, whichever has more events), and so do their later events."
        />
        <div className="actions">
          <button type="submit" className="button" disabled={action.busy}>
            Merge
          </button>
        </div>
      </form>
      <ResourceView resource={hashes}>
        {(loaded) => (
          <TableScroll label="Grouping hashes">
            <table className="table" aria-label="Grouping hashes">
              <thead>
                <tr>
                  <th>Hash</th>
                  <th>Grouping</th>
                  <th>Events</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {loaded.map((h) => (
                  <tr key={h.hash}>
                    <td>
                      <code title={h.hash}>{h.hash.slice(0, 12)}</code>
                    </td>
                    <td>{h.grouping_version}</td>
                    <td>{h.events_count}</td>
                    <td>
                      {loaded.length > 1 ? (
                        <button
                          type="button"
                          className="button"
                          disabled={action.busy}
                          aria-label={`Unmerge ${h.hash.slice(0, 12)}`}
                          onClick={() => void unmerge(h.hash)}
                        >
                          Unmerge
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </ResourceView>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </section>
  );
}

function StatusActions({
  error,
  apiPath,
  onChanged,
}: {
  readonly error: TrackedError;
  readonly apiPath: string;
  readonly onChanged: (error: TrackedError) => void;
}) {
  const action = useAction();
  // Which button's change is running (it says so while the others are only disabled).
  const [pending, setPending] = useState<ErrorStatus | null>(null);

  const change = async (status: ErrorStatus): Promise<void> => {
    setPending(status);
    await action.run(async () => {
      const next = await sendJson<TrackedError>('PUT', apiPath, { status });
      onChanged(next);
      return `Status changed to ${ERROR_STATUS_LABELS[next.status as ErrorStatus] ?? next.status}.`;
    });
  };

  // Every status but the current one; "Resolve" first, as the most common action.
  const order: ErrorStatus[] = ['resolved', 'ignored', 'unresolved'];
  const targets = order.filter((s) => s !== error.status && ERROR_STATUSES.includes(s));
  return (
    <div className="status-control">
      <div className="actions">
        {targets.map((s) => (
          <button
            key={s}
            type="button"
            className={s === 'resolved' ? 'button button-primary' : 'button'}
            disabled={action.busy}
            onClick={() => void change(s)}
          >
            {action.busy && pending === s ? 'Saving…' : ERROR_STATUS_ACTIONS[s]}
          </button>
        ))}
      </div>
      {action.error !== null && <ErrorNotice message={`Could not change the status: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

function StackTraceView({ path }: { readonly path: string }) {
  const trace = useResource<StackTrace>(path);
  return (
    <ResourceView resource={trace}>
      {(loaded) => {
        // The API lists frames caller first (as Sentry stores them); show the innermost frame first, like Sentry.
        const frames = [...loaded.stack_trace_entries].reverse();
        if (frames.length === 0) {
          return <p className="muted">The latest event has no stack trace.</p>;
        }
        return (
          <>
            <p className="muted small">
              From the latest event, received <Timestamp value={loaded.date_received} />. Innermost frame
              first.
            </p>
            <ol className="frames" aria-label="Frames">
              {frames.map((frame, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: frames have no identity beyond their position.
                <li key={i}>
                  <Frame frame={frame} open={i === 0} />
                </li>
              ))}
            </ol>
          </>
        );
      }}
    </ResourceView>
  );
}

/** One stack frame: file, function and position, its code lines, and (from an event's payload) its local variables. */
export function Frame({
  frame,
  open,
  vars,
}: {
  readonly frame: StackTraceEntry;
  readonly open: boolean;
  readonly vars?: Readonly<Record<string, unknown>> | null;
}) {
  const file = frame.filename ?? frame.abs_path ?? '<unknown file>';
  const position =
    frame.lineNo !== null ? `line ${frame.lineNo}${frame.colNo !== null ? `:${frame.colNo}` : ''}` : null;
  const summary = (
    <>
      <span className="frame-file">{file}</span>
      {frame.function ? (
        <>
          {' in '}
          <code className="frame-function">{frame.function}</code>
        </>
      ) : null}
      {position ? <span className="muted inline"> at {position}</span> : null}
    </>
  );
  const variables = vars ? Object.entries(vars) : [];
  if (frame.context.length === 0 && variables.length === 0) {
    return <div className="frame frame-empty">{summary}</div>;
  }
  return (
    <details className="frame" open={open}>
      <summary>{summary}</summary>
      <ol className="frame-context" aria-label={`Code of ${file}`}>
        {frame.context.map(([lineNo, code]) => {
          const current = lineNo === frame.lineNo;
          return (
            <li
              key={lineNo}
              className={current ? 'frame-line frame-line-current' : 'frame-line'}
              aria-current={current ? 'true' : undefined}
            >
              <span className="frame-line-no" aria-hidden="true">
                {lineNo}
              </span>
              <code className="frame-code">{code === '' ? ' ' : code}</code>
            </li>
          );
        })}
      </ol>
      {variables.length > 0 && (
        <TableScroll label={`Local variables of ${frame.function ?? file}`}>
          <table className="table frame-vars" aria-label={`Local variables of ${frame.function ?? file}`}>
            <caption className="muted small">Local variables</caption>
            <tbody>
              {variables.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>
                    <code className="prewrap">
                      {typeof value === 'string' ? value : JSON.stringify(value)}
                    </code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </details>
  );
}

function EventsView({
  path,
  refreshKey,
  eventPath,
}: {
  readonly path: string;
  readonly refreshKey: number;
  readonly eventPath: (eventId: string) => string;
}) {
  const events = useResource<ErrorEvent[]>(path, refreshKey);
  if (events.status === 'error') {
    // The external backend keeps no event list (400 with the reason): say so quietly, without the status prefix.
    return <p className="muted">{events.message.replace(/^\d{3} [^-]*- /, '')}</p>;
  }
  return (
    <ResourceView resource={events}>
      {(list) =>
        list.length === 0 ? (
          <p className="muted">No events stored.</p>
        ) : (
          <TableScroll label="Events">
            <table className="table" aria-labelledby="error-events">
              <thead>
                <tr>
                  <th scope="col">Timestamp</th>
                  <th scope="col">Level</th>
                  <th scope="col">Release</th>
                  <th scope="col">Environment</th>
                  <th scope="col">User</th>
                  <th scope="col">Event ID</th>
                </tr>
              </thead>
              <tbody>
                {list.map((e) => {
                  const user = userLabel(e.user_key, e.user);
                  return (
                    <tr key={e.id}>
                      <td>
                        <Timestamp value={e.timestamp} />
                      </td>
                      <td>
                        <span className={`level level-${e.level}`}>{e.level}</span>
                      </td>
                      <td>{e.release ?? <None />}</td>
                      <td>{e.environment ?? <None />}</td>
                      <td title={e.user_key ?? undefined}>{user ?? <None text="anonymous" />}</td>
                      <td>
                        <Link
                          to={eventPath(e.event_id)}
                          title={e.event_id}
                          aria-label={`Event ${e.event_id}`}
                        >
                          <code>{e.event_id.slice(0, 8)}</code>
                        </Link>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        )
      }
    </ResourceView>
  );
}

function Stat({ label, value }: { readonly label: string; readonly value: number }) {
  return (
    <div className="card stat">
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
    </div>
  );
}

function Row({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function None({ text = 'none' }: { readonly text?: string }) {
  return <span className="muted inline">{text}</span>;
}
