import { type FormEvent, useId, useState } from 'react';
import { ApiError, getJson, getJsonWithCsrf, sendJson } from '../api';
import {
  ConfirmDialog,
  CopyButton,
  ErrorNotice,
  ResourceView,
  SuccessNotice,
  TableScroll,
} from '../components';
import { Link, paths } from '../router';
import { useSessionUser } from '../session-user';
import type { ClientKey, ErrorTrackingSettings, ExternalProject, ExternalProjects, Project } from '../types';
import { useAction } from '../use-action';
import { useLoader, useResource } from '../use-resource';
import { INTEGRATED_FLAG, IntegratedFlagSwitch } from './integrated-flag';

/** What the token field shows while a token is stored; the server reads it as "keep the stored token". */
const MASKED_TOKEN = '********';
const isMasked = (token: string): boolean => /^\*+$/.test(token);

/** The backend name in the runner's configuration key `<error_backend>_dsn` (spec, Runner configuration). */
const ERROR_BACKEND = 'sentry';

type Backend = 'integrated' | 'external';

interface Draft {
  readonly active: boolean;
  readonly backend: Backend;
  readonly apiHost: string;
  readonly token: string;
  /** `<organization slug>/<project slug>` of the chosen external project, or ''. */
  readonly projectKey: string;
  /** The largest attachment kept, in KB, as typed. */
  readonly maxAttachmentKb: string;
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url.trim()).origin;
  } catch {
    return null;
  }
}

/** The external project stored in `api_url` (`<host>/api/0/projects/<org>/<slug>/`), as `org/slug`. */
function storedProjectKey(settings: ErrorTrackingSettings): string {
  const match = /\/api\/0\/projects\/([^/]+)\/([^/]+)\/?$/.exec(settings.api_url ?? '');
  if (!match) return '';
  return `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}`;
}

const projectKey = (p: ExternalProject): string => `${p.organization_slug}/${p.slug}`;

function draftOf(settings: ErrorTrackingSettings): Draft {
  return {
    active: settings.active,
    // Nothing configured yet: offer the integrated backend first.
    backend: settings.integrated || !settings.api_url ? 'integrated' : 'external',
    apiHost: originOf(settings.api_url) ?? '',
    // The API never returns the token. The external backend cannot be saved without one, so a stored API URL
    // means a token is stored too.
    token: settings.api_url ? MASKED_TOKEN : '',
    projectKey: storedProjectKey(settings),
    maxAttachmentKb: String(Math.max(1, Math.round(settings.max_attachment_size / 1024))),
  };
}

/** The Connect action's URL: a UI JSON endpoint under the project's path, not under /api/v4. */
function connectPath(project: Project, apiHost: string, token: string): string {
  const projectPath = project.path_with_namespace.split('/').map(encodeURIComponent).join('/');
  const query = new URLSearchParams({ api_host: apiHost, token });
  return `/${projectPath}/-/error_tracking/projects.json?${query.toString()}`;
}

/** Settings > Monitor > Error tracking: backend choice, the integrated backend's DSN and keys, or an external Sentry. */
export function ErrorTrackingSettingsSection({ project }: { readonly project: Project }) {
  const headingId = useId();
  const path = `/api/v4/projects/${project.id}/error_tracking/settings`;
  const disabled = project.monitor_access_level === 'disabled';
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <p className="eyebrow">Monitor</p>
      <h3 id={headingId}>Error tracking</h3>
      <p className="muted">
        Applications report errors with a Sentry SDK, to this service (integrated) or to your own Sentry.
        Errors appear in the <Link to={paths.project(project.id, 'error_tracking')}>Error tracking</Link> tab.
      </p>
      {disabled ? (
        <p className="notice notice-warning">
          The Monitor feature is disabled for this project, so error tracking cannot be configured.
        </p>
      ) : (
        <SettingsLoader project={project} path={path} />
      )}
    </section>
  );
}

/** What a project that never saved settings starts from: the API answers 404 for it, as GitLab does. */
const UNSAVED: ErrorTrackingSettings = {
  active: false,
  project_name: null,
  sentry_external_url: null,
  api_url: null,
  integrated: false,
  max_attachment_size: 1024 * 1024,
  dropped_items: {},
};

async function loadSettings(path: string): Promise<ErrorTrackingSettings> {
  try {
    return await getJson<ErrorTrackingSettings>(path);
  } catch (err) {
    if (
      err instanceof ApiError &&
      err.status === 404 &&
      err.message === '404 Error Tracking Setting Not Found'
    )
      return UNSAVED;
    throw err;
  }
}

function SettingsLoader({ project, path }: { readonly project: Project; readonly path: string }) {
  const settings = useLoader<ErrorTrackingSettings>(path, loadSettings);
  return (
    <ResourceView resource={settings}>
      {(loaded) => <ErrorTrackingForm project={project} path={path} initial={loaded} />}
    </ResourceView>
  );
}

function ErrorTrackingForm({
  project,
  path,
  initial,
}: {
  readonly project: Project;
  readonly path: string;
  readonly initial: ErrorTrackingSettings;
}) {
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const [projects, setProjects] = useState<readonly ExternalProject[] | null>(null);
  const connection = useAction();
  const saving = useAction();
  const [keysVersion, setKeysVersion] = useState(0);
  const ids = {
    active: useId(),
    activeHelp: useId(),
    integrated: useId(),
    external: useId(),
    host: useId(),
    hostHelp: useId(),
    token: useId(),
    tokenHelp: useId(),
    project: useId(),
    projectHelp: useId(),
    attachments: useId(),
    attachmentsHelp: useId(),
  };
  const change = (patch: Partial<Draft>): void => {
    setDraft((d) => ({ ...d, ...patch }));
    saving.reset();
  };
  const external = draft.backend === 'external';
  const admin = useSessionUser()?.is_admin === true;

  const connect = async (): Promise<void> => {
    const ok = await connection.run(async () => {
      const result = await getJsonWithCsrf<ExternalProjects>(
        connectPath(project, draft.apiHost.trim(), draft.token),
      );
      const list = Array.isArray(result.projects) ? result.projects : [];
      setProjects(list);
      if (!list.some((p) => projectKey(p) === draft.projectKey)) change({ projectKey: '' });
    });
    if (!ok) setProjects(null);
  };

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await save();
  };

  const save = async (): Promise<void> => {
    if (saving.busy) return;
    const body: Record<string, unknown> = { active: draft.active, integrated: !external };
    const kb = Number(draft.maxAttachmentKb);
    if (!external) {
      if (!Number.isInteger(kb) || kb < 1 || kb > 20 * 1024) {
        saving.fail('The largest attachment must be a whole number of KB from 1 to 20480.');
        return;
      }
      body.max_attachment_size = kb * 1024;
    }
    if (external) {
      const host = draft.apiHost.trim();
      if (host !== '') body.api_host = host;
      // The stored token belongs to the stored host: never offer it for another one.
      const sameHost = originOf(host) !== null && originOf(host) === originOf(saved.api_url);
      if (!isMasked(draft.token) || sameHost) body.token = draft.token;
      const chosen = projects?.find((p) => projectKey(p) === draft.projectKey);
      if (chosen) {
        body.project = {
          slug: chosen.slug,
          name: chosen.name,
          organization_slug: chosen.organization_slug,
          organization_name: chosen.organization_name,
        };
      }
    }
    await saving.run(async () => {
      const next = await sendJson<ErrorTrackingSettings>('PUT', path, body);
      setSaved(next);
      setDraft(draftOf(next));
      setProjects(null);
      connection.reset();
      setKeysVersion((v) => v + 1);
      return 'Error tracking settings saved.';
    });
  };

  const storedKey = storedProjectKey(saved);
  const projectOptions: readonly { key: string; label: string }[] =
    projects !== null
      ? projects.map((p) => ({ key: projectKey(p), label: `${p.organization_name} | ${p.name}` }))
      : storedKey !== ''
        ? [{ key: storedKey, label: saved.project_name ?? storedKey }]
        : [];

  return (
    <>
      <form aria-label="Error tracking settings" onSubmit={(event) => void submit(event)}>
        {saving.error !== null && <ErrorNotice message={saving.error} />}
        {saving.error?.includes(INTEGRATED_FLAG) && admin ? (
          <IntegratedFlagSwitch project={project} onEnabled={save} />
        ) : null}
        {saving.done !== null && <SuccessNotice>{saving.done}</SuccessNotice>}
        <div className="checkbox">
          <input
            id={ids.active}
            type="checkbox"
            checked={draft.active}
            aria-describedby={ids.activeHelp}
            onChange={(event) => change({ active: event.target.checked })}
          />
          <label htmlFor={ids.active}>Active</label>
        </div>
        <p id={ids.activeHelp} className="help checkbox-help">
          Turns error tracking on for this project.
        </p>
        <fieldset className="fieldset">
          <legend>Error tracking backend</legend>
          <div className="checkbox">
            <input
              id={ids.integrated}
              type="radio"
              name={`${ids.integrated}-backend`}
              checked={!external}
              onChange={() => change({ backend: 'integrated' })}
            />
            <label htmlFor={ids.integrated}>Integrated</label>
          </div>
          <p className="help checkbox-help">
            SDKs send events to this service with a DSN; errors are grouped and stored here.
          </p>
          <div className="checkbox">
            <input
              id={ids.external}
              type="radio"
              name={`${ids.integrated}-backend`}
              checked={external}
              onChange={() => change({ backend: 'external' })}
            />
            <label htmlFor={ids.external}>External Sentry</label>
          </div>
          <p className="help checkbox-help">
            Errors stay in your Sentry; this service reads them with an auth token.
          </p>
        </fieldset>
        {external && (
          <fieldset className="fieldset">
            <legend>Sentry connection</legend>
            <div className="field narrow-field">
              <label htmlFor={ids.host}>Sentry API URL</label>
              <input
                id={ids.host}
                type="url"
                placeholder="https://sentry.example.com"
                value={draft.apiHost}
                aria-describedby={ids.hostHelp}
                onChange={(event) => {
                  change({ apiHost: event.target.value });
                  setProjects(null);
                }}
              />
              <span id={ids.hostHelp} className="help">
                The address of your Sentry, for example https://sentry.io.
              </span>
            </div>
            <div className="field narrow-field">
              <label htmlFor={ids.token}>Auth token</label>
              <div className="input-group">
                <input
                  id={ids.token}
                  type="password"
                  autoComplete="off"
                  value={draft.token}
                  aria-describedby={ids.tokenHelp}
                  onFocus={(event) => isMasked(event.target.value) && event.target.select()}
                  onChange={(event) => {
                    change({ token: event.target.value });
                    setProjects(null);
                  }}
                />
                <button
                  type="button"
                  className="button"
                  disabled={connection.busy || draft.apiHost.trim() === '' || draft.token === ''}
                  onClick={() => void connect()}
                >
                  {connection.busy ? 'Connecting…' : 'Connect'}
                </button>
              </div>
              <span id={ids.tokenHelp} className="help">
                Needs the scopes project:read, event:read and event:write (to resolve errors).
                {isMasked(draft.token) ? ' A token is stored; leave it to keep using it.' : ''}
              </span>
            </div>
            {connection.error !== null && (
              <div className="notice notice-error" role="alert">
                <strong>Connection failed. Check auth token and try again.</strong>
                <span className="notice-detail">{connection.error}</span>
              </div>
            )}
            {projects !== null && (
              <SuccessNotice>
                {projects.length === 0
                  ? 'Connected, but the token can see no projects.'
                  : `Connected. ${projects.length} project${projects.length === 1 ? '' : 's'} found; choose one.`}
              </SuccessNotice>
            )}
            <div className="field narrow-field">
              <label htmlFor={ids.project}>Project</label>
              <select
                id={ids.project}
                value={draft.projectKey}
                disabled={projectOptions.length === 0}
                aria-describedby={ids.projectHelp}
                onChange={(event) => change({ projectKey: event.target.value })}
              >
                <option value="">
                  {projectOptions.length === 0 ? 'Connect to list projects' : 'Select project'}
                </option>
                {projectOptions.map((o) => (
                  <option key={o.key} value={o.key}>
                    {o.label}
                  </option>
                ))}
              </select>
              <span id={ids.projectHelp} className="help">
                Use one Sentry project per project here.
                {saved.sentry_external_url && !saved.integrated ? (
                  <>
                    {' '}
                    Now: <SafeLink href={saved.sentry_external_url}>{saved.sentry_external_url}</SafeLink>
                  </>
                ) : null}
              </span>
            </div>
          </fieldset>
        )}
        {!external && (
          <div className="field narrow-field">
            <label htmlFor={ids.attachments}>Largest attachment (KB)</label>
            <input
              id={ids.attachments}
              type="number"
              min={1}
              max={20 * 1024}
              step={1}
              value={draft.maxAttachmentKb}
              aria-describedby={ids.attachmentsHelp}
              onChange={(event) => change({ maxAttachmentKb: event.target.value })}
            />
            <span id={ids.attachmentsHelp} className="help">
              Files SDKs attach to events are kept up to this size; larger ones are dropped and counted below.
            </span>
          </div>
        )}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={saving.busy}>
            {saving.busy ? 'Saving…' : 'Save error tracking settings'}
          </button>
        </div>
      </form>
      {!external && saved.integrated && (
        <ClientKeys project={project} version={keysVersion} active={saved.active} />
      )}
      {!external && saved.integrated && <DroppedItems dropped={saved.dropped_items} />}
      {!external && !saved.integrated && (
        <p className="muted small">
          Save with Active checked and the integrated backend to get a DSN for your SDKs.
        </p>
      )}
    </>
  );
}

/**
 * What SDKs sent that is not kept (transactions, spans, replays, profiles, logs, attachments over the limit...),
 * counted per item type, so that nobody wonders where it went.
 */
function DroppedItems({ dropped }: { readonly dropped: Readonly<Record<string, number>> }) {
  const headingId = useId();
  const entries = Object.entries(dropped);
  return (
    <section className="subsection" aria-labelledby={headingId}>
      <h4 id={headingId}>Received and not kept</h4>
      {entries.length === 0 ? (
        <p className="muted">Nothing so far: every item SDKs sent was kept.</p>
      ) : (
        <>
          <p className="muted small">
            Error tracking keeps errors, sessions, cron check-ins, user feedback and attachments. Other items
            are accepted and counted here.
          </p>
          <table className="table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Item type</th>
                <th scope="col">Count</th>
              </tr>
            </thead>
            <tbody>
              {entries.map(([type, n]) => (
                <tr key={type}>
                  <td>
                    <code>{type}</code>
                  </td>
                  <td>{n.toLocaleString('en')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

/** An external link only for http(s) URLs; anything else stays text. */
function SafeLink({ href, children }: { readonly href: string; readonly children: string }) {
  const ok = /^https?:\/\//i.test(href);
  if (!ok) return <span>{children}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/**
 * The integrated backend's client keys: the DSN to configure SDKs with, the runner line, the list of keys
 * (the leaked-key rotation flow: create a new key, move the clients over, delete the old one), and the
 * deprecated DSN with a secret part.
 */
function ClientKeys({
  project,
  version,
  active,
}: {
  readonly project: Project;
  readonly version: number;
  readonly active: boolean;
}) {
  const path = `/api/v4/projects/${project.id}/error_tracking/client_keys`;
  const [localVersion, setLocalVersion] = useState(0);
  // The list is paginated (20 by default); a project keeps a handful of keys, so one page of 100 shows them all.
  const keys = useResource<ClientKey[]>(`${path}?per_page=100`, version + localVersion);
  const [notice, setNotice] = useState<string | null>(null);
  const creation = useAction();
  const [deleting, setDeleting] = useState<ClientKey | null>(null);
  const deletion = useAction();
  const headingId = useId();
  const ids = {
    dsn: useId(),
    dsnHelp: useId(),
    runner: useId(),
    runnerHelp: useId(),
    secret: useId(),
    secretHelp: useId(),
  };
  const refresh = (): void => setLocalVersion((v) => v + 1);

  const create = async (): Promise<void> => {
    setNotice(null);
    await creation.run(async () => {
      const key = await sendJson<ClientKey>('POST', path);
      setNotice(
        `New client key ${key.public_key} created. Move your clients to its DSN, then delete the old key.`,
      );
      refresh();
    });
  };

  const remove = async (key: ClientKey): Promise<void> => {
    await deletion.run(async () => {
      await sendJson<ClientKey>('DELETE', `${path}/${key.id}`);
      setDeleting(null);
      setNotice(`Client key ${key.public_key} deleted. Clients that still use it are refused.`);
      creation.reset();
      refresh();
    });
  };

  return (
    <section className="subsection" aria-labelledby={headingId}>
      <div className="panel-header">
        <h4 id={headingId}>Client keys</h4>
        <button
          type="button"
          className="button button-primary button-small"
          disabled={creation.busy}
          onClick={() => void create()}
        >
          {creation.busy ? 'Creating…' : 'Create new key'}
        </button>
      </div>
      {!active && (
        <p className="notice notice-warning">
          Error tracking is not active: the collector refuses events until you turn it on and save.
        </p>
      )}
      {notice !== null && <SuccessNotice>{notice}</SuccessNotice>}
      {creation.error !== null && <ErrorNotice message={creation.error} />}
      <ResourceView resource={keys}>
        {(list) => {
          const activeKeys = list.filter((k) => k.active);
          // The newest active key is the one to hand out: after a rotation, clients move to it.
          const current = activeKeys[activeKeys.length - 1];
          return (
            <>
              {current ? (
                <>
                  <div className="field">
                    <label htmlFor={ids.dsn}>Data Source Name (DSN)</label>
                    <div className="input-group">
                      <input
                        id={ids.dsn}
                        readOnly
                        className="mono"
                        value={current.sentry_dsn}
                        aria-describedby={ids.dsnHelp}
                        onFocus={(event) => event.target.select()}
                      />
                      <CopyButton text={current.sentry_dsn} label="Copy DSN" />
                    </div>
                    <span id={ids.dsnHelp} className="help">
                      Configure your Sentry SDK with this DSN. It is a secret: keep it out of public code.
                    </span>
                  </div>
                  <div className="field">
                    <label htmlFor={ids.runner}>Runner configuration</label>
                    <div className="input-group">
                      <input
                        id={ids.runner}
                        readOnly
                        className="mono"
                        value={runnerLine(current.sentry_dsn)}
                        aria-describedby={ids.runnerHelp}
                        onFocus={(event) => event.target.select()}
                      />
                      <CopyButton text={runnerLine(current.sentry_dsn)} label="Copy runner configuration" />
                    </div>
                    <span id={ids.runnerHelp} className="help">
                      To report the runner's own errors, add this line to its configuration file.
                    </span>
                  </div>
                </>
              ) : (
                <div className="empty-state">
                  <p>No active client key.</p>
                  <p className="muted">Create a key to get a DSN for your SDKs.</p>
                </div>
              )}
              {list.length > 0 && (
                <TableScroll label="Client keys">
                  <table className="table keys-table" aria-labelledby={headingId}>
                    <thead>
                      <tr>
                        <th scope="col">Public key</th>
                        <th scope="col">DSN</th>
                        <th scope="col">Status</th>
                        <th scope="col">
                          <span className="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((k) => (
                        <tr key={k.id} className={k.id === current?.id ? 'row-selected' : undefined}>
                          <td>
                            <code>{k.public_key}</code>
                          </td>
                          <td className="dsn-cell">
                            <code>{k.sentry_dsn}</code>
                          </td>
                          <td>
                            <span className={k.active ? 'status status-enabled' : 'status status-disabled'}>
                              {k.active ? 'Active' : 'Inactive'}
                            </span>
                          </td>
                          <td className="actions-cell">
                            <button
                              type="button"
                              className="button button-small button-danger-outline"
                              aria-label={`Delete key ${k.public_key}`}
                              onClick={() => {
                                deletion.reset();
                                setDeleting(k);
                              }}
                            >
                              Delete
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              )}
              <p className="help keys-help">
                If a DSN leaks, rotate its key: create a new key, move your clients to the new DSN, then
                delete the old key. Events sent with a deleted key are refused.
              </p>
              {current && (
                <div className="field">
                  <label htmlFor={ids.secret}>DSN with a secret part</label>
                  <div className="input-group">
                    <input
                      id={ids.secret}
                      readOnly
                      className="mono"
                      value={current.deprecated_dsn}
                      aria-describedby={ids.secretHelp}
                      onFocus={(event) => event.target.select()}
                    />
                    <CopyButton text={current.deprecated_dsn} label="Copy DSN with a secret part" />
                  </div>
                  <span id={ids.secretHelp} className="help">
                    Deprecated format, for clients that require a private key. The secret part is not checked.
                  </span>
                </div>
              )}
            </>
          );
        }}
      </ResourceView>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete client key?"
        confirmLabel="Delete key"
        danger
        busy={deletion.busy}
        onConfirm={() => deleting && void remove(deleting)}
        onCancel={() => {
          setDeleting(null);
          deletion.reset();
        }}
      >
        <p>
          Clients that send events with <code>{deleting?.public_key}</code> will be refused. This cannot be
          undone.
        </p>
        {deletion.error !== null && <ErrorNotice message={deletion.error} />}
      </ConfirmDialog>
    </section>
  );
}

function runnerLine(dsn: string): string {
  return `${ERROR_BACKEND}_dsn = "${dsn}"`;
}
