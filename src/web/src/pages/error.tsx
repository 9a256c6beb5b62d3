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
import { SelectField, TextField } from '../form-fields';
import { OccurrenceChart } from '../lazy';
import { CommentForm, NoteList } from '../notes';
import { Link, navigate, paths } from '../router';
import type {
  ErrorActivity,
  ErrorDetail,
  ErrorEvent,
  ErrorFeedback,
  ErrorHash,
  ErrorMerge,
  ErrorStatus,
  Project,
  SentryRelease,
  StackTrace,
  StackTraceEntry,
  SuspectCommit,
  TrackedError,
} from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

const EVENTS_PER_PAGE = 20;

/** One tracked error: its figures, a status control, the stack trace of the latest event, and the latest events. */
export function ErrorPage({ projectId, errorId }: { readonly projectId: string; readonly errorId: string }) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(projectId)}`);
  const base = `/api/v4/projects/${encodeURIComponent(projectId)}/error_tracking/errors/${encodeURIComponent(errorId)}`;
  const error = useResource<ErrorDetail>(base);
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
          <ErrorView
            projectId={projectId}
            namespacePath={project.status === 'ok' ? project.data.namespace.full_path : null}
            error={updated ?? loaded}
            suspects={loaded.suspect_commits}
            apiPath={base}
            onChanged={setUpdated}
          />
        )}
      </ResourceView>
    </>
  );
}

function ErrorView({
  projectId,
  namespacePath,
  error,
  suspects,
  apiPath,
  onChanged,
}: {
  readonly projectId: string;
  /** The project's namespace: the organization of its Sentry releases. */
  readonly namespacePath: string | null;
  readonly error: TrackedError;
  readonly suspects: readonly SuspectCommit[];
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

      <TriageSection apiPath={apiPath} onChanged={onChanged} />
      {suspects.length > 0 && (
        <section className="card section" aria-labelledby="error-suspects">
          <h2 id="error-suspects">Suspect commits</h2>
          <ul className="suspects">
            {suspects.map((s) => (
              <li key={`${s.id}:${s.file_path}:${s.line}`}>
                <SuspectLine projectId={projectId} suspect={s} />
              </li>
            ))}
          </ul>
        </section>
      )}

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
          <Row label="Status">
            {ERROR_STATUS_LABELS[error.status as ErrorStatus] ?? error.status}
            {statusDetail(error)}
          </Row>
          <Row label="Assignee">
            {error.assignee ? `${error.assignee.name} (@${error.assignee.username})` : <None />}
          </Row>
          <Row label="Occurrences">{error.count}</Row>
          <Row label="Users affected">{error.user_count}</Row>
          <Row label="First seen">
            <Timestamp value={error.first_seen} />
          </Row>
          <Row label="Last seen">
            <Timestamp value={error.last_seen} />
          </Row>
          <Row label="First release">{error.first_release ?? <None />}</Row>
          <Row label="Last release">
            {error.last_release && namespacePath ? (
              <ReleaseInfo namespacePath={namespacePath} version={error.last_release} />
            ) : (
              (error.last_release ?? <None />)
            )}
          </Row>
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

      {/* A new status, assignee or event may have added activity: read it again. */}
      <ActivitySection key={`${error.status}:${error.assignee?.id ?? ''}:${error.count}`} apiPath={apiPath} />

      <section className="card section" aria-labelledby="error-events">
        <h2 id="error-events">Latest events</h2>
        <EventsView
          path={`${apiPath}/events?per_page=${EVENTS_PER_PAGE}`}
          refreshKey={error.count}
          eventPath={(eventId) => paths.errorEvent(projectId, error.id, eventId)}
        />
      </section>

      <section className="card section" aria-labelledby="error-feedback">
        <h2 id="error-feedback">User feedback</h2>
        <FeedbackView
          path={`${apiPath}/feedback`}
          refreshKey={error.count}
          eventPath={(eventId) => paths.errorEvent(projectId, error.id, eventId)}
        />
      </section>
    </>
  );
}

/** What users said about the error's events (SDK feedback, user reports, the error page form), newest first. */
function FeedbackView({
  path,
  refreshKey,
  eventPath,
}: {
  readonly path: string;
  readonly refreshKey: number;
  readonly eventPath: (eventId: string) => string;
}) {
  const feedback = useResource<ErrorFeedback[]>(path, refreshKey);
  if (feedback.status === 'error')
    return <p className="muted">{feedback.message.replace(/^\d{3} [^-]*- /, '')}</p>;
  return (
    <ResourceView resource={feedback}>
      {(list) =>
        list.length === 0 ? (
          <p className="muted">No feedback from users.</p>
        ) : (
          <ul className="feedback-list" aria-labelledby="error-feedback">
            {list.map((f) => (
              <li key={f.id} className="feedback">
                <blockquote>{f.comments}</blockquote>
                <p className="muted small">
                  {f.name || 'Anonymous'}
                  {f.email ? ` <${f.email}>` : ''}
                  {' · '}
                  <Timestamp value={f.created_at} />
                  {f.url ? ` · ${f.url}` : ''}
                  {f.event_id ? (
                    <>
                      {' · '}
                      <Link to={eventPath(f.event_id)}>event {f.event_id.slice(0, 8)}</Link>
                    </>
                  ) : null}
                </p>
              </li>
            ))}
          </ul>
        )
      }
    </ResourceView>
  );
}

/** A `web_url` of svc's as a path of this UI (the API gives absolute URLs). */
const webPath = (url: string): string => new URL(url, window.location.origin).pathname;

/**
 * One suspect commit, as a sentence: "Suspect commit <sha> <title> by <author>, merge request !N by @author,
 * approved by @x", then whether its author is on call now.
 */
function SuspectLine({
  projectId,
  suspect: s,
}: {
  readonly projectId: string;
  readonly suspect: SuspectCommit;
}) {
  const mr = s.merge_request;
  const author = s.author;
  return (
    <p className="suspect" data-testid="suspect-commit">
      Suspect commit{' '}
      <Link to={webPath(s.web_url)} title={s.id}>
        <code>{s.short_id}</code>
      </Link>{' '}
      <strong>{s.title}</strong> by{' '}
      {author ? <Link to={webPath(author.web_url)}>{s.author_name}</Link> : s.author_name}
      {mr ? (
        <>
          , merge request <Link to={webPath(mr.web_url)}>!{mr.iid}</Link>
          {mr.author ? (
            <>
              {' '}
              by <Link to={webPath(mr.author.web_url)}>@{mr.author.username}</Link>
            </>
          ) : null}
          {mr.approved_by.length > 0 ? (
            <>
              , approved by{' '}
              {mr.approved_by.map((u, i) => (
                <span key={u.id}>
                  {i > 0 ? ', ' : ''}
                  <Link to={webPath(u.web_url)}>@{u.username}</Link>
                </span>
              ))}
            </>
          ) : (
            ', not approved'
          )}
        </>
      ) : (
        ', not from a merge request'
      )}
      <span className="muted inline">
        {' '}
        · <code>{s.file_path}</code> line {s.line}, <Timestamp value={s.authored_date} />
      </span>
      {author && s.author_on_call.length > 0 ? (
        <span className="suspect-oncall">
          <span className="badge">On call</span> @{author.username} is on call now (
          {s.author_on_call.map((o, i) => (
            <span key={`${o.group_id ?? 'p'}:${o.iid}`}>
              {i > 0 ? ', ' : ''}
              {o.group_id === null ? (
                <Link to={paths.project(projectId, 'oncall_schedules')}>{o.name}</Link>
              ) : (
                o.name
              )}
            </span>
          ))}
          ).
        </span>
      ) : null}
    </p>
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
  // A frame resolved through an uploaded source map keeps the frame the browser reported beside it.
  const minified = frame.minified ? (
    <p className="muted small frame-minified">
      Source-mapped from <code>{frame.minified.abs_path ?? frame.minified.filename ?? '<unknown file>'}</code>
      {frame.minified.lineNo !== null
        ? ` at line ${frame.minified.lineNo}${frame.minified.colNo !== null ? `:${frame.minified.colNo}` : ''}`
        : ''}
      {frame.minified.function ? (
        <>
          {' in '}
          <code>{frame.minified.function}</code>
        </>
      ) : null}
    </p>
  ) : null;
  const variables = vars ? Object.entries(vars) : [];
  if (frame.context.length === 0 && variables.length === 0) {
    return (
      <div className="frame frame-empty">
        {summary}
        {minified}
      </div>
    );
  }
  return (
    <details className="frame" open={open}>
      <summary>{summary}</summary>
      {minified}
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

/**
 * A release's version and, when sentry-cli made it (`/api/0/`), when its events were first and last seen and whether
 * it was finalized. A release nobody made is shown by its version alone.
 */
function ReleaseInfo({
  namespacePath,
  version,
}: {
  readonly namespacePath: string;
  readonly version: string;
}) {
  const release = useResource<SentryRelease>(
    `/api/0/organizations/${encodeURIComponent(namespacePath)}/releases/${encodeURIComponent(version)}/`,
  );
  if (release.status !== 'ok') return <>{version}</>;
  const r = release.data;
  return (
    <>
      {version}
      <span className="muted inline">
        {r.firstEvent ? (
          <>
            {' · first seen '}
            <Timestamp value={r.firstEvent} />
          </>
        ) : null}
        {r.lastEvent ? (
          <>
            {' · last seen '}
            <Timestamp value={r.lastEvent} />
          </>
        ) : null}
        {r.dateReleased ? (
          <>
            {' · finalized '}
            <Timestamp value={r.dateReleased} />
          </>
        ) : (
          ' · not finalized'
        )}
      </span>
    </>
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

/** How a resolved or ignored error stays so, in words (after its status). */
function statusDetail(e: TrackedError): string {
  const d = e.status_details;
  if (e.status === 'resolved' && d.in_release) return ` in release ${d.in_release}`;
  if (e.status === 'resolved' && d.in_next_release) return ` in the next release (after ${d.after_release})`;
  if (e.status !== 'ignored') return '';
  const parts = [
    d.ignore_until ? `until ${new Date(d.ignore_until).toLocaleString()}` : null,
    d.ignore_count !== null ? `for ${d.ignore_count} more events` : null,
    d.ignore_user_count !== null ? `for ${d.ignore_user_count} more users` : null,
  ].filter((p) => p !== null);
  return parts.length > 0 ? ` ${parts.join(', or ')}` : '';
}

type IgnoreKind = 'duration' | 'count' | 'user_count';
const IGNORE_OPTIONS: readonly { readonly value: IgnoreKind; readonly label: string }[] = [
  { value: 'duration', label: 'For minutes' },
  { value: 'count', label: 'For more events' },
  { value: 'user_count', label: 'For more users' },
];

/**
 * Triage: the assignee, resolving in a release (a named one, or the next), and ignoring with a condition that
 * turns it unresolved when it lapses. Reporters see the 403 the API answers.
 */
function TriageSection({
  apiPath,
  onChanged,
}: {
  readonly apiPath: string;
  readonly onChanged: (error: TrackedError) => void;
}) {
  const action = useAction();
  const [assignee, setAssignee] = useState('');
  const [release, setRelease] = useState('');
  const [ignoreKind, setIgnoreKind] = useState<IgnoreKind>('count');
  const [ignoreValue, setIgnoreValue] = useState('');

  const put = (body: Record<string, unknown>, done: (e: TrackedError) => string) =>
    action.run(async () => {
      const next = await sendJson<TrackedError>('PUT', apiPath, body);
      onChanged(next);
      return done(next);
    });
  const assign = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    void put({ assignee: assignee.trim() }, (e) =>
      e.assignee ? `Assigned to @${e.assignee.username}.` : 'Unassigned.',
    ).then((ok) => ok && setAssignee(''));
  };
  const resolve = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const r = release.trim();
    void put(r === '' ? { resolved_in_next_release: true } : { resolved_in_release: r }, (e) =>
      e.status_details.in_release
        ? `Resolved in release ${e.status_details.in_release}.`
        : `Resolved in the next release after ${e.status_details.after_release}.`,
    );
  };
  const ignore = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const n = Number(ignoreValue);
    if (!Number.isInteger(n) || n < 1) {
      action.fail('Give a whole number of at least 1.');
      return;
    }
    void put({ [`ignore_${ignoreKind}`]: n }, (e) => `Ignored${statusDetail(e)}.`);
  };

  return (
    <section className="card section" aria-labelledby="error-triage">
      <h2 id="error-triage">Triage</h2>
      <div className="triage-forms">
        <form className="form-card" aria-label="Assign" onSubmit={assign}>
          <TextField
            label="Assignee"
            value={assignee}
            onChange={setAssignee}
            placeholder="username, or me"
            help="A member of the project; leave empty to unassign."
            error={action.fields.assignee}
          />
          <div className="actions">
            <button type="submit" className="button" disabled={action.busy}>
              {assignee.trim() === '' ? 'Unassign' : 'Assign'}
            </button>
            <button
              type="button"
              className="button"
              disabled={action.busy}
              onClick={() => void put({ assignee: 'me' }, () => 'Assigned to you.')}
            >
              Assign to me
            </button>
          </div>
        </form>
        <form className="form-card" aria-label="Resolve in release" onSubmit={resolve}>
          <TextField
            label="Resolved in release"
            value={release}
            onChange={setRelease}
            placeholder="next release"
            help="Events of older releases leave it resolved; a newer release reopens it. Empty: the next release."
            error={action.fields.resolved_in_release ?? action.fields.resolved_in_next_release}
          />
          <div className="actions">
            <button type="submit" className="button" disabled={action.busy}>
              Resolve in release
            </button>
          </div>
        </form>
        <form className="form-card" aria-label="Ignore with a condition" onSubmit={ignore}>
          <SelectField
            label="Ignore"
            value={ignoreKind}
            onChange={(v) => setIgnoreKind(v as IgnoreKind)}
            options={IGNORE_OPTIONS}
          />
          <TextField
            label="How many"
            type="number"
            min={1}
            value={ignoreValue}
            onChange={setIgnoreValue}
            help="It turns unresolved when this runs out."
            error={action.fields[`ignore_${ignoreKind}`]}
          />
          <div className="actions">
            <button type="submit" className="button" disabled={action.busy}>
              Ignore
            </button>
          </div>
        </form>
      </div>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </section>
  );
}

/** What an activity entry says happened. */
function activityText(a: ErrorActivity): string {
  const d = a.data as Record<string, unknown>;
  switch (a.type) {
    case 'set_resolved':
      return 'resolved the error';
    case 'set_resolved_in_release':
      return d.type === 'in_next_release'
        ? `resolved the error in the next release (after ${String(d.release)})`
        : `resolved the error in release ${String(d.release)}`;
    case 'set_unresolved':
      return 'reopened the error';
    case 'set_ignored': {
      const parts = [
        d.ignore_until ? `until ${new Date(String(d.ignore_until)).toLocaleString()}` : null,
        d.ignore_count != null ? `for ${String(d.ignore_count)} more events` : null,
        d.ignore_user_count != null ? `for ${String(d.ignore_user_count)} more users` : null,
      ].filter((p) => p !== null);
      return `ignored the error${parts.length > 0 ? ` ${parts.join(', or ')}` : ''}`;
    }
    case 'unignored':
      return `reopened the error: its ignore ran out (${d.reason === 'until' ? 'time' : d.reason === 'count' ? 'events' : 'users'})`;
    case 'set_regression':
      return d.release ? `regressed in ${String(d.release)}` : 'regressed';
    case 'assigned':
      return `assigned the error to @${String(d.assignee_username)}`;
    case 'unassigned':
      return 'unassigned the error';
    case 'merge':
      return `merged ${((d.merged_error_ids as number[] | undefined) ?? []).map((id) => `#${id}`).join(', ')} into this error`;
    case 'unmerge_source':
      return `unmerged some events into #${String(d.destination_id)}`;
    case 'unmerge_destination':
      return `unmerged this error from #${String(d.source_id)}`;
    default:
      return a.type;
  }
}

/** The error's activity, oldest first, and the comment box. */
function ActivitySection({ apiPath }: { readonly apiPath: string }) {
  const [commented, setCommented] = useState(0);
  const activity = useResource<ErrorActivity[]>(`${apiPath}/activities`, commented);
  return (
    <section className="card section" aria-labelledby="error-activity">
      <h2 id="error-activity">Activity</h2>
      <ResourceView resource={activity}>
        {(list) => (
          <NoteList
            label="Activity"
            notes={list.map((a) => ({
              id: a.id,
              system: a.type !== 'note',
              body: a.type === 'note' ? (a.body ?? '') : activityText(a),
              created_at: a.created_at,
              author: a.user,
            }))}
          />
        )}
      </ResourceView>
      <CommentForm path={`${apiPath}/notes`} onCommented={() => setCommented((n) => n + 1)} />
    </section>
  );
}
