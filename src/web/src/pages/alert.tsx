import { type ReactNode, useId, useState } from 'react';
import { SeverityBadge, STATUS_LABELS, StatusBadge } from '../alert-labels';
import { getJson, sendJson } from '../api';
import {
  Breadcrumbs,
  ErrorNotice,
  projectLabel,
  ResourceView,
  SuccessNotice,
  Timestamp,
} from '../components';
import { OccurrenceChart } from '../lazy';
import { CommentForm, NoteList } from '../notes';
import { Link, paths } from '../router';
import type { Alert, AlertNote, AlertStatus, Member, Project, Silence } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';
import { GrafanaSection } from './alert-grafana';
import { AlertEscalations } from './escalation-policy';
import { matchersFromAlert, SilenceForm } from './silences-settings';

/** Annotations that already show as the alert's own fields; the others are listed separately. */
const KNOWN_ANNOTATIONS = new Set(['title', 'summary', 'description', 'runbook', 'runbook_url']);

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
  const [commented, setCommented] = useState(0);
  const [silencing, setSilencing] = useState(false);
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

      {(alert.silenced_by ?? []).length > 0 && (
        <SilencedBy projectId={projectId} by={alert.silenced_by ?? []} />
      )}

      <div className="alert-sidebar card section">
        <AssigneeControl projectId={projectId} alert={alert} apiPath={apiPath} onChanged={onChanged} />
        <IncidentControl projectId={projectId} alert={alert} apiPath={apiPath} onChanged={onChanged} />
        <div className="sidebar-item">
          <button type="button" className="button" onClick={() => setSilencing((on) => !on)}>
            Silence alerts like this
          </button>
        </div>
      </div>

      {silencing && (
        <section className="card section" aria-labelledby="alert-silence">
          <h2 id="alert-silence">Silence alerts like this</h2>
          <p className="muted">
            Pre-filled with this alert's labels and fields: remove the matchers that should not have to match.
          </p>
          <SilenceForm
            project={{ id: projectId }}
            initial={matchersFromAlert(alert)}
            onCreated={() => {
              void getJson<Alert>(apiPath).then(onChanged, () => undefined);
            }}
          />
        </section>
      )}

      <section className="card section" aria-labelledby="alert-occurrences">
        <h2 id="alert-occurrences">Occurrences over time</h2>
        <OccurrenceChart path={`${apiPath}/stats`} noun="occurrence" key={alert.event_count} />
      </section>

      <section className="card section" aria-labelledby="alert-details">
        <h2 id="alert-details">Alert details</h2>
        <dl className="details">
          <Row label="Title">{alert.title}</Row>
          <Row label="Severity">
            <SeverityBadge severity={alert.severity} />
          </Row>
          <Row label="Status">{STATUS_LABELS[alert.status as AlertStatus] ?? alert.status}</Row>
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

      <GrafanaSection payload={alert.payload} />

      <AlertEscalations apiPath={apiPath} refreshKey={notesKey} />

      <section className="card section" aria-labelledby="alert-activity">
        <h2 id="alert-activity">Activity</h2>
        <Notes path={`${apiPath}/notes`} refreshKey={notesKey + commented} />
        <CommentForm path={`${apiPath}/notes`} onCommented={() => setCommented((n) => n + 1)} />
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
  const action = useAction();

  const change = async (status: AlertStatus): Promise<void> => {
    await action.run(async () => {
      const next = await sendJson<Alert>('PUT', apiPath, { status });
      onChanged(next);
      return `Status changed to ${STATUS_LABELS[next.status as AlertStatus] ?? next.status}.`;
    });
  };

  // Every status but the current one, as GitLab's alert actions; "Acknowledge" first, as the usual next step.
  const order: AlertStatus[] = ['acknowledged', 'resolved', 'ignored', 'triggered'];
  return (
    <div className="status-control">
      <div className="actions">
        {order
          .filter((s) => s !== alert.status)
          .map((s) => (
            <button
              key={s}
              type="button"
              className={s === 'acknowledged' || s === 'resolved' ? 'button button-primary' : 'button'}
              disabled={action.busy}
              onClick={() => void change(s)}
            >
              {STATUS_ACTIONS[s]}
            </button>
          ))}
      </div>
      {action.error !== null && <ErrorNotice message={`Could not change the status: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

const STATUS_ACTIONS: Record<AlertStatus, string> = {
  acknowledged: 'Acknowledge',
  resolved: 'Resolve',
  ignored: 'Ignore',
  triggered: 'Reopen',
};

/** The assignee: a project member who can read alerts (Reporter and up), or nobody. */
function AssigneeControl({
  projectId,
  alert,
  apiPath,
  onChanged,
}: {
  readonly projectId: string;
  readonly alert: Alert;
  readonly apiPath: string;
  readonly onChanged: (alert: Alert) => void;
}) {
  const id = useId();
  const action = useAction();
  const members = useResource<Member[]>(
    `/api/v4/projects/${encodeURIComponent(projectId)}/members/all?per_page=100`,
  );
  const current = alert.assignees[0]?.username ?? '';
  const options =
    members.status === 'ok'
      ? members.data.filter((m) => m.access_level >= 20)
      : alert.assignees.map((u) => ({ ...u }));
  const assign = async (username: string): Promise<void> => {
    await action.run(async () => {
      const next = await sendJson<Alert>('PUT', apiPath, {
        assignee_usernames: username === '' ? [] : [username],
      });
      onChanged(next);
      return next.assignees.length > 0 ? `Assigned to ${next.assignees[0]!.name}.` : 'Unassigned.';
    });
  };
  return (
    <div className="sidebar-item">
      <div className="field field-inline">
        <label htmlFor={id}>Assignee</label>
        <select id={id} value={current} disabled={action.busy} onChange={(e) => void assign(e.target.value)}>
          <option value="">Unassigned</option>
          {options.map((m) => (
            <option key={m.username} value={m.username}>
              {m.name} (@{m.username})
            </option>
          ))}
          {current !== '' && !options.some((m) => m.username === current) && (
            <option value={current}>@{current}</option>
          )}
        </select>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not change the assignee: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

/** A link to the alert's incident, or a button that opens one (GitLab's "Create incident"). */
function IncidentControl({
  projectId,
  alert,
  apiPath,
  onChanged,
}: {
  readonly projectId: string;
  readonly alert: Alert;
  readonly apiPath: string;
  readonly onChanged: (alert: Alert) => void;
}) {
  const action = useAction();
  if (alert.incident !== null) {
    return (
      <div className="sidebar-item">
        <span className="sidebar-label">Incident</span>{' '}
        <Link to={paths.incident(projectId, alert.incident)}>Incident #{alert.incident}</Link>
      </div>
    );
  }
  const create = async (): Promise<void> => {
    await action.run(async () => {
      const next = await sendJson<Alert>('POST', `${apiPath}/create_issue`);
      onChanged(next);
      return `Incident #${next.incident} created.`;
    });
  };
  return (
    <div className="sidebar-item">
      <span className="sidebar-label">Incident</span>{' '}
      <button type="button" className="button" disabled={action.busy} onClick={() => void create()}>
        {action.busy ? 'Creating…' : 'Create incident'}
      </button>
      {action.error !== null && <ErrorNotice message={`Could not create the incident: ${action.error}`} />}
    </div>
  );
}

function Notes({ path, refreshKey }: { readonly path: string; readonly refreshKey: number }) {
  const notes = useResource<AlertNote[]>(path, refreshKey);
  return <ResourceView resource={notes}>{(list) => <NoteList notes={list} />}</ResourceView>;
}

/** "Silenced by": the active silences that match the alert now, each with its comment and end. */
function SilencedBy({
  projectId,
  by,
}: {
  readonly projectId: string;
  readonly by: NonNullable<Alert['silenced_by']>;
}) {
  return (
    <output className="notice">
      <strong>Silenced by</strong>{' '}
      <ul className="inline-list" aria-label="Silenced by">
        {by.map((entry) =>
          typeof entry === 'number' ? (
            <li key={`silence-${entry}`}>
              <SilenceRef projectId={projectId} id={entry} />
            </li>
          ) : (
            <li key={`window-${entry.id}`}>
              maintenance window #{entry.id}
              {entry.integration_id === null ? ' (whole project' : ' (this integration'}, until{' '}
              <Timestamp value={entry.ends_at} />)
            </li>
          ),
        )}
      </ul>{' '}
      <span className="muted small">
        It pages, e-mails and calls webhooks for no one while silenced.{' '}
        <Link to={paths.project(projectId, 'settings')}>Manage silences and maintenance windows</Link>
      </span>
    </output>
  );
}

function SilenceRef({ projectId, id }: { readonly projectId: string; readonly id: number }) {
  const silence = useResource<Silence>(
    `/api/v4/projects/${encodeURIComponent(projectId)}/alert_management/silences/${id}`,
  );
  return (
    <span>
      silence #{id}
      {silence.status === 'ok' && (
        <>
          {' '}
          ({silence.data.comment}, until <Timestamp value={silence.data.ends_at} />)
        </>
      )}
    </span>
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
