import { type FormEvent, useId, useState } from 'react';
import { SeverityBadge, StatusBadge } from '../alert-labels';
import { getPage, sendJson } from '../api';
import {
  ErrorNotice,
  Pagination,
  ResourceView,
  SearchForm,
  TabList,
  TableScroll,
  Timestamp,
} from '../components';
import { SelectField, TextField } from '../form-fields';
import { UpdatedAt, usePolling } from '../live';
import { Link, navigate, paths } from '../router';
import type { IncidentSeverity, Issue, Member, Project } from '../types';
import { useAction } from '../use-action';
import { oneOf, useQueryState } from '../use-query-state';
import { useResource, useTimedLoader } from '../use-resource';

const PER_PAGE = 20;

/** GitLab's incident severities, most severe first, with the words the UI shows. */
export const INCIDENT_SEVERITIES: readonly { readonly value: IncidentSeverity; readonly label: string }[] = [
  { value: 'CRITICAL', label: 'Critical - S1' },
  { value: 'HIGH', label: 'High - S2' },
  { value: 'MEDIUM', label: 'Medium - S3' },
  { value: 'LOW', label: 'Low - S4' },
  { value: 'UNKNOWN', label: 'Unknown' },
];

/** The state tabs, as GitLab's incident list: open first. */
type StateFilter = 'opened' | 'closed' | 'all';
const STATES: readonly StateFilter[] = ['opened', 'closed', 'all'];
const STATE_LABELS: Record<StateFilter, string> = { opened: 'Open', closed: 'Closed', all: 'All' };

type Query = {
  readonly state: StateFilter;
  readonly search: string;
  readonly severity: IncidentSeverity | '';
  readonly assignee: string;
  readonly page: number;
};

/** The list's state in the URL: `?state=closed&severity=HIGH&assignee=alice&page=2`. */
const QUERY = {
  state: oneOf(STATES, 'opened'),
  search: { fallback: '' },
  severity: oneOf<IncidentSeverity | ''>(['', 'CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'], ''),
  assignee: { fallback: '' },
  page: { fallback: 1 },
} as const;

function incidentsPath(projectId: number, q: Query): string {
  const params = new URLSearchParams({
    issue_type: 'incident',
    state: q.state,
    page: String(q.page),
    per_page: String(PER_PAGE),
  });
  if (q.search !== '') params.set('search', q.search);
  if (q.severity !== '') params.set('severity', q.severity);
  if (q.assignee !== '') params.set('assignee_username', q.assignee);
  return `/api/v4/projects/${projectId}/issues?${params.toString()}`;
}

/** Project members who may be assigned an incident (Reporter and up), for the filters and forms. */
export function useAssignableMembers(projectId: number | string) {
  const members = useResource<Member[]>(
    `/api/v4/projects/${encodeURIComponent(String(projectId))}/members/all?per_page=100`,
  );
  return members.status === 'ok' ? members.data.filter((m) => m.access_level >= 20) : [];
}

/** Project > Incidents: state tabs, search, severity and assignee filters, the list, and a new incident form. */
export function IncidentsPanel({ project }: { readonly project: Project }) {
  const [query, setQuery] = useQueryState<Query>(QUERY);
  const [refreshKey, setRefreshKey] = useState(0);
  // The list follows new and changed incidents while open; each unchanged answer is a 304.
  const { resource: incidents, updatedAt } = useTimedLoader(
    incidentsPath(project.id, query),
    getPage<Issue>,
    refreshKey + usePolling(),
  );
  const members = useAssignableMembers(project.id);
  const headingId = useId();
  const baseId = useId();
  const tabId = (f: StateFilter): string => `${baseId}-state-${f}`;
  const panelId = `${baseId}-incidents`;
  const update = (change: Partial<Query>): void => setQuery({ page: 1, ...change });
  const filtered = query.search !== '' || query.severity !== '' || query.assignee !== '';

  return (
    <>
      <div className="panel-header">
        <h2 id={headingId}>Incidents</h2>
        <UpdatedAt at={updatedAt} />
        <button type="button" className="button button-small" onClick={() => setRefreshKey((k) => k + 1)}>
          Refresh
        </button>
      </div>
      <NewIncidentForm project={project} members={members} />
      <TabList
        label="Incident state"
        tabs={STATES}
        selected={query.state}
        onSelect={(state) => update({ state })}
        tabId={tabId}
        panelId={() => panelId}
      >
        {(f) => STATE_LABELS[f]}
      </TabList>
      <search className="field-row">
        <SearchForm
          key={query.search}
          label="Search incidents"
          placeholder="Search by title or description"
          search={query.search}
          onSearch={(search) => update({ search })}
        />
        <SelectField
          label="Severity"
          value={query.severity}
          onChange={(v) => update({ severity: v as IncidentSeverity | '' })}
          options={[{ value: '', label: 'Any severity' }, ...INCIDENT_SEVERITIES]}
        />
        <SelectField
          label="Assignee"
          value={query.assignee}
          onChange={(assignee) => update({ assignee })}
          options={[
            { value: '', label: 'Anyone' },
            ...members.map((m) => ({ value: m.username, label: `${m.name} (@${m.username})` })),
          ]}
        />
      </search>
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(query.state)}>
        <ResourceView resource={incidents}>
          {(page) =>
            page.items.length === 0 ? (
              <div className="empty-state">
                <p>
                  {filtered || query.state !== 'opened'
                    ? 'No incidents match this filter.'
                    : 'No open incidents.'}
                </p>
              </div>
            ) : (
              <>
                <IncidentsTable project={project} incidents={page.items} labelledBy={headingId} />
                <Pagination page={page} perPage={PER_PAGE} onPage={(p) => setQuery({ page: p })} />
              </>
            )
          }
        </ResourceView>
      </div>
    </>
  );
}

function IncidentsTable({
  project,
  incidents,
  labelledBy,
}: {
  readonly project: Project;
  readonly incidents: readonly Issue[];
  readonly labelledBy: string;
}) {
  return (
    <TableScroll label="Incidents">
      <table className="table" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            <th scope="col">Severity</th>
            <th scope="col">Incident</th>
            <th scope="col">Status</th>
            <th scope="col">Assignees</th>
            <th scope="col">Opened</th>
          </tr>
        </thead>
        <tbody>
          {incidents.map((incident) => (
            <tr key={incident.iid}>
              <td>
                <SeverityBadge severity={incident.severity.toLowerCase()} />
              </td>
              <td>
                <Link to={paths.incident(project.id, incident.iid)}>{incident.title}</Link>{' '}
                <span className="muted small">
                  #{incident.iid}
                  {incident.state === 'closed' ? ' · closed' : ''}
                </span>
              </td>
              <td>
                {incident.escalation_status !== null && <StatusBadge status={incident.escalation_status} />}
              </td>
              <td>
                {incident.assignees.length === 0 ? (
                  <span className="muted">Unassigned</span>
                ) : (
                  incident.assignees.map((a) => `@${a.username}`).join(', ')
                )}
              </td>
              <td>
                <Timestamp value={incident.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** GitLab's "New incident": a title, a description, a severity and assignees; opens the incident's page. */
function NewIncidentForm({
  project,
  members,
}: {
  readonly project: Project;
  readonly members: readonly Member[];
}) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<IncidentSeverity>('UNKNOWN');
  const [assignees, setAssignees] = useState<readonly number[]>([]);
  const action = useAction();
  const descriptionId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (title.trim() === '') {
      action.fail('Give the incident a title.');
      return;
    }
    await action.run(async () => {
      const created = await sendJson<Issue>('POST', `/api/v4/projects/${project.id}/issues`, {
        title,
        description,
        issue_type: 'incident',
        severity,
        assignee_ids: assignees,
      });
      navigate(paths.incident(project.id, created.iid));
    });
  };
  const toggle = (id: number, on: boolean) =>
    setAssignees((list) => (on ? [...list, id] : list.filter((x) => x !== id)));
  return (
    <details className="settings-section new-incident">
      <summary className="button button-primary">New incident</summary>
      <form aria-label="New incident" onSubmit={(e) => void submit(e)}>
        {action.error !== null && <ErrorNotice message={`Could not open the incident: ${action.error}`} />}
        <TextField label="Title" value={title} onChange={setTitle} required />
        <div className="field">
          <label htmlFor={descriptionId}>Description</label>
          <textarea
            id={descriptionId}
            rows={4}
            value={description}
            placeholder="What is happening (Markdown)"
            onChange={(e) => setDescription(e.target.value)}
          />
        </div>
        <SelectField
          label="Severity"
          value={severity}
          onChange={(v) => setSeverity(v as IncidentSeverity)}
          options={INCIDENT_SEVERITIES}
        />
        <fieldset className="fieldset">
          <legend>Assignees</legend>
          {members.length === 0 && <p className="muted">No project members to assign.</p>}
          {members.map((m) => (
            <label key={m.id} className="checkbox">
              <input
                type="checkbox"
                checked={assignees.includes(m.id)}
                onChange={(e) => toggle(m.id, e.target.checked)}
              />
              {m.name} (@{m.username})
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={action.busy}>
            {action.busy ? 'Opening…' : 'Open incident'}
          </button>
        </div>
      </form>
    </details>
  );
}
