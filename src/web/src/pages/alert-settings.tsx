import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { INTEGRATION_TYPE_LABELS, INTEGRATION_TYPES } from '../alert-labels';
import { describeError, postText, sendJson } from '../api';
import {
  ConfirmDialog,
  CopyButton,
  ErrorNotice,
  Loading,
  ResourceView,
  SuccessNotice,
  TabList,
} from '../components';
import { Link, paths } from '../router';
import type {
  AlertSettings,
  Integration,
  IntegrationType,
  PayloadField,
  PayloadMapping,
  Project,
} from '../types';
import { useResource } from '../use-resource';

/** Alert fields a custom mapping may fill, with the payload types each accepts (the server's table). */
const MAPPING_FIELDS: readonly { readonly key: string; readonly label: string; readonly types: string[] }[] =
  [
    { key: 'title', label: 'Title', types: ['string'] },
    { key: 'description', label: 'Description', types: ['string'] },
    { key: 'start_time', label: 'Start time', types: ['datetime'] },
    { key: 'end_time', label: 'End time', types: ['datetime'] },
    { key: 'service', label: 'Service', types: ['string'] },
    { key: 'monitoring_tool', label: 'Monitoring tool', types: ['string'] },
    { key: 'hosts', label: 'Hosts', types: ['string', 'array'] },
    { key: 'severity', label: 'Severity', types: ['string'] },
    { key: 'fingerprint', label: 'Fingerprint', types: ['string', 'array'] },
    { key: 'svc_environment_name', label: 'Environment name', types: ['string'] },
  ];

const DEFAULT_TEST_PAYLOAD = JSON.stringify(
  { title: 'Test alert', description: 'Sent from the integration settings', severity: 'low' },
  null,
  2,
);

const needsApiUrl = (type: IntegrationType): boolean => type === 'prometheus' || type === 'oncall_link';

function integrationsPath(project: Project): string {
  return `/api/v4/projects/${project.id}/alert_management/integrations`;
}

/** Settings > Monitor > Alerts: the integrations that receive alerts, and what alerts do on arrival. */
export function AlertsSettings({ project }: { readonly project: Project }) {
  const headingId = useId();
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <p className="eyebrow">Monitor</p>
      <h3 id={headingId}>Alerts</h3>
      <p className="muted">
        Monitoring tools post alerts to an integration's URL with its authorization key. Alerts appear in the{' '}
        <Link to={paths.project(project.id, 'alerts')}>Alerts</Link> tab.
      </p>
      <IntegrationsSection project={project} />
      <AlertSettingsForm project={project} />
    </section>
  );
}

type EditTab = 'configure' | 'credentials' | 'test';

function IntegrationsSection({ project }: { readonly project: Project }) {
  const [refreshKey, setRefreshKey] = useState(0);
  const list = useResource<Integration[]>(integrationsPath(project), refreshKey);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<{ readonly integration: Integration; readonly tab: EditTab } | null>(
    null,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const headingId = useId();
  const refresh = (): void => setRefreshKey((k) => k + 1);

  // The editor follows the list once it has reloaded; until then it shows what the last answer said.
  const listed =
    editing !== null && list.status === 'ok'
      ? list.data.find((i) => i.id === editing.integration.id)
      : undefined;
  const current =
    editing === null
      ? null
      : listed !== undefined && Date.parse(listed.updated_at) >= Date.parse(editing.integration.updated_at)
        ? listed
        : editing.integration;

  return (
    <section className="subsection" aria-labelledby={headingId}>
      <div className="panel-header">
        <h4 id={headingId}>Integrations</h4>
        {!adding && (
          <button
            type="button"
            className="button button-primary button-small"
            onClick={() => {
              setAdding(true);
              setEditing(null);
              setNotice(null);
            }}
          >
            Add integration
          </button>
        )}
      </div>
      {notice !== null && <SuccessNotice>{notice}</SuccessNotice>}
      {adding && (
        <AddIntegrationForm
          project={project}
          onCancel={() => setAdding(false)}
          onCreated={(created) => {
            setAdding(false);
            setNotice(`Integration "${created.name}" created.`);
            setEditing({
              integration: created,
              tab: created.type === 'oncall_link' ? 'configure' : 'credentials',
            });
            refresh();
          }}
        />
      )}
      <ResourceView resource={list}>
        {(items) =>
          items.length === 0 ? (
            <div className="empty-state">
              <p>No integrations yet.</p>
              <p className="muted">
                Add an HTTP endpoint or a Prometheus integration to start receiving alerts.
              </p>
            </div>
          ) : (
            <table className="table" aria-labelledby={headingId}>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((i) => (
                  <tr key={i.id} className={current?.id === i.id ? 'row-selected' : undefined}>
                    <td>{i.name}</td>
                    <td>{INTEGRATION_TYPE_LABELS[i.type] ?? i.type}</td>
                    <td>
                      <span className={i.active ? 'status status-enabled' : 'status status-disabled'}>
                        {i.active ? 'Enabled' : 'Disabled'}
                      </span>
                    </td>
                    <td className="actions-cell">
                      <button
                        type="button"
                        className="button button-small"
                        aria-label={`Edit ${i.name}`}
                        aria-expanded={current?.id === i.id}
                        onClick={() => {
                          setAdding(false);
                          setNotice(null);
                          setEditing(current?.id === i.id ? null : { integration: i, tab: 'configure' });
                        }}
                      >
                        {current?.id === i.id ? 'Close' : 'Edit'}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </ResourceView>
      {current !== null && editing !== null && (
        <IntegrationEditor
          key={current.id}
          project={project}
          integration={current}
          initialTab={editing.tab}
          onChanged={(updated) => {
            setEditing((e) => (e === null ? e : { ...e, integration: updated }));
            refresh();
          }}
          onDeleted={(name) => {
            setEditing(null);
            setNotice(`Integration "${name}" deleted.`);
            refresh();
          }}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function AddIntegrationForm({
  project,
  onCreated,
  onCancel,
}: {
  readonly project: Project;
  readonly onCreated: (integration: Integration) => void;
  readonly onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [type, setType] = useState<IntegrationType>('http');
  const [active, setActive] = useState(true);
  const [apiUrl, setApiUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { name: useId(), type: useId(), active: useId(), apiUrl: useId(), apiUrlHelp: useId() };

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = { name: name.trim(), type, active };
      if (needsApiUrl(type)) body.api_url = apiUrl.trim();
      onCreated(await sendJson<Integration>('POST', integrationsPath(project), body));
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };

  return (
    <form className="card form-card" aria-label="Add integration" onSubmit={(event) => void submit(event)}>
      <h5 className="form-title">Add integration</h5>
      {error !== null && <ErrorNotice message={error} />}
      <div className="field">
        <label htmlFor={ids.type}>Type</label>
        <select
          id={ids.type}
          value={type}
          onChange={(event) => setType(event.target.value as IntegrationType)}
        >
          {INTEGRATION_TYPES.map((t) => (
            <option key={t} value={t}>
              {INTEGRATION_TYPE_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder={type === 'prometheus' ? 'Prometheus' : 'My monitoring tool'}
        />
      </div>
      {needsApiUrl(type) && (
        <div className="field">
          <label htmlFor={ids.apiUrl}>API URL</label>
          <input
            id={ids.apiUrl}
            type="url"
            required
            value={apiUrl}
            onChange={(event) => setApiUrl(event.target.value)}
            placeholder={
              type === 'prometheus' ? 'https://prometheus.example.com' : 'https://oncall.example.com'
            }
            aria-describedby={ids.apiUrlHelp}
          />
          <span id={ids.apiUrlHelp} className="help">
            {type === 'prometheus'
              ? 'The URL of your Prometheus server (used for links back to it).'
              : 'The page of your on-call tool that responders should open. Needs the Premium or Ultimate tier.'}
          </span>
        </div>
      )}
      <div className="checkbox">
        <input
          id={ids.active}
          type="checkbox"
          checked={active}
          onChange={(event) => setActive(event.target.checked)}
        />
        <label htmlFor={ids.active}>Active</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save integration'}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const EDIT_TAB_LABELS: Record<EditTab, string> = {
  configure: 'Configure',
  credentials: 'View credentials',
  test: 'Send test alert',
};

function IntegrationEditor({
  project,
  integration,
  initialTab,
  onChanged,
  onDeleted,
  onClose,
}: {
  readonly project: Project;
  readonly integration: Integration;
  readonly initialTab: EditTab;
  readonly onChanged: (integration: Integration) => void;
  readonly onDeleted: (name: string) => void;
  readonly onClose: () => void;
}) {
  const tabs: readonly EditTab[] =
    integration.type === 'oncall_link' ? ['configure'] : ['configure', 'credentials', 'test'];
  const [tab, setTab] = useState<EditTab>(tabs.includes(initialTab) ? initialTab : 'configure');
  const [message, setMessage] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const baseId = useId();
  const path = `${integrationsPath(project)}/${integration.id}`;

  const select = (t: EditTab): void => {
    setTab(t);
    setMessage(null);
  };
  const changed = (updated: Integration, text: string): void => {
    setMessage(text);
    onChanged(updated);
  };

  const remove = async (): Promise<void> => {
    setDeleting(true);
    setDeleteError(null);
    try {
      await sendJson<null>('DELETE', path);
      setConfirmDelete(false);
      onDeleted(integration.name);
    } catch (err) {
      setDeleteError(describeError(err));
      setDeleting(false);
    }
  };

  return (
    <section className="card editor" aria-labelledby={`${baseId}-title`}>
      <div className="panel-header">
        <h4 id={`${baseId}-title`}>
          {integration.name}{' '}
          <span className="muted inline small">{INTEGRATION_TYPE_LABELS[integration.type]}</span>
        </h4>
        <div className="actions">
          <button
            type="button"
            className="button button-small button-danger-outline"
            onClick={() => setConfirmDelete(true)}
          >
            Delete integration
          </button>
          <button type="button" className="button button-small" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      {deleteError !== null && !confirmDelete && <ErrorNotice message={deleteError} />}
      <TabList
        label="Integration settings"
        tabs={tabs}
        selected={tab}
        onSelect={select}
        tabId={(t) => `${baseId}-tab-${t}`}
        panelId={(t) => `${baseId}-panel-${t}`}
      >
        {(t) => EDIT_TAB_LABELS[t]}
      </TabList>
      <div
        className="subtab-panel"
        role="tabpanel"
        id={`${baseId}-panel-${tab}`}
        aria-labelledby={`${baseId}-tab-${tab}`}
      >
        {message !== null && <SuccessNotice>{message}</SuccessNotice>}
        {tab === 'configure' &&
          (integration.type === 'http' ? (
            <FieldsLoader path={path} version={integration.updated_at}>
              {(fields) => (
                <ConfigureForm
                  key={integration.updated_at}
                  path={path}
                  integration={integration}
                  fields={fields}
                  onSaved={changed}
                />
              )}
            </FieldsLoader>
          ) : (
            <ConfigureForm
              key={integration.updated_at}
              path={path}
              integration={integration}
              fields={[]}
              onSaved={changed}
            />
          ))}
        {tab === 'credentials' && <Credentials path={path} integration={integration} onReset={changed} />}
        {tab === 'test' && <SendTestAlert project={project} path={path} integration={integration} />}
      </div>
      <ConfirmDialog
        open={confirmDelete}
        title="Delete integration?"
        confirmLabel="Delete integration"
        danger
        busy={deleting}
        onConfirm={() => void remove()}
        onCancel={() => {
          setConfirmDelete(false);
          setDeleteError(null);
        }}
      >
        <p>
          <strong>{integration.name}</strong> will stop accepting alerts. Alerts it already received stay.
        </p>
        {deleteError !== null && <ErrorNotice message={deleteError} />}
      </ConfirmDialog>
    </section>
  );
}

/** The select value for a mapping entry: its path as JSON, so equal paths compare equal as strings. */
const pathKey = (path: readonly (string | number)[]): string => JSON.stringify(path);

function initialSelection(integration: Integration): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of MAPPING_FIELDS) {
    const entry = integration.payload_attribute_mapping[f.key];
    out[f.key] = entry ? pathKey(entry.path) : '';
  }
  return out;
}

function ConfigureForm({
  path,
  integration,
  fields,
  onSaved,
}: {
  readonly path: string;
  readonly integration: Integration;
  readonly fields: readonly PayloadField[];
  readonly onSaved: (integration: Integration, message: string) => void;
}) {
  const [name, setName] = useState(integration.name);
  const [active, setActive] = useState(integration.active);
  const [apiUrl, setApiUrl] = useState(integration.api_url ?? '');
  const [payload, setPayload] = useState(integration.payload_example);
  const [selection, setSelection] = useState(() => initialSelection(integration));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { name: useId(), active: useId(), apiUrl: useId(), payload: useId(), payloadHelp: useId() };
  const isHttp = integration.type === 'http';
  const payloadChanged = payload !== integration.payload_example;
  const initial = initialSelection(integration);
  const mappingChanged = MAPPING_FIELDS.some((f) => selection[f.key] !== initial[f.key]);

  const save = async (body: Record<string, unknown>, message: string): Promise<void> => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      onSaved(await sendJson<Integration>('PUT', path, body), message);
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const body: Record<string, unknown> = { name: name.trim(), active };
    if (needsApiUrl(integration.type)) body.api_url = apiUrl.trim();
    let message = 'Integration saved.';
    // Only send the payload parts when they changed: on the Free tier any of them is refused. A new sample
    // payload clears the mapping on the server, so a mapping of the old fields is not sent with it.
    if (isHttp && payloadChanged) {
      body.payload_example = payload;
      message = 'Integration saved. The sample payload changed, so map its fields again.';
    } else if (isHttp && mappingChanged) {
      body.payload_attribute_mapping = buildMapping(selection, fields, integration);
    }
    void save(body, message);
  };

  return (
    <form aria-label="Configure integration" onSubmit={submit}>
      {error !== null && <ErrorNotice message={error} />}
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input id={ids.name} required value={name} onChange={(event) => setName(event.target.value)} />
      </div>
      {needsApiUrl(integration.type) && (
        <div className="field">
          <label htmlFor={ids.apiUrl}>API URL</label>
          <input
            id={ids.apiUrl}
            type="url"
            required
            value={apiUrl}
            onChange={(event) => setApiUrl(event.target.value)}
          />
        </div>
      )}
      <div className="checkbox">
        <input
          id={ids.active}
          type="checkbox"
          checked={active}
          onChange={(event) => setActive(event.target.checked)}
        />
        <label htmlFor={ids.active}>Active</label>
      </div>
      {isHttp && (
        <fieldset className="fieldset">
          <legend>Custom payload mapping</legend>
          <p className="help">
            Paste an example of what your tool sends, parse it, then choose which of its fields fill each
            alert field. Without a mapping, the generic fields (title, description, start_time, severity, …)
            are read. Custom mappings need the Premium or Ultimate tier.
          </p>
          <div className="field">
            <label htmlFor={ids.payload}>Sample payload (JSON)</label>
            <textarea
              id={ids.payload}
              className="code-input"
              rows={8}
              spellCheck={false}
              value={payload}
              onChange={(event) => setPayload(event.target.value)}
            />
          </div>
          <div className="actions">
            <button
              type="button"
              className="button"
              disabled={busy || !payloadChanged}
              onClick={() =>
                void save({ payload_example: payload }, 'Sample payload saved. Map its fields below.')
              }
            >
              Parse payload fields
            </button>
          </div>
          <MappingTable
            fields={fields}
            selection={selection}
            disabled={payloadChanged}
            onChange={(key, value) => setSelection((s) => ({ ...s, [key]: value }))}
          />
        </fieldset>
      )}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save integration'}
        </button>
      </div>
    </form>
  );
}

/**
 * Loads the payload fields of an HTTP integration before its form renders, and again when the integration
 * changes (`version`), keeping the old fields on screen meanwhile so a save does not blank the form.
 */
function FieldsLoader({
  path,
  version,
  children,
}: {
  readonly path: string;
  readonly version: string;
  readonly children: (fields: readonly PayloadField[]) => ReactNode;
}) {
  const fields = useResource<PayloadField[]>(`${path}/payload_fields`, Date.parse(version) || 0);
  if (fields.status === 'loading') return <Loading />;
  if (fields.status === 'error') {
    return (
      <>
        <ErrorNotice message={`Could not read the payload fields: ${fields.message}`} />
        {children([])}
      </>
    );
  }
  return <>{children(fields.data)}</>;
}

function buildMapping(
  selection: Record<string, string>,
  fields: readonly PayloadField[],
  integration: Integration,
): Record<string, PayloadMapping> {
  const out: Record<string, PayloadMapping> = {};
  for (const f of MAPPING_FIELDS) {
    const chosen = selection[f.key];
    if (!chosen) continue;
    const field = fields.find((p) => pathKey(p.path) === chosen);
    if (!field) {
      // Not among the parsed fields (the sample changed elsewhere): keep what was saved.
      const saved = integration.payload_attribute_mapping[f.key];
      if (saved) out[f.key] = saved;
      continue;
    }
    // A datetime is also a string, so it may fill a string field; the type sent is the one the field takes.
    const type = f.types.includes(field.type) ? field.type : 'string';
    out[f.key] = { path: field.path, type, label: field.label };
  }
  return out;
}

function compatible(alertTypes: readonly string[], fieldType: string): boolean {
  return alertTypes.includes(fieldType) || (fieldType === 'datetime' && alertTypes.includes('string'));
}

function MappingTable({
  fields,
  selection,
  disabled,
  onChange,
}: {
  readonly fields: readonly PayloadField[];
  readonly selection: Record<string, string>;
  readonly disabled: boolean;
  readonly onChange: (key: string, value: string) => void;
}) {
  const baseId = useId();
  if (fields.length === 0) {
    return <p className="muted">Parse a sample payload to map its fields.</p>;
  }
  return (
    <table className="table mapping-table">
      <caption className="visually-hidden">Payload field mapping</caption>
      <thead>
        <tr>
          <th scope="col">Alert field</th>
          <th scope="col">Payload field</th>
        </tr>
      </thead>
      <tbody>
        {MAPPING_FIELDS.map((f) => {
          const options = fields.filter((p) => compatible(f.types, p.type));
          const id = `${baseId}-${f.key}`;
          return (
            <tr key={f.key}>
              <th scope="row">
                <label htmlFor={id}>{f.label}</label>
                <span className="muted small">{f.types.join(' or ')}</span>
              </th>
              <td>
                <select
                  id={id}
                  aria-label={`Payload field for ${f.label}`}
                  value={selection[f.key] ?? ''}
                  disabled={disabled}
                  onChange={(event) => onChange(f.key, event.target.value)}
                >
                  <option value="">Default (not mapped)</option>
                  {options.map((p) => (
                    <option key={pathKey(p.path)} value={pathKey(p.path)}>
                      {`${p.label} (${p.type})${exampleText(p.example)}`}
                    </option>
                  ))}
                </select>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function exampleText(example: unknown): string {
  const text = typeof example === 'string' ? example : JSON.stringify(example);
  if (text === undefined || text === '') return '';
  return ` = ${text.length > 30 ? `${text.slice(0, 29)}…` : text}`;
}

function Credentials({
  path,
  integration,
  onReset,
}: {
  readonly path: string;
  readonly integration: Integration;
  readonly onReset: (integration: Integration, message: string) => void;
}) {
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { url: useId(), key: useId() };
  const key = integration.authorization_key ?? '';

  const reset = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const updated = await sendJson<Integration>('POST', `${path}/reset_authorization_key`);
      setConfirm(false);
      setBusy(false);
      onReset(updated, 'A new authorization key was generated. The old key no longer works.');
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };

  return (
    <div>
      {error !== null && !confirm && <ErrorNotice message={error} />}
      <p className="help">
        {integration.type === 'prometheus'
          ? 'In Alertmanager, add a webhook receiver with this URL and send the key as a bearer token.'
          : 'Send alerts as JSON with POST to this URL, with the header Authorization: Bearer <key>.'}
      </p>
      <div className="field">
        <label htmlFor={ids.url}>Webhook URL</label>
        <div className="input-group">
          <input id={ids.url} readOnly value={integration.url ?? ''} onFocus={(e) => e.target.select()} />
          <CopyButton text={integration.url ?? ''} label="Copy webhook URL" />
        </div>
      </div>
      <div className="field">
        <label htmlFor={ids.key}>Authorization key</label>
        <div className="input-group">
          <input id={ids.key} readOnly value={key} onFocus={(e) => e.target.select()} className="mono" />
          <CopyButton text={key} label="Copy authorization key" />
        </div>
      </div>
      {integration.type === 'prometheus' && (
        <details className="help-details">
          <summary>Alertmanager configuration</summary>
          <pre className="code-block">{alertmanagerConfig(integration.url ?? '', key)}</pre>
        </details>
      )}
      <div className="actions">
        <button type="button" className="button" onClick={() => setConfirm(true)}>
          Reset key
        </button>
      </div>
      <ConfirmDialog
        open={confirm}
        title="Reset authorization key?"
        confirmLabel="Reset key"
        danger
        busy={busy}
        onConfirm={() => void reset()}
        onCancel={() => {
          setConfirm(false);
          setError(null);
        }}
      >
        <p>Tools that send alerts with the current key will be refused until they get the new one.</p>
        {error !== null && <ErrorNotice message={error} />}
      </ConfirmDialog>
    </div>
  );
}

function alertmanagerConfig(url: string, key: string): string {
  return [
    'receivers:',
    '  - name: svc',
    '    webhook_configs:',
    `      - url: '${url}'`,
    '        send_resolved: true',
    '        http_config:',
    '          authorization:',
    '            type: Bearer',
    `            credentials: '${key}'`,
  ].join('\n');
}

function SendTestAlert({
  project,
  path,
  integration,
}: {
  readonly project: Project;
  readonly path: string;
  readonly integration: Integration;
}) {
  const example = integration.payload_example.trim();
  const [text, setText] = useState(example === '' || example === '{}' ? DEFAULT_TEST_PAYLOAD : example);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<
    | { readonly ok: true; readonly alerts: { iid: number; title: string }[] }
    | { readonly ok: false; readonly message: string }
    | null
  >(null);
  const id = useId();
  const helpId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setResult(null);
    try {
      // Sent as text, so the server parses it and explains what is wrong with invalid JSON.
      const alerts = await postText<{ iid: number; title: string }[]>(`${path}/test`, text);
      setResult({ ok: true, alerts: Array.isArray(alerts) ? alerts : [] });
    } catch (err) {
      setResult({ ok: false, message: describeError(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form aria-label="Send test alert" onSubmit={(event) => void submit(event)}>
      {result !== null && !result.ok && <ErrorNotice message={result.message} />}
      {result?.ok && (
        <SuccessNotice>
          Test alert sent.{' '}
          {result.alerts.length > 0 ? (
            <>
              Alert{result.alerts.length > 1 ? 's' : ''}:{' '}
              {result.alerts.map((a, i) => (
                <span key={a.iid}>
                  {i > 0 && ', '}
                  <Link to={paths.alert(project.id, a.iid)}>
                    #{a.iid} {a.title}
                  </Link>
                </span>
              ))}
            </>
          ) : (
            'No alert was created (a resolving payload or an inactive integration).'
          )}
        </SuccessNotice>
      )}
      <div className="field">
        <label htmlFor={id}>Alert test payload (JSON)</label>
        <textarea
          id={id}
          className="code-input"
          rows={8}
          spellCheck={false}
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-describedby={helpId}
        />
        <span id={helpId} className="help">
          {integration.type === 'prometheus'
            ? 'An Alertmanager webhook payload. It is processed like a real one and appears in the Alerts tab.'
            : 'It is processed like a real alert (mapping, grouping by fingerprint) and appears in the Alerts tab.'}
        </span>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy || text.trim() === ''}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </div>
    </form>
  );
}

function AlertSettingsForm({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/alert_management/settings`;
  const settings = useResource<AlertSettings>(path);
  const headingId = useId();
  return (
    <section className="subsection" aria-labelledby={headingId}>
      <h4 id={headingId}>Alert settings</h4>
      <ResourceView resource={settings}>
        {(loaded) => <AlertSettingsFields path={path} initial={loaded} />}
      </ResourceView>
    </section>
  );
}

function AlertSettingsFields({ path, initial }: { readonly path: string; readonly initial: AlertSettings }) {
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const ids = { create: useId(), close: useId(), closeHelp: useId() };
  const dirty =
    draft.create_incident !== saved.create_incident ||
    draft.auto_close_incident !== saved.auto_close_incident;

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      const next = await sendJson<AlertSettings>('PUT', path, draft);
      setSaved(next);
      setDraft(next);
      setDone(true);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form aria-label="Alert settings" onSubmit={(event) => void submit(event)}>
      {error !== null && <ErrorNotice message={error} />}
      {done && <SuccessNotice>Alert settings saved.</SuccessNotice>}
      <div className="checkbox">
        <input
          id={ids.create}
          type="checkbox"
          checked={draft.create_incident}
          onChange={(event) => setDraft((d) => ({ ...d, create_incident: event.target.checked }))}
        />
        <label htmlFor={ids.create}>Create an incident for each alert</label>
      </div>
      <div className="checkbox">
        <input
          id={ids.close}
          type="checkbox"
          checked={draft.auto_close_incident}
          aria-describedby={ids.closeHelp}
          onChange={(event) => setDraft((d) => ({ ...d, auto_close_incident: event.target.checked }))}
        />
        <label htmlFor={ids.close}>Close the incident automatically on recovery</label>
      </div>
      <p id={ids.closeHelp} className="help checkbox-help">
        When a recovery alert resolves an alert, its incident is closed too.
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy || !dirty}>
          {busy ? 'Saving…' : 'Save alert settings'}
        </button>
      </div>
    </form>
  );
}
