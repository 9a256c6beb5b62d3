import { useId, useState } from 'react';
import { INTEGRATION_TYPE_LABELS } from '../../alert-labels';
import { sendJson } from '../../api';
import { ConfirmDialog, ErrorNotice, SuccessNotice, TabList, Timestamp } from '../../components';
import type { Integration, IntegrationType, Project } from '../../types';
import { useAction } from '../../use-action';
import { ConfigureForm, FieldsLoader } from './configure-form';
import { Credentials } from './credentials';
import { type EditTab, integrationsPath } from './integrations';
import { SendTestAlert } from './send-test-alert';

const EDIT_TAB_LABELS: Record<EditTab, string> = {
  configure: 'Configure',
  credentials: 'View credentials',
  test: 'Send test alert',
};

/** One integration: configure, view credentials, send a test alert, or delete it. */
export function IntegrationEditor({
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
  const deletion = useAction();
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
    await deletion.run(async () => {
      await sendJson<null>('DELETE', path);
      setConfirmDelete(false);
      onDeleted(integration.name);
    });
  };

  return (
    <section className="card editor" aria-labelledby={`${baseId}-title`}>
      <div className="panel-header">
        <h4 id={`${baseId}-title`}>
          {integration.name}{' '}
          <span className="muted inline small">
            {INTEGRATION_TYPE_LABELS[integration.type as IntegrationType]}
          </span>
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
      {deletion.error !== null && !confirmDelete && <ErrorNotice message={deletion.error} />}
      <IntegrationWarnings integration={integration} />
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
        busy={deletion.busy}
        onConfirm={() => void remove()}
        onCancel={() => {
          setConfirmDelete(false);
          deletion.reset();
        }}
      >
        <p>
          <strong>{integration.name}</strong> will stop accepting alerts. Alerts it already received stay.
        </p>
        {deletion.error !== null && <ErrorNotice message={deletion.error} />}
      </ConfirmDialog>
    </section>
  );
}

/** What the server noticed about how this integration's alerts arrive (see `warnings` in the API). */
export function IntegrationWarnings({ integration }: { readonly integration: Integration }) {
  if (integration.warnings.length === 0) return null;
  return (
    <ul className="notice notice-warning integration-warnings" aria-label="Integration warnings">
      {integration.warnings.map((w) => (
        <li key={w.code} data-code={w.code}>
          {w.message}
          {w.recorded_at !== null && (
            <>
              {' '}
              <span className="muted small">
                (first seen <Timestamp value={w.recorded_at} />; saving the integration clears this)
              </span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
