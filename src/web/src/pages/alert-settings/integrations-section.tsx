import { useId, useState } from 'react';
import { INTEGRATION_TYPE_LABELS } from '../../alert-labels';
import { ResourceView, SuccessNotice, TableScroll } from '../../components';
import type { Integration, IntegrationType, Project } from '../../types';
import { useResource } from '../../use-resource';
import { AddIntegrationForm } from './add-integration-form';
import { IntegrationEditor } from './integration-editor';
import { type EditTab, integrationsPath } from './integrations';

/** The project's integrations: the list, the add form and the editor of the one selected. */
export function IntegrationsSection({ project }: { readonly project: Project }) {
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
            <TableScroll label="Integrations">
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
                      <td>{INTEGRATION_TYPE_LABELS[i.type as IntegrationType] ?? i.type}</td>
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
            </TableScroll>
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
