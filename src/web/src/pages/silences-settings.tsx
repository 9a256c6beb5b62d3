import { type FormEvent, useId, useState } from 'react';
import { getPage, sendJson } from '../api';
import { ErrorNotice, Pagination, ResourceView, SuccessNotice, TabList, Timestamp } from '../components';
import { TextField } from '../form-fields';
import type { Alert, Project, Silence, SilenceMatcher, SilenceState } from '../types';
import { useAction } from '../use-action';
import { useLoader } from '../use-resource';

const PER_PAGE = 20;

/** Alertmanager's matcher operators. */
type Operator = '=' | '!=' | '=~' | '!~';
const OPERATORS: readonly Operator[] = ['=', '!=', '=~', '!~'];

/** The alert fields a matcher may name besides labels (a field wins over a label of the same name). */
const FIELD_NAMES = ['title', 'severity', 'service', 'monitoring_tool', 'environment'] as const;

/** A matcher row of the form. */
export interface MatcherDraft {
  readonly name: string;
  readonly operator: Operator;
  readonly value: string;
}

function operatorOf(m: SilenceMatcher): Operator {
  if (m.isRegex) return m.isEqual ? '=~' : '!~';
  return m.isEqual ? '=' : '!=';
}

/** `name="value"`, `name=~"re"`: a matcher as Alertmanager prints it. */
function describeMatcher(m: SilenceMatcher): string {
  return `${m.name}${operatorOf(m)}${JSON.stringify(m.value)}`;
}

/** Matchers for "Silence alerts like this": the alert's labels and its fields that have a value. */
export function matchersFromAlert(alert: Alert): MatcherDraft[] {
  const byName = new Map<string, string>();
  const payload = alert.payload;
  const labels =
    payload !== null && typeof payload === 'object' ? (payload as { labels?: unknown }).labels : undefined;
  if (labels !== null && typeof labels === 'object' && !Array.isArray(labels)) {
    for (const [name, value] of Object.entries(labels as Record<string, unknown>)) {
      if (typeof value === 'string') byName.set(name, value);
    }
  }
  const fields: Record<(typeof FIELD_NAMES)[number], string | null> = {
    title: alert.title,
    severity: alert.severity,
    service: alert.service,
    monitoring_tool: alert.monitoring_tool,
    environment: alert.environment,
  };
  for (const name of FIELD_NAMES) {
    const value = fields[name];
    if (value !== null && value !== '') byName.set(name, value);
  }
  return [...byName].map(([name, value]) => ({ name, operator: '=', value }));
}

/** `YYYY-MM-DDTHH:MM` in the reader's zone, `minutes` from now, as a `datetime-local` input takes it. */
function localIn(minutes: number): string {
  const d = new Date(Date.now() + minutes * 60_000);
  d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
  return d.toISOString().slice(0, 16);
}

/** Settings > Silences: the project's silences by state, a form for a new one, and "Expire" on each. */
export function SilencesSettings({ project }: { readonly project: Project }) {
  const headingId = useId();
  const [refresh, setRefresh] = useState(0);
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h3 id={headingId}>Silences</h3>
      <p className="muted">
        A silence keeps matching alerts from paging, e-mailing or calling webhooks while it is active. The
        alerts are still stored and counted.
      </p>
      <SilenceList project={project} refresh={refresh} onChanged={() => setRefresh((n) => n + 1)} />
      <details className="oncall-add-rotation">
        <summary>New silence</summary>
        <SilenceForm
          project={project}
          initial={[{ name: '', operator: '=', value: '' }]}
          onCreated={() => setRefresh((n) => n + 1)}
        />
      </details>
    </section>
  );
}

type StateFilter = SilenceState | 'all';
const STATES: readonly StateFilter[] = ['active', 'pending', 'expired', 'all'];
const STATE_LABELS: Record<StateFilter, string> = {
  active: 'Active',
  pending: 'Pending',
  expired: 'Expired',
  all: 'All',
};

function SilenceList({
  project,
  refresh,
  onChanged,
}: {
  readonly project: Project;
  readonly refresh: number;
  readonly onChanged: () => void;
}) {
  const [state, setState] = useState<StateFilter>('active');
  const [page, setPage] = useState(1);
  const baseId = useId();
  const tabId = (f: StateFilter) => `${baseId}-${f}`;
  const panelId = `${baseId}-panel`;
  const params = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
  if (state !== 'all') params.set('state', state);
  const silences = useLoader(
    `/api/v4/projects/${project.id}/alert_management/silences?${params.toString()}`,
    getPage<Silence>,
    refresh,
  );
  const expire = useAction();
  const doExpire = async (id: number): Promise<void> => {
    const ok = await expire.run(async () => {
      await sendJson('POST', `/api/v4/projects/${project.id}/alert_management/silences/${id}/expire`);
      return `Silence #${id} expired.`;
    });
    if (ok) onChanged();
  };
  return (
    <>
      <TabList
        label="Silence state"
        tabs={STATES}
        selected={state}
        onSelect={(s) => {
          setState(s);
          setPage(1);
        }}
        tabId={tabId}
        panelId={() => panelId}
      >
        {(f) => STATE_LABELS[f]}
      </TabList>
      {expire.error !== null && <ErrorNotice message={`Could not expire the silence: ${expire.error}`} />}
      {expire.done !== null && <SuccessNotice>{expire.done}</SuccessNotice>}
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(state)}>
        <ResourceView resource={silences}>
          {(result) =>
            result.items.length === 0 ? (
              <p className="muted">
                No {state === 'all' ? '' : `${STATE_LABELS[state].toLowerCase()} `}silences.
              </p>
            ) : (
              <>
                <ul className="list" aria-label="Silences">
                  {result.items.map((s) => (
                    <li key={s.id} className="list-row" aria-label={`Silence #${s.id}`}>
                      <div>
                        <span className="list-title">
                          #{s.id} {s.comment}
                        </span>{' '}
                        <span className="badge">{s.state}</span>
                        <ul className="inline-list" aria-label="Matchers">
                          {s.matchers.map((m) => (
                            <li key={`${m.name}${operatorOf(m)}${m.value}`}>
                              <code>{describeMatcher(m)}</code>
                            </li>
                          ))}
                        </ul>
                        <p className="list-description small">
                          <Timestamp value={s.starts_at} /> to <Timestamp value={s.ends_at} />
                          {s.created_by ? ` · by @${s.created_by.username}` : ''}
                        </p>
                      </div>
                      {s.state !== 'expired' && (
                        <button
                          type="button"
                          className="button button-small button-danger-outline"
                          disabled={expire.busy}
                          onClick={() => void doExpire(s.id)}
                        >
                          Expire now
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
                <Pagination page={result} perPage={PER_PAGE} onPage={setPage} />
              </>
            )
          }
        </ResourceView>
      </div>
    </>
  );
}

/** A new silence: matchers (label or field, operator, value), start, end and comment. */
export function SilenceForm({
  project,
  initial,
  onCreated,
}: {
  readonly project: Project | { readonly id: number | string };
  readonly initial: readonly MatcherDraft[];
  readonly onCreated: (silence: Silence) => void;
}) {
  const [matchers, setMatchers] = useState<readonly MatcherDraft[]>(initial);
  const [startsAt, setStartsAt] = useState(() => localIn(0));
  const [endsAt, setEndsAt] = useState(() => localIn(120));
  const [comment, setComment] = useState('');
  const action = useAction();
  const namesId = useId();
  const commentId = useId();
  const set = (i: number, change: Partial<MatcherDraft>) =>
    setMatchers((list) => list.map((m, j) => (j === i ? { ...m, ...change } : m)));
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const start = new Date(startsAt);
    const end = new Date(endsAt);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) {
      action.fail('Give the start and the end.');
      return;
    }
    await action.run(async () => {
      const created = await sendJson<Silence>(
        'POST',
        `/api/v4/projects/${encodeURIComponent(String(project.id))}/alert_management/silences`,
        {
          matchers: matchers.map((m) => ({
            name: m.name.trim(),
            value: m.value,
            isRegex: m.operator === '=~' || m.operator === '!~',
            isEqual: m.operator === '=' || m.operator === '=~',
          })),
          starts_at: start.toISOString(),
          ends_at: end.toISOString(),
          comment,
        },
      );
      setComment('');
      onCreated(created);
      return `Silence #${created.id} created.`;
    });
  };
  return (
    <form aria-label="New silence" onSubmit={(e) => void submit(e)}>
      {action.error !== null && <ErrorNotice message={`Could not create the silence: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <fieldset className="fieldset">
        <legend>Matchers (all must match)</legend>
        <p className="help">
          Names are the alert's labels, or its fields <code>title</code>, <code>severity</code>,{' '}
          <code>service</code>, <code>monitoring_tool</code>, <code>environment</code>. Regular expressions
          match the whole value.
        </p>
        <datalist id={namesId}>
          {FIELD_NAMES.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        {matchers.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows of a form being edited have no other identity.
          <fieldset key={i} className="field-row matcher-row">
            <legend className="visually-hidden">Matcher {i + 1}</legend>
            <div className="field">
              <label htmlFor={`${namesId}-name-${i}`}>Name</label>
              <input
                id={`${namesId}-name-${i}`}
                list={namesId}
                value={m.name}
                required
                onChange={(e) => set(i, { name: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor={`${namesId}-op-${i}`}>Operator</label>
              <select
                id={`${namesId}-op-${i}`}
                value={m.operator}
                onChange={(e) => set(i, { operator: e.target.value as Operator })}
              >
                {OPERATORS.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={`${namesId}-value-${i}`}>Value</label>
              <input
                id={`${namesId}-value-${i}`}
                value={m.value}
                onChange={(e) => set(i, { value: e.target.value })}
              />
            </div>
            <div className="actions">
              <button
                type="button"
                className="button button-small"
                disabled={matchers.length === 1}
                onClick={() => setMatchers((list) => list.filter((_, j) => j !== i))}
              >
                Remove matcher {i + 1}
              </button>
            </div>
          </fieldset>
        ))}
        <div className="actions">
          <button
            type="button"
            className="button button-small"
            onClick={() => setMatchers((list) => [...list, { name: '', operator: '=', value: '' }])}
          >
            Add matcher
          </button>
        </div>
      </fieldset>
      <div className="field-row">
        <TextField
          label="Starts (your time)"
          type="datetime-local"
          value={startsAt}
          onChange={setStartsAt}
          required
        />
        <TextField
          label="Ends (your time)"
          type="datetime-local"
          value={endsAt}
          onChange={setEndsAt}
          required
        />
      </div>
      <div className="field">
        <label htmlFor={commentId}>Comment</label>
        <textarea
          id={commentId}
          rows={2}
          required
          value={comment}
          placeholder="Why, and who to ask"
          onChange={(e) => setComment(e.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create silence'}
        </button>
      </div>
    </form>
  );
}
