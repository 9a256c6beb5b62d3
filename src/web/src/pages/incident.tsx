import { type FormEvent, useId, useState } from 'react';
import { SeverityBadge, STATUS_LABELS, StatusBadge } from '../alert-labels';
import { sendJson } from '../api';
import {
  Breadcrumbs,
  ConfirmDialog,
  ErrorNotice,
  InlineMarkdown,
  projectLabel,
  ResourceView,
  SuccessNotice,
  Timestamp,
} from '../components';
import { TextField } from '../form-fields';
import { Markdown } from '../lazy';
import { Link, paths } from '../router';
import type {
  Alert,
  EscalationPolicy,
  EscalationStatus,
  IncidentSeverity,
  Issue,
  IssueNote,
  Project,
  TimelineEvent,
  TimelineEventTag,
} from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';
import { INCIDENT_SEVERITIES, useAssignableMembers } from './incidents';

const ESCALATION_STATUSES: readonly EscalationStatus[] = ['triggered', 'acknowledged', 'resolved'];

/** GitLab's predefined timeline tags, offered before the project has used (and so created) any. */
const PREDEFINED_TAGS = [
  'Start time',
  'End time',
  'Impact detected',
  'Response initiated',
  'Impact mitigated',
  'Cause identified',
];

/** A timeline note's limit (GitLab's). */
const TIMELINE_NOTE_MAX = 280;

/**
 * An incident people work in: its status (close, reopen), severity, escalation status, assignees, title and
 * description, the alerts it links, paging by hand, comments, and the timeline.
 */
export function IncidentPage({ projectId, iid }: { readonly projectId: string; readonly iid: string }) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(projectId)}`);
  const apiPath = `/api/v4/projects/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(iid)}`;
  // Every change reloads the incident, its notes and its timeline: the server writes system notes and timeline
  // events for it.
  const [version, setVersion] = useState(0);
  const issue = useResource<Issue>(apiPath, version);
  const changed = () => setVersion((v) => v + 1);
  return (
    <>
      <Breadcrumbs
        links={[
          { to: paths.projects(), label: 'Projects' },
          { to: paths.project(projectId), label: projectLabel(project, projectId) },
          { to: paths.project(projectId, 'incidents'), label: 'Incidents' },
        ]}
        current={`Incident #${iid}`}
      />
      <ResourceView resource={issue}>
        {(incident) => (
          <IncidentView
            projectId={projectId}
            incident={incident}
            apiPath={apiPath}
            version={version}
            onChanged={changed}
          />
        )}
      </ResourceView>
    </>
  );
}

interface ViewProps {
  readonly projectId: string;
  readonly incident: Issue;
  readonly apiPath: string;
  readonly version: number;
  readonly onChanged: () => void;
}

function IncidentView({ projectId, incident, apiPath, version, onChanged }: ViewProps) {
  const [editing, setEditing] = useState(false);
  const isIncident = incident.issue_type === 'incident';
  return (
    <>
      <header className="page-header alert-header">
        <div>
          <h1>{incident.title}</h1>
          <p className="muted">
            <span className={`status status-${incident.state === 'opened' ? 'triggered' : 'resolved'}`}>
              {incident.state === 'opened' ? 'Open' : 'Closed'}
            </span>{' '}
            {isIncident && <SeverityBadge severity={incident.severity.toLowerCase()} />}{' '}
            {incident.escalation_status !== null && <StatusBadge status={incident.escalation_status} />}{' '}
            {isIncident ? 'Incident' : 'Issue'} #{incident.iid} · opened{' '}
            <Timestamp value={incident.created_at} />
            {incident.author ? ` by @${incident.author.username}` : ' by the alert bot'}
            {incident.closed_at ? (
              <>
                {' · closed '}
                <Timestamp value={incident.closed_at} />
              </>
            ) : null}
          </p>
        </div>
        <StateControl
          incident={incident}
          apiPath={apiPath}
          onChanged={onChanged}
          onEdit={() => setEditing(true)}
        />
      </header>

      {editing && (
        <EditForm
          incident={incident}
          apiPath={apiPath}
          onDone={() => setEditing(false)}
          onChanged={onChanged}
        />
      )}

      {isIncident && (
        <div className="alert-sidebar card section">
          <SeverityControl incident={incident} apiPath={apiPath} onChanged={onChanged} />
          <EscalationStatusControl incident={incident} apiPath={apiPath} onChanged={onChanged} />
          <PageControl projectId={projectId} incident={incident} apiPath={apiPath} onChanged={onChanged} />
        </div>
      )}

      <AssigneesControl projectId={projectId} incident={incident} apiPath={apiPath} onChanged={onChanged} />

      <section className="card section" aria-labelledby="incident-description">
        <h2 id="incident-description">Description</h2>
        {incident.description ? (
          <Markdown
            text={incident.description}
            env={{ alertPath: (alertIid) => paths.alert(projectId, alertIid) }}
          />
        ) : (
          <p className="muted">No description.</p>
        )}
      </section>

      {isIncident && <LinkedAlerts projectId={projectId} iid={incident.iid} version={version} />}
      {isIncident && (
        <Timeline projectId={projectId} apiPath={apiPath} version={version} onChanged={onChanged} />
      )}
      <Comments apiPath={apiPath} version={version} isIncident={isIncident} onChanged={onChanged} />
    </>
  );
}

/** Close or reopen (GitLab's `state_event`), and the button that opens the title and description form. */
function StateControl({
  incident,
  apiPath,
  onChanged,
  onEdit,
}: {
  readonly incident: Issue;
  readonly apiPath: string;
  readonly onChanged: () => void;
  readonly onEdit: () => void;
}) {
  const action = useAction();
  const open = incident.state === 'opened';
  const toggle = async (): Promise<void> => {
    await action.run(async () => {
      await sendJson<Issue>('PUT', apiPath, { state_event: open ? 'close' : 'reopen' });
      onChanged();
      return open ? 'Incident closed.' : 'Incident reopened.';
    });
  };
  return (
    <div className="status-control">
      <div className="actions">
        <button type="button" className="button" onClick={onEdit}>
          Edit
        </button>
        <button
          type="button"
          className={open ? 'button button-primary' : 'button'}
          disabled={action.busy}
          onClick={() => void toggle()}
        >
          {open ? 'Close incident' : 'Reopen incident'}
        </button>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not change the state: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

function EditForm({
  incident,
  apiPath,
  onDone,
  onChanged,
}: {
  readonly incident: Issue;
  readonly apiPath: string;
  readonly onDone: () => void;
  readonly onChanged: () => void;
}) {
  const [title, setTitle] = useState(incident.title);
  const [description, setDescription] = useState(incident.description);
  const action = useAction();
  const descriptionId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const ok = await action.run(() => sendJson<Issue>('PUT', apiPath, { title, description }));
    if (ok) {
      onChanged();
      onDone();
    }
  };
  return (
    <form className="card section" aria-label="Edit incident" onSubmit={(e) => void submit(e)}>
      {action.error !== null && <ErrorNotice message={`Could not save: ${action.error}`} />}
      <TextField label="Title" value={title} onChange={setTitle} required />
      <div className="field">
        <label htmlFor={descriptionId}>Description</label>
        <textarea
          id={descriptionId}
          rows={6}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button" onClick={onDone} disabled={action.busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function SeverityControl({ incident, apiPath, onChanged }: Omit<ViewProps, 'projectId' | 'version'>) {
  const id = useId();
  const action = useAction();
  const change = async (severity: string): Promise<void> => {
    await action.run(async () => {
      const next = await sendJson<Issue>('PUT', apiPath, { severity });
      onChanged();
      return `Severity changed to ${INCIDENT_SEVERITIES.find((s) => s.value === next.severity)?.label ?? next.severity}.`;
    });
  };
  return (
    <div className="sidebar-item">
      <div className="field field-inline">
        <label htmlFor={id}>Severity</label>
        <select
          id={id}
          value={incident.severity}
          disabled={action.busy}
          onChange={(e) => void change(e.target.value as IncidentSeverity)}
        >
          {INCIDENT_SEVERITIES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not change the severity: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

function EscalationStatusControl({ incident, apiPath, onChanged }: Omit<ViewProps, 'projectId' | 'version'>) {
  const id = useId();
  const action = useAction();
  const change = async (status: EscalationStatus): Promise<void> => {
    await action.run(async () => {
      await sendJson<Issue>('PUT', apiPath, { escalation_status: status });
      onChanged();
      return `Escalation status changed to ${STATUS_LABELS[status]}.`;
    });
  };
  return (
    <div className="sidebar-item">
      <div className="field field-inline">
        <label htmlFor={id}>Escalation status</label>
        <select
          id={id}
          value={incident.escalation_status ?? 'triggered'}
          disabled={action.busy}
          onChange={(e) => void change(e.target.value as EscalationStatus)}
        >
          {ESCALATION_STATUSES.map((s) => (
            <option key={s} value={s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      {action.error !== null && (
        <ErrorNotice message={`Could not change the escalation status: ${action.error}`} />
      )}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

/**
 * "Page": starts an escalation policy on the incident (`POST .../issues/:iid/page`), the project's own unless
 * another is picked. Without a policy the server answers 400, shown as a sentence.
 */
function PageControl({ projectId, incident, apiPath, onChanged }: Omit<ViewProps, 'version'>) {
  const id = useId();
  const action = useAction();
  const policies = useResource<EscalationPolicy[]>(
    `/api/v4/projects/${encodeURIComponent(projectId)}/incident_management/escalation_policies`,
  );
  const list = policies.status === 'ok' ? policies.data : [];
  const [policyId, setPolicyId] = useState('');
  const page = async (): Promise<void> => {
    await action.run(async () => {
      await sendJson<Issue>(
        'POST',
        `${apiPath}/page`,
        policyId === '' ? {} : { escalation_policy_id: Number(policyId) },
      );
      onChanged();
      const chosen = list.find((p) => String(p.id) === policyId) ?? (list.length === 1 ? list[0] : undefined);
      return chosen ? `Paging with ${chosen.name}.` : 'Paging started.';
    });
  };
  return (
    <div className="sidebar-item">
      <div className="actions">
        {list.length > 1 && (
          <div className="field field-inline">
            <label htmlFor={id}>Escalation policy</label>
            <select id={id} value={policyId} onChange={(e) => setPolicyId(e.target.value)}>
              <option value="">The project's default</option>
              {list.map((p) => (
                <option key={p.id} value={String(p.id)}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <button
          type="button"
          className="button"
          disabled={action.busy || incident.state === 'closed'}
          onClick={() => void page()}
        >
          {action.busy ? 'Paging…' : 'Page'}
        </button>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not page anyone: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </div>
  );
}

/** The assignees, changed by ticking project members (Reporter and up) and saving (`assignee_ids`). */
function AssigneesControl({ projectId, incident, apiPath, onChanged }: Omit<ViewProps, 'version'>) {
  const members = useAssignableMembers(projectId);
  const [draft, setDraft] = useState<readonly number[] | null>(null);
  const action = useAction();
  const headingId = useId();
  const chosen = draft ?? incident.assignees.map((a) => a.id);
  const save = async (): Promise<void> => {
    const ok = await action.run(async () => {
      const next = await sendJson<Issue>('PUT', apiPath, { assignee_ids: chosen });
      onChanged();
      return next.assignees.length === 0
        ? 'Unassigned.'
        : `Assigned to ${next.assignees.map((a) => `@${a.username}`).join(', ')}.`;
    });
    if (ok) setDraft(null);
  };
  const toggle = (id: number, on: boolean) => setDraft(on ? [...chosen, id] : chosen.filter((x) => x !== id));
  const candidates = [...members, ...incident.assignees.filter((a) => !members.some((m) => m.id === a.id))];
  return (
    <section className="card section" aria-labelledby={headingId}>
      <h2 id={headingId}>Assignees</h2>
      <p>
        {incident.assignees.length === 0 ? (
          <span className="muted">Nobody is assigned.</span>
        ) : (
          incident.assignees.map((a) => `${a.name} (@${a.username})`).join(', ')
        )}
      </p>
      <details>
        <summary>Change assignees</summary>
        <fieldset className="fieldset">
          <legend className="visually-hidden">Assignees</legend>
          {candidates.map((m) => (
            <label key={m.id} className="checkbox">
              <input
                type="checkbox"
                checked={chosen.includes(m.id)}
                onChange={(e) => toggle(m.id, e.target.checked)}
              />
              {m.name} (@{m.username})
            </label>
          ))}
          <div className="actions">
            <button
              type="button"
              className="button button-primary"
              disabled={action.busy || draft === null}
              onClick={() => void save()}
            >
              {action.busy ? 'Saving…' : 'Save assignees'}
            </button>
          </div>
        </fieldset>
      </details>
      {action.error !== null && <ErrorNotice message={`Could not change the assignees: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
    </section>
  );
}

function LinkedAlerts({
  projectId,
  iid,
  version,
}: {
  readonly projectId: string;
  readonly iid: number;
  readonly version: number;
}) {
  const headingId = useId();
  const alerts = useResource<Alert[]>(
    `/api/v4/projects/${encodeURIComponent(projectId)}/alert_management/alerts?incident_iid=${iid}&per_page=100`,
    version,
  );
  return (
    <section className="card section" aria-labelledby={headingId}>
      <h2 id={headingId}>Linked alerts</h2>
      <ResourceView resource={alerts}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No alerts are linked to this incident.</p>
          ) : (
            <ul className="plain-list" aria-labelledby={headingId}>
              {list.map((a) => (
                <li key={a.iid}>
                  <SeverityBadge severity={a.severity} /> <StatusBadge status={a.status} />{' '}
                  <Link to={paths.alert(projectId, a.iid)}>{a.title}</Link>{' '}
                  <span className="muted small">
                    #{a.iid} · started <Timestamp value={a.started_at} />
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </ResourceView>
    </section>
  );
}

/** An instant as the reader's local date and time, for the timeline (its order is what matters). */
function AbsoluteTime({ value }: { readonly value: string }) {
  const date = new Date(value);
  return (
    <time dateTime={value} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

function Timeline({
  projectId,
  apiPath,
  version,
  onChanged,
}: {
  readonly projectId: string;
  readonly apiPath: string;
  readonly version: number;
  readonly onChanged: () => void;
}) {
  const headingId = useId();
  const events = useResource<TimelineEvent[]>(`${apiPath}/timeline_events`, version);
  const remove = useAction();
  const [confirm, setConfirm] = useState<TimelineEvent | null>(null);
  const doRemove = async (): Promise<void> => {
    if (!confirm) return;
    const ok = await remove.run(() => sendJson('DELETE', `${apiPath}/timeline_events/${confirm.id}`));
    setConfirm(null);
    if (ok) onChanged();
  };
  return (
    <section className="card section" aria-labelledby={headingId}>
      <h2 id={headingId}>Timeline</h2>
      {remove.error !== null && <ErrorNotice message={`Could not delete the event: ${remove.error}`} />}
      <ResourceView resource={events}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No timeline events yet.</p>
          ) : (
            <ol className="timeline" aria-label="Timeline events">
              {list.map((e) => (
                <li key={e.id} className={e.editable ? 'timeline-item' : 'timeline-item system-note'}>
                  <span className="muted small">
                    <AbsoluteTime value={e.occurred_at} />
                  </span>{' '}
                  {e.timeline_event_tags.map((t) => (
                    <span key={t.id} className="badge">
                      {t.name}
                    </span>
                  ))}
                  <Markdown
                    text={e.note}
                    className="note-body markdown note-comment"
                    env={{ alertPath: (alertIid) => paths.alert(projectId, alertIid) }}
                  />
                  {e.editable && (
                    <button
                      type="button"
                      className="button button-small button-danger-outline"
                      disabled={remove.busy}
                      onClick={() => setConfirm(e)}
                    >
                      Delete event
                    </button>
                  )}
                </li>
              ))}
            </ol>
          )
        }
      </ResourceView>
      <AddTimelineEventForm projectId={projectId} apiPath={apiPath} onAdded={onChanged} />
      <ConfirmDialog
        open={confirm !== null}
        title="Delete this timeline event?"
        confirmLabel="Delete"
        danger
        busy={remove.busy}
        onConfirm={() => void doRemove()}
        onCancel={() => setConfirm(null)}
      >
        <p>{confirm?.note}</p>
      </ConfirmDialog>
    </section>
  );
}

/** `YYYY-MM-DDTHH:MM` of now in the reader's zone, as a `datetime-local` input takes it. */
function localNow(): string {
  const d = new Date();
  d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
  return d.toISOString().slice(0, 16);
}

function AddTimelineEventForm({
  projectId,
  apiPath,
  onAdded,
}: {
  readonly projectId: string;
  readonly apiPath: string;
  readonly onAdded: () => void;
}) {
  const tags = useResource<TimelineEventTag[]>(
    `/api/v4/projects/${encodeURIComponent(projectId)}/incident_management/timeline_event_tags`,
  );
  const names = [
    ...new Set([...PREDEFINED_TAGS, ...(tags.status === 'ok' ? tags.data.map((t) => t.name) : [])]),
  ];
  const [note, setNote] = useState('');
  const [occurredAt, setOccurredAt] = useState(localNow);
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const action = useAction();
  const noteId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (note.trim() === '') {
      action.fail('Write what happened first.');
      return;
    }
    const at = new Date(occurredAt);
    if (Number.isNaN(at.getTime())) {
      action.fail('Give the time it happened.');
      return;
    }
    const ok = await action.run(() =>
      sendJson('POST', `${apiPath}/timeline_events`, {
        note,
        occurred_at: at.toISOString(),
        timeline_event_tag_names: chosen,
      }),
    );
    if (ok) {
      setNote('');
      setChosen([]);
      setOccurredAt(localNow());
      onAdded();
    }
  };
  return (
    <details className="oncall-add-rotation">
      <summary>Add a timeline event</summary>
      <form aria-label="Add timeline event" onSubmit={(e) => void submit(e)}>
        {action.error !== null && <ErrorNotice message={`Could not add the event: ${action.error}`} />}
        <div className="field">
          <label htmlFor={noteId}>What happened</label>
          <textarea
            id={noteId}
            rows={2}
            maxLength={TIMELINE_NOTE_MAX}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        </div>
        <TextField
          label="Occurred at (your time)"
          type="datetime-local"
          value={occurredAt}
          onChange={setOccurredAt}
        />
        <fieldset className="fieldset">
          <legend>Tags</legend>
          {names.map((n) => (
            <label key={n} className="checkbox">
              <input
                type="checkbox"
                checked={chosen.includes(n)}
                onChange={(e) => setChosen(e.target.checked ? [...chosen, n] : chosen.filter((x) => x !== n))}
              />
              {n}
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={action.busy}>
            {action.busy ? 'Adding…' : 'Add event'}
          </button>
        </div>
      </form>
    </details>
  );
}

function Comments({
  apiPath,
  version,
  isIncident,
  onChanged,
}: {
  readonly apiPath: string;
  readonly version: number;
  readonly isIncident: boolean;
  readonly onChanged: () => void;
}) {
  const headingId = useId();
  const notes = useResource<IssueNote[]>(
    `${apiPath}/notes?sort=asc&order_by=created_at&per_page=100`,
    version,
  );
  const promote = useAction();
  const toTimeline = async (noteId: number): Promise<void> => {
    const ok = await promote.run(async () => {
      await sendJson('POST', `${apiPath}/timeline_events`, { note_id: noteId });
      return 'Comment added to the timeline.';
    });
    if (ok) onChanged();
  };
  return (
    <section className="card section" aria-labelledby={headingId}>
      <h2 id={headingId}>Activity</h2>
      {promote.error !== null && (
        <ErrorNotice message={`Could not add it to the timeline: ${promote.error}`} />
      )}
      {promote.done !== null && <SuccessNotice>{promote.done}</SuccessNotice>}
      <ResourceView resource={notes}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No activity yet.</p>
          ) : (
            <ol className="timeline" aria-label="Notes">
              {list.map((note) => (
                <li key={note.id} className={note.system ? 'timeline-item system-note' : 'timeline-item'}>
                  <span className="note-author" title={note.author ? `@${note.author.username}` : undefined}>
                    {note.author?.name ?? 'svc'}
                  </span>{' '}
                  {note.system ? (
                    <span className="note-body">
                      <InlineMarkdown text={note.body} />
                    </span>
                  ) : (
                    <Markdown text={note.body} className="note-body markdown note-comment" />
                  )}
                  <span className="muted small">
                    <Timestamp value={note.created_at} />
                  </span>
                  {!note.system && isIncident && (
                    <>
                      {' '}
                      <button
                        type="button"
                        className="button button-small"
                        disabled={promote.busy}
                        onClick={() => void toTimeline(note.id)}
                      >
                        Add to timeline
                      </button>
                    </>
                  )}
                </li>
              ))}
            </ol>
          )
        }
      </ResourceView>
      <CommentForm path={`${apiPath}/notes`} onCommented={onChanged} />
    </section>
  );
}

/** A comment box (Markdown, rendered safely); POSTs `{body}` to `path`. */
export function CommentForm({
  path,
  onCommented,
}: {
  readonly path: string;
  readonly onCommented: () => void;
}) {
  const id = useId();
  const [body, setBody] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (body.trim() === '') {
      action.fail('Write a comment first.');
      return;
    }
    if (await action.run(() => sendJson('POST', path, { body }))) {
      setBody('');
      onCommented();
    }
  };
  return (
    <form className="comment-form" onSubmit={(e) => void submit(e)} aria-label="Add a comment">
      <label htmlFor={id}>Comment</label>
      <textarea
        id={id}
        rows={3}
        value={body}
        placeholder="Write a comment (Markdown)"
        onChange={(e) => {
          setBody(e.target.value);
          action.reset();
        }}
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Commenting…' : 'Comment'}
        </button>
      </div>
      {action.error !== null && <ErrorNotice message={`Could not add the comment: ${action.error}`} />}
    </form>
  );
}
