import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { getPage, type Page, sendJson } from '../api';
import {
  Breadcrumbs,
  ConfirmDialog,
  ErrorNotice,
  Pagination,
  ResourceView,
  SuccessNotice,
  TabList,
  TableScroll,
  Timestamp,
} from '../components';
import { Link, paths } from '../router';
import type {
  AdminProject,
  RepositoryStorage,
  SessionUser,
  StorageMove,
  StorageMoveState,
  StorageSettings,
} from '../types';
import { useAction } from '../use-action';
import { type Resource, useLoader, useResource, useTimedLoader } from '../use-resource';
import { AdminNav, AdminOnly } from './admin';

const PER_PAGE = 20;
/** How often the moves list is read again while a move on it is still running. */
const POLL_MS = 1500;
const STORAGES_PATH = '/api/v4/repository_storages';
const PROJECTS_PATH = '/api/v4/projects?per_page=100&order_by=name&sort=asc';

/** What a storage holds: the three kinds of repository, each with its own moves API. */
type Kind = 'projects' | 'snippets' | 'groups';
const KINDS: readonly Kind[] = ['projects', 'snippets', 'groups'];
const KIND_LABELS: Readonly<Record<Kind, string>> = {
  projects: 'Projects',
  snippets: 'Snippets',
  groups: 'Groups',
};
/** The API's singular names: `/<type>_repository_storage_moves`. */
const KIND_TYPES: Readonly<Record<Kind, string>> = {
  projects: 'project',
  snippets: 'snippet',
  groups: 'group',
};

const STATE_LABELS: Readonly<Record<StorageMoveState, string>> = {
  initial: 'Initial',
  scheduled: 'Scheduled',
  started: 'Started',
  replicated: 'Replicated',
  finished: 'Finished',
  failed: 'Failed',
  'cleanup failed': 'Cleanup failed',
};

/** A move in one of these states has ended; any other state (including one this UI does not know) is running. */
const ENDED_STATES: readonly string[] = ['finished', 'failed', 'cleanup failed'];
const isRunning = (move: StorageMove): boolean => !ENDED_STATES.includes(move.state);

/** "1 project", "2 snippets": a count with the kind's word. */
function countLabel(count: number, kind: Kind): string {
  return `${count} ${count === 1 ? KIND_TYPES[kind] : kind}`;
}

const stateLabel = (state: string): string => STATE_LABELS[state as StorageMoveState] ?? state;

/** The move's state as a badge (the word carries the meaning; colour only helps scanning). */
function MoveStateBadge({ state }: { readonly state: string }) {
  const known = state in STATE_LABELS ? state.replace(' ', '-') : 'unknown';
  return <span className={`status move-${known}`}>{stateLabel(state)}</span>;
}

/** True while the browser tab is shown; polling pauses while it is hidden. */
function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const update = (): void => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return visible;
}

/** Admin area > Repository storages: weights, counts, moving one project or a whole storage, and the moves. */
export function StoragesPage({ user }: { readonly user: SessionUser }) {
  if (!user.is_admin) return <AdminOnly />;
  return <Storages />;
}

interface MovesQuery {
  readonly kind: Kind;
  readonly page: number;
}

function Storages() {
  // One counter reloads everything a finished move changes: storage counts and the projects' storages.
  const [storagesKey, setStoragesKey] = useState(0);
  const [movesQuery, setMovesQuery] = useState<MovesQuery>({ kind: 'projects', page: 1 });
  const [movesKey, setMovesKey] = useState(0);
  const storages = useResource<RepositoryStorage[]>(STORAGES_PATH, storagesKey);
  const refreshStorages = useCallback(() => setStoragesKey((k) => k + 1), []);
  const onScheduled = (kind: Kind): void => {
    setMovesQuery({ kind, page: 1 });
    setMovesKey((k) => k + 1);
    refreshStorages();
  };
  const list = storages.status === 'ok' ? storages.data : null;
  // With one storage every move would be refused: say why up front rather than after a submit.
  const single = list !== null && list.length === 1;

  return (
    <>
      <Breadcrumbs links={[{ to: paths.admin(), label: 'Admin area' }]} current="Repository storages" />
      <h1>Repository storages</h1>
      <AdminNav current="storages" />
      <StoragesSection storages={storages} onSaved={refreshStorages} />
      {single ? (
        <p className="notice" id="storage-moves-disabled">
          Moves are off: this instance has one storage ({list?.[0]?.name}), so there is nowhere to move a
          repository. Add a storage to SVC_STORAGES and restart svc to move repositories between them.
        </p>
      ) : null}
      <fieldset
        className="plain-fieldset"
        disabled={single}
        aria-describedby={single ? 'storage-moves-disabled' : undefined}
      >
        <div className="storage-forms">
          <ProjectMoveSection
            storages={list}
            refreshKey={storagesKey}
            onScheduled={() => onScheduled('projects')}
          />
          <BulkMoveSection storages={list} onScheduled={onScheduled} />
        </div>
      </fieldset>
      <MovesSection
        query={movesQuery}
        onQuery={setMovesQuery}
        refreshKey={movesKey}
        onChanged={refreshStorages}
      />
    </>
  );
}

// Storages and weights

function StoragesSection({
  storages,
  onSaved,
}: {
  readonly storages: Resource<RepositoryStorage[]>;
  readonly onSaved: () => void;
}) {
  const headingId = useId();
  return (
    <section className="card section" aria-labelledby={headingId}>
      <h2 id={headingId}>Storages</h2>
      <p className="muted">
        A new repository goes to a storage picked at random in proportion to its weight (0 to 100). A storage
        with weight 0 receives no new repositories; the ones already on it stay there until they are moved.
      </p>
      <ResourceView resource={storages}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No storages are configured.</p>
          ) : (
            <WeightsForm storages={list} labelledBy={headingId} onSaved={onSaved} />
          )
        }
      </ResourceView>
    </section>
  );
}

function WeightsForm({
  storages,
  labelledBy,
  onSaved,
}: {
  readonly storages: readonly RepositoryStorage[];
  readonly labelledBy: string;
  readonly onSaved: () => void;
}) {
  // Edited weights by storage name; a storage without an entry shows the server's weight.
  const [drafts, setDrafts] = useState<Readonly<Record<string, string>>>({});
  const action = useAction();
  const baseId = useId();
  const weightText = (s: RepositoryStorage): string => drafts[s.name] ?? String(s.weight);

  // Weights as typed, null where the field holds no whole number from 0 to 100 (the share is then unknown).
  const numbers = storages.map((s) => validWeight(weightText(s)));
  const allValid = numbers.every((n) => n !== null);
  const total = numbers.reduce<number>((sum, n) => sum + (n ?? 0), 0);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (action.busy) return;
    const weights: Record<string, number> = {};
    for (const s of storages) {
      const raw = weightText(s).trim();
      // Only an empty or non-numeric field is caught here; the server judges the range and whole numbers.
      if (raw === '' || !Number.isFinite(Number(raw))) {
        action.fail(`Enter a weight from 0 to 100 for ${s.name}.`);
        return;
      }
      weights[s.name] = Number(raw);
    }
    await action.run(async () => {
      const saved = await sendJson<StorageSettings>('PUT', '/api/v4/application/settings', {
        repository_storages_weighted: weights,
      });
      setDrafts(
        Object.fromEntries(
          Object.entries(saved.repository_storages_weighted).map(([name, weight]) => [name, String(weight)]),
        ),
      );
      onSaved();
      return 'Storage weights saved.';
    });
  };

  return (
    <form aria-label="Storage weights" noValidate onSubmit={(event) => void submit(event)}>
      <TableScroll label="Storages">
        <table className="table storages-table" aria-labelledby={labelledBy}>
          <thead>
            <tr>
              <th scope="col">Storage</th>
              <th scope="col">Path</th>
              <th scope="col">Weight</th>
              <th scope="col" className="numeric">
                Projects
              </th>
              <th scope="col" className="numeric">
                Snippets
              </th>
              <th scope="col" className="numeric">
                Groups
              </th>
            </tr>
          </thead>
          <tbody>
            {storages.map((s, i) => {
              const value = weightText(s);
              const n = numbers[i] ?? null;
              const hintId = `${baseId}-${i}-hint`;
              const share =
                n === null
                  ? 'a whole number from 0 to 100'
                  : n === 0
                    ? 'receives no new repositories'
                    : allValid && total > 0
                      ? `${Math.round((n / total) * 100)}% of new repositories`
                      : '';
              return (
                <tr key={s.name}>
                  <th scope="row">{s.name}</th>
                  <td>
                    <code className="path">{s.path}</code>
                  </td>
                  <td>
                    <input
                      type="number"
                      className="weight-input"
                      min={0}
                      max={100}
                      step={1}
                      inputMode="numeric"
                      aria-label={`Weight of ${s.name}`}
                      aria-describedby={hintId}
                      aria-invalid={n === null ? true : undefined}
                      value={value}
                      onChange={(event) => {
                        const next = event.target.value;
                        setDrafts((d) => ({ ...d, [s.name]: next }));
                        action.reset();
                      }}
                    />
                    <span id={hintId} className="muted small weight-hint">
                      {share}
                    </span>
                  </td>
                  <td className="numeric">{s.projects}</td>
                  <td className="numeric">{s.snippets}</td>
                  <td className="numeric">{s.groups}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save weights'}
        </button>
      </div>
    </form>
  );
}

/** The weight in `text`, or null unless it is a whole number from 0 to 100. */
function validWeight(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return n <= 100 ? n : null;
}

// Moving one project

/** The destination select's value for "let the server pick by weight" (the API's default). */
const BY_WEIGHT = '';

function DestinationOptions({
  storages,
  current,
}: {
  readonly storages: readonly RepositoryStorage[] | null;
  readonly current?: string | undefined;
}) {
  return (
    <>
      <option value={BY_WEIGHT}>Any other storage, by weight</option>
      {(storages ?? []).map((s) => (
        <option key={s.name} value={s.name}>
          {s.name}
          {s.name === current ? ' (current)' : ''}
        </option>
      ))}
    </>
  );
}

function projectLabel(p: AdminProject): string {
  return p.repository_storage
    ? `${p.name_with_namespace} (on ${p.repository_storage})`
    : p.name_with_namespace;
}

function ProjectMoveSection({
  storages,
  refreshKey,
  onScheduled,
}: {
  readonly storages: readonly RepositoryStorage[] | null;
  readonly refreshKey: number;
  readonly onScheduled: () => void;
}) {
  const projects = useLoader(PROJECTS_PATH, getPage<AdminProject>, refreshKey);
  const [projectId, setProjectId] = useState('');
  const [destination, setDestination] = useState(BY_WEIGHT);
  const action = useAction();
  const ids = { heading: useId(), project: useId(), projectHelp: useId(), destination: useId() };
  const list = projects.status === 'ok' ? projects.data.items : [];
  const selected = list.find((p) => String(p.id) === projectId);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (action.busy) return;
    if (projectId === '') {
      action.fail('Choose a project to move.');
      return;
    }
    await action.run(async () => {
      const move = await sendJson<StorageMove>(
        'POST',
        `/api/v4/projects/${encodeURIComponent(projectId)}/repository_storage_moves`,
        destination === BY_WEIGHT ? {} : { destination_storage_name: destination },
      );
      const name =
        move.project?.name_with_namespace ?? selected?.name_with_namespace ?? `Project ${projectId}`;
      onScheduled();
      return `Move ${move.id} scheduled: ${name} from ${move.source_storage_name} to ${move.destination_storage_name}.`;
    });
  };

  return (
    <section className="card section" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>Move a project</h2>
      <form aria-labelledby={ids.heading} noValidate onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor={ids.project}>Project</label>
          <select
            id={ids.project}
            value={projectId}
            aria-describedby={ids.projectHelp}
            disabled={projects.status !== 'ok'}
            onChange={(event) => {
              setProjectId(event.target.value);
              action.reset();
            }}
          >
            <option value="">
              {projects.status === 'loading' ? 'Loading projects…' : 'Select a project'}
            </option>
            {list.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {projectLabel(p)}
              </option>
            ))}
          </select>
          <span id={ids.projectHelp} className="help">
            {selected?.repository_storage ? (
              <>
                Currently on <strong>{selected.repository_storage}</strong>.{' '}
              </>
            ) : null}
            The repository is read-only while it moves.
          </span>
          {projects.status === 'error' && (
            <ErrorNotice message={`Could not load the projects: ${projects.message}`} />
          )}
          {projects.status === 'ok' && projects.data.nextPage !== null && (
            <span className="help">
              Only the first {list.length} projects by name are listed; move others through the API.
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.destination}>Destination storage</label>
          <select
            id={ids.destination}
            value={destination}
            onChange={(event) => {
              setDestination(event.target.value);
              action.reset();
            }}
          >
            <DestinationOptions storages={storages} current={selected?.repository_storage} />
          </select>
        </div>
        {action.error !== null && <ErrorNotice message={action.error} />}
        {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={action.busy}>
            {action.busy ? 'Scheduling…' : 'Schedule move'}
          </button>
        </div>
      </form>
    </section>
  );
}

// Moving a whole storage

interface BulkRequest {
  readonly kind: Kind;
  readonly source: string;
  readonly destination: string;
}

function BulkMoveSection({
  storages,
  onScheduled,
}: {
  readonly storages: readonly RepositoryStorage[] | null;
  readonly onScheduled: (kind: Kind) => void;
}) {
  const [draft, setDraft] = useState<BulkRequest>({ kind: 'projects', source: '', destination: BY_WEIGHT });
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const ids = { heading: useId(), kind: useId(), source: useId(), destination: useId() };
  const change = (patch: Partial<BulkRequest>): void => {
    setDraft((d) => ({ ...d, ...patch }));
    action.reset();
  };
  const noun = `${KIND_TYPES[draft.kind]} repository`;
  const sourceCount = storages?.find((s) => s.name === draft.source)?.[draft.kind];
  const target = draft.destination === BY_WEIGHT ? 'other storages, by weight' : draft.destination;

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    action.reset();
    if (draft.source === '') {
      action.fail('Choose the storage to move repositories off.');
      return;
    }
    setConfirming(true);
  };

  const schedule = async (): Promise<void> => {
    const body: Record<string, string> = { source_storage_name: draft.source };
    if (draft.destination !== BY_WEIGHT) body.destination_storage_name = draft.destination;
    await action.run(async () => {
      await sendJson<unknown>('POST', `/api/v4/${KIND_TYPES[draft.kind]}_repository_storage_moves`, body);
      onScheduled(draft.kind);
      return `Moves scheduled for every ${noun} on ${draft.source} to ${target}.`;
    });
    setConfirming(false);
  };

  return (
    <section className="card section" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>Move a whole storage</h2>
      <form aria-labelledby={ids.heading} noValidate onSubmit={submit}>
        <div className="field">
          <label htmlFor={ids.kind}>Repositories</label>
          <select
            id={ids.kind}
            value={draft.kind}
            onChange={(event) => change({ kind: event.target.value as Kind })}
          >
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.source}>Source storage</label>
          <select
            id={ids.source}
            value={draft.source}
            onChange={(event) => change({ source: event.target.value })}
          >
            <option value="">Select a storage</option>
            {(storages ?? []).map((s) => (
              <option key={s.name} value={s.name}>
                {s.name} ({countLabel(s[draft.kind], draft.kind)})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.destination}>Destination storage</label>
          <select
            id={ids.destination}
            value={draft.destination}
            onChange={(event) => change({ destination: event.target.value })}
          >
            <DestinationOptions storages={storages} />
          </select>
        </div>
        {action.error !== null && <ErrorNotice message={action.error} />}
        {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={action.busy}>
            Schedule moves
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title={`Move every ${noun}?`}
        confirmLabel="Schedule moves"
        busy={action.busy}
        onConfirm={() => void schedule()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          Every {noun} on <strong>{draft.source}</strong>
          {sourceCount !== undefined ? ` (${countLabel(sourceCount, draft.kind)} now)` : ''} will be moved to{' '}
          <strong>{target}</strong>.
        </p>
        <p>Each repository is read-only while it moves. Repositories already being moved keep their move.</p>
      </ConfirmDialog>
    </section>
  );
}

// The moves

function movesPath(q: MovesQuery): string {
  const params = new URLSearchParams({ per_page: String(PER_PAGE), page: String(q.page) });
  return `/api/v4/${KIND_TYPES[q.kind]}_repository_storage_moves?${params.toString()}`;
}

function MovesSection({
  query,
  onQuery,
  refreshKey,
  onChanged,
}: {
  readonly query: MovesQuery;
  readonly onQuery: (query: MovesQuery) => void;
  readonly refreshKey: number;
  /** Called when a listed move was added or changed state (storage counts may have changed). */
  readonly onChanged: () => void;
}) {
  const [pollKey, setPollKey] = useState(0);
  // Both counters only grow, so their sum changes whenever either does.
  const { resource: moves, updatedAt } = useTimedLoader(
    movesPath(query),
    getPage<StorageMove>,
    refreshKey + pollKey,
  );
  const visible = usePageVisible();
  const running = moves.status === 'ok' && moves.data.items.some(isRunning);
  const headingId = useId();
  const baseId = useId();
  const tabId = (k: Kind): string => `${baseId}-kind-${k}`;
  const panelId = `${baseId}-moves`;

  // Poll while a listed move runs and the tab is shown: one timer per answer, so requests never overlap. Armed by
  // the answer's time, not its data: an unchanged list (a 304) keeps the same object, and must poll on all the same.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `updatedAt` changes once per answer, which re-arms the timer.
  useEffect(() => {
    if (!running || !visible) return;
    const timer = window.setTimeout(() => setPollKey((k) => k + 1), POLL_MS);
    return () => window.clearTimeout(timer);
  }, [updatedAt, running, visible]);

  // A move that appears or changes state may have changed where repositories are: reload the counts.
  const lastSeen = useRef<string | null>(null);
  useEffect(() => {
    if (moves.status !== 'ok') return;
    const seen = moves.data.items.map((m) => `${m.id}:${m.state}`).join(',');
    if (lastSeen.current !== null && lastSeen.current !== seen) onChanged();
    lastSeen.current = seen;
  }, [moves, onChanged]);

  const select = (kind: Kind): void => onQuery({ kind, page: 1 });
  return (
    <section className="card section" aria-labelledby={headingId}>
      <div className="panel-header">
        <h2 id={headingId}>Storage moves</h2>
        <div className="actions">
          <output className="muted small">
            {running ? (visible ? 'Updating while moves run…' : 'Paused while this tab is hidden') : ''}
          </output>
          <button type="button" className="button button-small" onClick={() => setPollKey((k) => k + 1)}>
            Refresh
          </button>
        </div>
      </div>
      <TabList
        label="Repository kind"
        tabs={KINDS}
        selected={query.kind}
        onSelect={select}
        tabId={tabId}
        panelId={() => panelId}
      >
        {(k) => KIND_LABELS[k]}
      </TabList>
      <div role="tabpanel" id={panelId} aria-labelledby={tabId(query.kind)}>
        <ResourceView resource={moves}>
          {(page) =>
            page.items.length === 0 ? (
              <div className="empty-state">
                <p>No {KIND_TYPES[query.kind]} repository storage moves yet.</p>
              </div>
            ) : (
              <MovesTable
                kind={query.kind}
                page={page}
                labelledBy={headingId}
                onPage={(p) => onQuery({ ...query, page: p })}
              />
            )
          }
        </ResourceView>
      </div>
    </section>
  );
}

function MoveSubject({ move }: { readonly move: StorageMove }) {
  if (move.project) {
    return <Link to={paths.project(move.project.id)}>{move.project.name_with_namespace}</Link>;
  }
  if (move.snippet) return <span>{move.snippet.title}</span>;
  if (move.group) return <span>{move.group.full_path}</span>;
  return <span className="muted">Deleted</span>;
}

function MovesTable({
  kind,
  page,
  labelledBy,
  onPage,
}: {
  readonly kind: Kind;
  readonly page: Page<StorageMove>;
  readonly labelledBy: string;
  readonly onPage: (page: number) => void;
}) {
  return (
    <>
      <TableScroll label="Storage moves">
        <table className="table moves-table" aria-labelledby={labelledBy}>
          <thead>
            <tr>
              <th scope="col" className="numeric">
                ID
              </th>
              <th scope="col">{KIND_LABELS[kind].slice(0, -1)}</th>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">State</th>
              <th scope="col">Scheduled</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((m) => (
              <tr key={m.id}>
                <td className="numeric">{m.id}</td>
                <td>
                  <MoveSubject move={m} />
                </td>
                <td>{m.source_storage_name}</td>
                <td>{m.destination_storage_name}</td>
                <td>
                  <MoveStateBadge state={m.state} />
                  {m.error_message ? <span className="move-error small">{m.error_message}</span> : null}
                </td>
                <td>
                  <Timestamp value={m.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pagination page={page} perPage={PER_PAGE} onPage={onPage} />
    </>
  );
}
