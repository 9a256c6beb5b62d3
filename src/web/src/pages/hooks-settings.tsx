import { type FormEvent, useId, useState } from 'react';
import { sendJson } from '../api';
import {
  ConfirmDialog,
  ErrorNotice,
  ResourceView,
  SuccessNotice,
  TableScroll,
  Timestamp,
} from '../components';
import { CheckboxField, FieldError, fieldError, invalidProps, TextField } from '../form-fields';
import type { HookDelivery, Project, ProjectHook } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** Settings > Webhooks: the project's hooks, why one was disabled, and each hook's recent deliveries. */
export function HooksSettings({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/hooks`;
  const [refresh, setRefresh] = useState(0);
  const hooks = useResource<ProjectHook[]>(path, refresh);
  const headingId = useId();
  const changed = (): void => setRefresh((n) => n + 1);
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h3 id={headingId}>Webhooks</h3>
      <p className="muted">
        Alert and error events are POSTed as JSON to each URL, with the secret token in{' '}
        <code>X-Svc-Token</code>.
      </p>
      <ResourceView resource={hooks}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No webhooks yet.</p>
          ) : (
            <ul className="hook-list">
              {list.map((h) => (
                <HookItem key={h.id} path={`${path}/${h.id}`} hook={h} onChanged={changed} />
              ))}
            </ul>
          )
        }
      </ResourceView>
      <HookForm path={path} hook={null} onSaved={changed} onCancel={null} />
    </section>
  );
}

function HookItem({
  path,
  hook,
  onChanged,
}: {
  readonly path: string;
  readonly hook: ProjectHook;
  readonly onChanged: () => void;
}) {
  const [deliveriesKey, setDeliveriesKey] = useState(0);
  const deliveries = useResource<HookDelivery[]>(`${path}/events?per_page=20`, deliveriesKey);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const events = [hook.alert_events && 'alerts', hook.error_tracking_events && 'errors']
    .filter(Boolean)
    .join(', ');
  const label = hook.name || hook.url;
  // Test and resend answer at once; the log shows the new attempt either way.
  const send = (what: () => Promise<unknown>, done: string): void =>
    void action
      .run(async () => {
        try {
          await what();
          return done;
        } finally {
          setDeliveriesKey((k) => k + 1);
          onChanged();
        }
      })
      .then(() => undefined);
  return (
    <li aria-label={`Webhook ${hook.url}`} className="card hook-card">
      <div className="panel-header">
        <p>
          <code>{hook.url}</code> {hook.name ? `(${hook.name}) ` : ''}
          <span className="badge">{hook.alert_status}</span>{' '}
          <span className="muted">{events || 'no events'}</span>
        </p>
        <div className="actions">
          <button type="button" className="button button-small" onClick={() => setEditing((e) => !e)}>
            {editing ? 'Close editor' : `Edit ${label}`}
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={action.busy || !hook.alert_events}
            onClick={() =>
              send(() => sendJson('POST', `${path}/test/alert_events`), 'Test alert event sent.')
            }
          >
            Test alert event
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={action.busy || !hook.error_tracking_events}
            onClick={() =>
              send(() => sendJson('POST', `${path}/test/error_tracking_events`), 'Test error event sent.')
            }
          >
            Test error event
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            onClick={() => setConfirming(true)}
          >
            Delete {label}
          </button>
        </div>
      </div>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      {hook.disabled_reason && <ErrorNotice message={`Disabled: ${hook.disabled_reason}`} />}
      {!hook.disabled_reason && hook.alert_status === 'temporarily_disabled' && hook.disabled_until && (
        <ErrorNotice
          message={`Temporarily disabled until ${hook.disabled_until}: its last deliveries failed. Editing the hook or a successful test enables it now.`}
        />
      )}
      {editing && (
        <HookForm
          path={path}
          hook={hook}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      <ResourceView resource={deliveries}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No deliveries yet.</p>
          ) : (
            <TableScroll label={`Recent deliveries of ${hook.url}`}>
              <table className="table" aria-label={`Recent deliveries of ${hook.url}`}>
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Response</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Error</th>
                    <th scope="col">Time</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id}>
                      <td>{d.trigger}</td>
                      <td>{d.status}</td>
                      <td>{d.response_status ?? '–'}</td>
                      <td>
                        {d.execution_duration === null
                          ? '–'
                          : `${Math.round(d.execution_duration * 1000)} ms`}
                      </td>
                      <td>{d.attempts}</td>
                      <td>{d.error ?? ''}</td>
                      <td>
                        <Timestamp value={d.created_at} />
                      </td>
                      <td>
                        <button
                          type="button"
                          className="button button-small"
                          disabled={action.busy}
                          aria-label={`Resend delivery ${d.id}`}
                          onClick={() =>
                            send(
                              () => sendJson('POST', `${path}/events/${d.id}/resend`),
                              'Delivery sent again.',
                            )
                          }
                        >
                          Resend
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
      <ConfirmDialog
        open={confirming}
        title={`Delete the webhook ${label}?`}
        confirmLabel="Delete webhook"
        danger
        busy={action.busy}
        onConfirm={() =>
          void action
            .run(async () => {
              await sendJson('DELETE', path);
              setConfirming(false);
              onChanged();
            })
            .then(() => setConfirming(false))
        }
        onCancel={() => setConfirming(false)}
      >
        <p>Its delivery log goes with it; events stop being sent to {hook.url}.</p>
      </ConfirmDialog>
    </li>
  );
}

/** Adds a hook (`hook` null) or edits one: every field; a blank token keeps the stored one. */
function HookForm({
  path,
  hook,
  onSaved,
  onCancel,
}: {
  readonly path: string;
  readonly hook: ProjectHook | null;
  readonly onSaved: () => void;
  readonly onCancel: (() => void) | null;
}) {
  const [url, setUrl] = useState(hook?.url ?? '');
  const [name, setName] = useState(hook?.name ?? '');
  const [description, setDescription] = useState(hook?.description ?? '');
  const [token, setToken] = useState('');
  const [alerts, setAlerts] = useState(hook?.alert_events ?? true);
  const [errors, setErrors] = useState(hook?.error_tracking_events ?? true);
  const [ssl, setSsl] = useState(hook?.enable_ssl_verification ?? true);
  const action = useAction();
  const descriptionId = useId();
  const descriptionErrorId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson(hook ? 'PUT' : 'POST', path, {
        url,
        name,
        description,
        ...(token && { token }),
        alert_events: alerts,
        error_tracking_events: errors,
        enable_ssl_verification: ssl,
      });
      if (!hook) {
        setUrl('');
        setName('');
        setDescription('');
      }
      setToken('');
      onSaved();
      return hook ? 'Webhook saved.' : 'Webhook added.';
    });
  };
  const title = hook ? `Edit webhook ${hook.name || hook.url}` : 'Add webhook';
  return (
    <form aria-label={title} className="card form-card" onSubmit={(event) => void submit(event)}>
      <h4 className="form-title">{title}</h4>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField
        label="URL"
        type="url"
        required
        value={url}
        onChange={setUrl}
        error={fieldError(action.fields, 'url')}
      />
      <TextField label="Name" value={name} onChange={setName} error={fieldError(action.fields, 'name')} />
      <div className="field">
        <label htmlFor={descriptionId}>Description</label>
        <textarea
          id={descriptionId}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          {...invalidProps(fieldError(action.fields, 'description'), descriptionErrorId)}
        />
        <FieldError id={descriptionErrorId} error={fieldError(action.fields, 'description')} />
      </div>
      <TextField
        label="Secret token"
        error={fieldError(action.fields, 'token')}
        type="password"
        autoComplete="new-password"
        value={token}
        onChange={setToken}
        help={hook ? 'Leave empty to keep the stored token.' : 'Sent as X-Svc-Token with every delivery.'}
      />
      <CheckboxField label="Alert events" checked={alerts} onChange={setAlerts} />
      <CheckboxField label="Error tracking events" checked={errors} onChange={setErrors} />
      <CheckboxField label="Verify the TLS certificate" checked={ssl} onChange={setSsl} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy || url === ''}>
          {action.busy ? 'Saving…' : hook ? 'Save webhook' : 'Add webhook'}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
