import type { ReactNode } from 'react';
import { Breadcrumbs, projectLabel, ResourceView, TableScroll, Timestamp } from '../components';
import { userLabel } from '../error-labels';
import { Link, paths } from '../router';
import type { ErrorAttachment, ErrorEventDetail, Project, StackTraceEntry } from '../types';
import { useResource } from '../use-resource';
import { Frame } from './error';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObject = (v: unknown): Json => (isObject(v) ? v : {});

/** Any payload value as text: strings as they are, everything else as JSON (React escapes both). */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return JSON.stringify(v, null, 2) ?? String(v);
}

/** Contexts shown first and under a readable title; others follow under their own key. */
const CONTEXT_TITLES: Record<string, string> = {
  runtime: 'Runtime',
  os: 'Operating system',
  browser: 'Browser',
  device: 'Device',
  app: 'App',
  culture: 'Culture',
  trace: 'Trace',
};

/** One event of an error: what the SDK sent, readable (breadcrumbs, contexts, request, user, tags, frames with local variables) and raw. */
export function ErrorEventPage({
  projectId,
  errorId,
  eventId,
}: {
  readonly projectId: string;
  readonly errorId: string;
  readonly eventId: string;
}) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(projectId)}`);
  const path = `/api/v4/projects/${encodeURIComponent(projectId)}/error_tracking/errors/${encodeURIComponent(errorId)}/events/${encodeURIComponent(eventId)}`;
  const event = useResource<ErrorEventDetail>(path);
  return (
    <>
      <Breadcrumbs
        links={[
          { to: paths.projects(), label: 'Projects' },
          { to: paths.project(projectId), label: projectLabel(project, projectId) },
          { to: paths.project(projectId, 'error_tracking'), label: 'Error tracking' },
          { to: paths.error(projectId, errorId), label: `Error ${errorId}` },
        ]}
        current={`Event ${eventId.slice(0, 8)}`}
      />
      <ResourceView resource={event}>
        {(e) => <EventView projectId={projectId} event={e} apiPath={path} />}
      </ResourceView>
    </>
  );
}

/** The event's attachments, each a download link (the API answers them as downloads, Reporter and above). */
function Attachments({ path }: { readonly path: string }) {
  const attachments = useResource<ErrorAttachment[]>(path);
  return (
    <ResourceView resource={attachments}>
      {(list) =>
        list.length === 0 ? (
          <p className="muted">No attachments.</p>
        ) : (
          <ul className="attachment-list" aria-label="Attachments">
            {list.map((a) => (
              <li key={a.id}>
                <a href={`${path}/${a.id}`} download={a.filename}>
                  {a.filename}
                </a>{' '}
                <span className="muted small">
                  {formatBytes(a.size)} · {a.content_type}
                  {a.attachment_type !== 'event.attachment' ? ` · ${a.attachment_type}` : ''}
                </span>
              </li>
            ))}
          </ul>
        )
      }
    </ResourceView>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function EventView({
  projectId,
  event,
  apiPath,
}: {
  readonly projectId: string;
  readonly event: ErrorEventDetail;
  readonly apiPath: string;
}) {
  const payload = asObject(event.payload);
  const user = userLabel(event.user_key, event.user);
  const link = (id: string): string => paths.errorEvent(projectId, event.error_id, id);
  return (
    <>
      <header className="page-header alert-header">
        <div>
          <h1>{event.message || 'Event'}</h1>
          <p className="muted">
            <span className={`level level-${event.level}`}>{event.level}</span> Event{' '}
            <code>{event.event_id}</code>
            {' · '}
            <Timestamp value={event.timestamp} />
            {event.release ? ` · ${event.release}` : ''}
            {event.environment ? ` · ${event.environment}` : ''}
            {user ? ` · ${user}` : ''}
          </p>
        </div>
        <nav className="actions" aria-label="Other events">
          {event.previous_event_id ? (
            <Link className="button" to={link(event.previous_event_id)} rel="prev">
              ← Older event
            </Link>
          ) : (
            <span className="button" aria-disabled="true">
              ← Older event
            </span>
          )}
          {event.next_event_id ? (
            <Link className="button" to={link(event.next_event_id)} rel="next">
              Newer event →
            </Link>
          ) : (
            <span className="button" aria-disabled="true">
              Newer event →
            </span>
          )}
        </nav>
      </header>

      <Section id="event-exception" title="Exception">
        <Exceptions payload={payload} resolved={event.stack_trace_entries} />
      </Section>
      <Section id="event-attachments" title="Attachments">
        <Attachments path={`${apiPath}/attachments`} />
      </Section>
      <Section id="event-breadcrumbs" title="Breadcrumbs">
        <EventBreadcrumbs payload={payload} />
      </Section>
      <Section id="event-tags" title="Tags">
        <Pairs value={tagsOf(payload.tags)} empty="No tags." label="Tags" />
      </Section>
      <Section id="event-user" title="User">
        <Pairs value={payload.user} empty="No user." label="User" />
      </Section>
      <Section id="event-request" title="Request">
        <Pairs value={payload.request} empty="No request." label="Request" />
      </Section>
      <Section id="event-contexts" title="Contexts">
        <Contexts contexts={asObject(payload.contexts)} />
      </Section>
      <Section id="event-raw" title="Raw JSON">
        <details>
          <summary>Show the event as the SDK sent it</summary>
          <pre className="code-block">{JSON.stringify(event.payload, null, 2)}</pre>
        </details>
      </Section>
    </>
  );
}

function Section({
  id,
  title,
  children,
}: {
  readonly id: string;
  readonly title: string;
  readonly children: ReactNode;
}) {
  return (
    <section className="card section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** Tags as Sentry sends them: an object, or a list of `[key, value]` pairs. */
function tagsOf(v: unknown): unknown {
  if (!Array.isArray(v)) return v;
  const out: Json = {};
  for (const pair of v) if (Array.isArray(pair) && pair.length === 2) out[String(pair[0])] = pair[1];
  return out;
}

/** An object's keys and values as a definition list; nested values as JSON text. */
function Pairs({
  value,
  empty,
  label,
}: {
  readonly value: unknown;
  readonly empty: string;
  readonly label: string;
}) {
  const entries = Object.entries(asObject(value)).filter(
    ([, v]) => v !== null && v !== undefined && v !== '',
  );
  if (entries.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="details" aria-label={label}>
      {entries.map(([k, v]) => (
        <Pair key={k} name={k} value={v} />
      ))}
    </dl>
  );
}

function Pair({ name, value }: { readonly name: string; readonly value: unknown }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>
        {typeof value === 'object' ? (
          <pre className="code-inline">{text(value)}</pre>
        ) : (
          <span className="prewrap">{text(value)}</span>
        )}
      </dd>
    </>
  );
}

function Contexts({ contexts }: { readonly contexts: Json }) {
  const known = Object.keys(CONTEXT_TITLES).filter((k) => k in contexts);
  const others = Object.keys(contexts).filter((k) => !(k in CONTEXT_TITLES));
  const keys = [...known, ...others];
  if (keys.length === 0) return <p className="muted">No contexts.</p>;
  return (
    <div className="context-grid">
      {keys.map((k) => {
        const title = CONTEXT_TITLES[k] ?? k;
        return (
          <section key={k} className="context" aria-label={title}>
            <h3 className="subheading">{title}</h3>
            <Pairs value={contexts[k]} empty="Empty." label={title} />
          </section>
        );
      })}
    </div>
  );
}

/** Breadcrumbs as `{values: [...]}` or a list, oldest first (as sent). */
function EventBreadcrumbs({ payload }: { readonly payload: Json }) {
  const raw = payload.breadcrumbs;
  const list = (
    Array.isArray(raw) ? raw : Array.isArray(asObject(raw).values) ? (asObject(raw).values as unknown[]) : []
  ).filter(isObject);
  if (list.length === 0) return <p className="muted">No breadcrumbs.</p>;
  return (
    <TableScroll label="Breadcrumbs">
      <table className="table" aria-labelledby="event-breadcrumbs">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Category</th>
            <th scope="col">Level</th>
            <th scope="col">Message</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {list.map((b, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: breadcrumbs have no identity beyond their position.
            <tr key={i}>
              <td>{crumbTime(b.timestamp)}</td>
              <td>{text(b.category ?? b.type ?? '')}</td>
              <td>{text(b.level ?? '')}</td>
              <td className="prewrap">{text(b.message ?? '')}</td>
              <td>{b.data === undefined ? '' : <code className="prewrap">{text(b.data)}</code>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function crumbTime(v: unknown): ReactNode {
  const ms =
    typeof v === 'number'
      ? v * 1000
      : typeof v === 'string'
        ? /^\d+(\.\d+)?$/.test(v)
          ? Number(v) * 1000
          : Date.parse(v)
        : Number.NaN;
  if (Number.isNaN(ms)) return <span className="muted">—</span>;
  return <Timestamp value={new Date(ms).toISOString()} />;
}

/** Every exception of the event (chained ones too), innermost frame first, with local variables. */
function Exceptions({
  payload,
  resolved,
}: {
  readonly payload: Json;
  /** The main exception's frames as the stack trace shows them (source-mapped where maps were uploaded). */
  readonly resolved: readonly StackTraceEntry[];
}) {
  const ex = payload.exception;
  const values = (
    Array.isArray(ex) ? ex : Array.isArray(asObject(ex).values) ? (asObject(ex).values as unknown[]) : []
  ).filter(isObject);
  if (values.length === 0) return <p className="muted">This event has no exception.</p>;
  const framesOf = (v: Json) =>
    (Array.isArray(asObject(v.stacktrace).frames) ? (asObject(v.stacktrace).frames as unknown[]) : []).filter(
      isObject,
    );
  // The server resolves the main exception: the last one with frames (the raised one).
  const main = values.findLastIndex((v) => framesOf(v).length > 0);
  return (
    <>
      {[...values].reverse().map((v, i) => {
        const raw = framesOf(v);
        const own = values.length - 1 - i === main && resolved.length === raw.length ? resolved : null;
        const entries = raw.map((f, k) => own?.[k] ?? toEntry(f));
        const frames = raw.map((f, k) => ({ f, entry: entries[k]! })).reverse();
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: exceptions have no identity beyond their position.
          <div key={i} className="exception">
            <p>
              <strong>{text(v.type ?? 'Error')}</strong>
              {v.value !== undefined ? `: ${text(v.value)}` : ''}
            </p>
            {frames.length === 0 ? (
              <p className="muted small">No stack trace.</p>
            ) : (
              <ol className="frames" aria-label={`Frames of ${text(v.type ?? 'Error')}`}>
                {frames.map(({ f, entry }, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: frames have no identity beyond their position.
                  <li key={j}>
                    <Frame frame={entry} open={j === 0} vars={isObject(f.vars) ? f.vars : null} />
                  </li>
                ))}
              </ol>
            )}
          </div>
        );
      })}
    </>
  );
}

/** A raw Sentry frame in the shape of the stack trace API's entries. */
function toEntry(f: Json): StackTraceEntry {
  const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
  const lineNo = num(f.lineno);
  const context: [number, string][] = [];
  if (lineNo !== null && typeof f.context_line === 'string') {
    const pre = Array.isArray(f.pre_context) ? f.pre_context.map(String) : [];
    const post = Array.isArray(f.post_context) ? f.post_context.map(String) : [];
    for (const [i, line] of pre.entries()) context.push([lineNo - pre.length + i, line]);
    context.push([lineNo, f.context_line]);
    for (const [i, line] of post.entries()) context.push([lineNo + 1 + i, line]);
  }
  return {
    filename: str(f.filename),
    abs_path: str(f.abs_path),
    function: str(f.function),
    lineNo,
    colNo: num(f.colno),
    context,
    minified: null,
  };
}
