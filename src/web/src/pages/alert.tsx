import { type ReactNode, useId, useState } from 'react';
import { ALERT_STATUSES, SeverityBadge, STATUS_LABELS, StatusBadge } from '../alert-labels';
import { sendJson } from '../api';
import {
  Breadcrumbs,
  ErrorNotice,
  InlineMarkdown,
  projectLabel,
  ResourceView,
  SuccessNotice,
  Timestamp,
} from '../components';
import { Link, paths } from '../router';
import type { Alert, AlertNote, AlertStatus, Project } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** Annotations that already show as the alert's own fields; the others are listed separately. */
const KNOWN_ANNOTATIONS = new Set(['title', 'summary', 'description', 'runbook']);

/** One alert: every field, Alertmanager's extra annotations, the raw payload, notes, and a status control. */
export function AlertPage({ projectId, iid }: { readonly projectId: string; readonly iid: string }) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(projectId)}`);
  const base = `/api/v4/projects/${encodeURIComponent(projectId)}/alert_management/alerts/${encodeURIComponent(iid)}`;
  const alert = useResource<Alert>(base);
  const [updated, setUpdated] = useState<Alert | null>(null);
  const [notesKey, setNotesKey] = useState(0);

  return (
    <>
      <Breadcrumbs
        links={[
          { to: paths.projects(), label: 'Projects' },
          { to: paths.project(projectId), label: projectLabel(project, projectId) },
          { to: paths.project(projectId, 'alerts'), label: 'Alerts' },
        ]}
        current={`Alert #${iid}`}
      />
      <ResourceView resource={alert}>
        {(loaded) => (
          <AlertView
            projectId={projectId}
            alert={updated ?? loaded}
            apiPath={base}
            notesKey={notesKey}
            onChanged={(next) => {
              setUpdated(next);
              setNotesKey((k) => k + 1);
            }}
          />
        )}
      </ResourceView>
    </>
  );
}

function AlertView({
  projectId,
  alert,
  apiPath,
  notesKey,
  onChanged,
}: {
  readonly projectId: string;
  readonly alert: Alert;
  readonly apiPath: string;
  readonly notesKey: number;
  readonly onChanged: (alert: Alert) => void;
}) {
  const annotations = extraAnnotations(alert.payload);
  return (
    <>
      <header className="page-header alert-header">
        <div>
          <h1>{alert.title}</h1>
          <p className="muted">
            <SeverityBadge severity={alert.severity} /> <StatusBadge status={alert.status} /> Alert #
            {alert.iid}
            {' · '}started <Timestamp value={alert.started_at} />
            {alert.monitoring_tool ? ` · ${alert.monitoring_tool}` : ''}
          </p>
        </div>
        <StatusControl alert={alert} apiPath={apiPath} onChanged={onChanged} />
      </header>

      <section className="card section" aria-labelledby="alert-details">
        <h2 id="alert-details">Alert details</h2>
        <dl className="details">
          <Row label="Title">{alert.title}</Row>
          <Row label="Severity">
            <SeverityBadge severity={alert.severity} />
          </Row>
          <Row label="Status">{STATUS_LABELS[alert.status] ?? alert.status}</Row>
          <Row label="Start time">
            <Timestamp value={alert.started_at} />
          </Row>
          <Row label="End time">
            {alert.ended_at ? <Timestamp value={alert.ended_at} /> : <None text="still open" />}
          </Row>
          <Row label="Events">{alert.event_count}</Row>
          <Row label="Description">
            {alert.description ? <span className="prewrap">{alert.description}</span> : <None />}
          </Row>
          <Row label="Fingerprint">{alert.fingerprint ? <code>{alert.fingerprint}</code> : <None />}</Row>
          <Row label="Hosts">
            {alert.hosts.length > 0 ? (
              <ul className="inline-list">
                {alert.hosts.map((h) => (
                  <li key={h}>
                    <code>{h}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <None />
            )}
          </Row>
          <Row label="Service">{alert.service ?? <None />}</Row>
          <Row label="Monitoring tool">{alert.monitoring_tool ?? <None />}</Row>
          <Row label="Environment">{alert.environment ?? <None />}</Row>
          <Row label="Runbook">{alert.runbook ? <MaybeLink value={alert.runbook} /> : <None />}</Row>
          <Row label="Incident">
            {alert.incident !== null ? (
              <Link to={paths.incident(projectId, alert.incident)}>Incident #{alert.incident}</Link>
            ) : (
              <None text="none created" />
            )}
          </Row>
          <Row label="Created">
            <Timestamp value={alert.created_at} />
          </Row>
          <Row label="Updated">
            <Timestamp value={alert.updated_at} />
          </Row>
        </dl>
      </section>

      {annotations.length > 0 && (
        <section className="card section" aria-labelledby="alert-annotations">
          <h2 id="alert-annotations">Annotations</h2>
          <dl className="details" aria-labelledby="alert-annotations">
            {annotations.map(([key, value]) => (
              <Row key={key} label={key}>
                <MaybeLink value={value} />
              </Row>
            ))}
          </dl>
        </section>
      )}

      <section className="card section" aria-labelledby="alert-activity">
        <h2 id="alert-activity">Activity</h2>
        <Notes path={`${apiPath}/notes`} refreshKey={notesKey} />
      </section>

      <section className="card section" aria-labelledby="alert-payload">
        <h2 id="alert-payload">Alert payload</h2>
        <pre className="code-block">{JSON.stringify(alert.payload, null, 2)}</pre>
      </section>
    </>
  );
}

function StatusControl({
  alert,
  apiPath,
  onChanged,
}: {
  readonly alert: Alert;
  readonly apiPath: string;
  readonly onChanged: (alert: Alert) => void;
}) {
  const id = useId();
  const action = useAction();

  const change = async (status: AlertStatus): Promise<void> => {
    await action.run(async () => {
      const next = await sendJson<Alert>('PUT', apiPath, { status });
      onChanged(next);
      return `Status changed to ${STATUS_LABELS[next.status] ?? next.status}.`;
    });
  };

  return (
    <div className="status-control">
      <div className="field field-inline">
        <label htmlFor={id}>Status</label>
        <select
          id={id}
          value={alert.status}
          disabled={action.busy}
          onChange={(event) => void change(event.target.value as AlertStatus)}
        >
          {ALERT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not change the status: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

function Notes({ path, refreshKey }: { readonly path: string; readonly refreshKey: number }) {
  const notes = useResource<AlertNote[]>(path, refreshKey);
  return (
    <ResourceView resource={notes}>
      {(list) =>
        list.length === 0 ? (
          <p className="muted">No activity yet.</p>
        ) : (
          <ol className="timeline" aria-label="Notes">
            {list.map((note) => (
              <li key={note.id} className={note.system ? 'timeline-item system-note' : 'timeline-item'}>
                <span className="note-author" title={`@${note.author.username}`}>
                  {note.author.name}
                </span>{' '}
                <span className="note-body">
                  <InlineMarkdown text={note.body} />
                </span>
                <span className="muted small">
                  <Timestamp value={note.created_at} />
                </span>
              </li>
            ))}
          </ol>
        )
      }
    </ResourceView>
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

/** A value from the payload: a link only when it is an http(s) URL, otherwise text (never a `javascript:` link). */
function MaybeLink({ value }: { readonly value: string }) {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
    return (
      <a href={url.href} target="_blank" rel="noopener noreferrer">
        {value}
      </a>
    );
  }
  return <span className="prewrap">{value}</span>;
}

/** Alertmanager annotations beyond the ones mapped to fields, as display strings. */
function extraAnnotations(payload: unknown): [string, string][] {
  if (payload === null || typeof payload !== 'object') return [];
  const annotations = (payload as { annotations?: unknown }).annotations;
  if (annotations === null || typeof annotations !== 'object' || Array.isArray(annotations)) return [];
  return Object.entries(annotations as Record<string, unknown>)
    .filter(([key]) => !KNOWN_ANNOTATIONS.has(key))
    .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
}
