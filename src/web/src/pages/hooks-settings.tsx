import { type FormEvent, useId, useState } from 'react';
import { sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice, Timestamp } from '../components';
import type { HookDelivery, Project, ProjectHook } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** Settings > Webhooks: the project's hooks, why one was disabled, and each hook's recent deliveries. */
export function HooksSettings({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/hooks`;
  const [refresh, setRefresh] = useState(0);
  const hooks = useResource<ProjectHook[]>(path, refresh);
  const headingId = useId();
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
                <HookItem key={h.id} path={`${path}/${h.id}`} hook={h} />
              ))}
            </ul>
          )
        }
      </ResourceView>
      <AddHookForm path={path} onAdded={() => setRefresh((n) => n + 1)} />
    </section>
  );
}

function HookItem({ path, hook }: { readonly path: string; readonly hook: ProjectHook }) {
  const deliveries = useResource<HookDelivery[]>(`${path}/events?per_page=20`);
  const events = [hook.alert_events && 'alerts', hook.error_tracking_events && 'errors']
    .filter(Boolean)
    .join(', ');
  return (
    <li aria-label={`Webhook ${hook.url}`}>
      <p>
        <code>{hook.url}</code> {hook.name ? `(${hook.name}) ` : ''}
        <span className="badge">{hook.alert_status}</span>{' '}
        <span className="muted">{events || 'no events'}</span>
      </p>
      {hook.disabled_reason && <ErrorNotice message={`Disabled: ${hook.disabled_reason}`} />}
      {!hook.disabled_reason && hook.alert_status === 'temporarily_disabled' && hook.disabled_until && (
        <ErrorNotice
          message={`Temporarily disabled until ${hook.disabled_until}: its last deliveries failed. Editing the hook or a successful test enables it now.`}
        />
      )}
      <ResourceView resource={deliveries}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No deliveries yet.</p>
          ) : (
            <table aria-label={`Recent deliveries of ${hook.url}`}>
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Status</th>
                  <th>Response</th>
                  <th>Duration</th>
                  <th>Attempts</th>
                  <th>Error</th>
                  <th>Time</th>
                </tr>
              </thead>
              <tbody>
                {list.map((d) => (
                  <tr key={d.id}>
                    <td>{d.trigger}</td>
                    <td>{d.status}</td>
                    <td>{d.response_status ?? '–'}</td>
                    <td>
                      {d.execution_duration === null ? '–' : `${Math.round(d.execution_duration * 1000)} ms`}
                    </td>
                    <td>{d.attempts}</td>
                    <td>{d.error ?? ''}</td>
                    <td>
                      <Timestamp value={d.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </ResourceView>
    </li>
  );
}

function AddHookForm({ path, onAdded }: { readonly path: string; readonly onAdded: () => void }) {
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [alerts, setAlerts] = useState(true);
  const [errors, setErrors] = useState(true);
  const action = useAction();
  const ids = { url: useId(), token: useId(), alerts: useId(), errors: useId() };
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson('POST', path, {
        url,
        ...(token && { token }),
        alert_events: alerts,
        error_tracking_events: errors,
      });
      setUrl('');
      setToken('');
      onAdded();
      return 'Webhook added.';
    });
  };
  return (
    <form aria-label="Add webhook" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <label htmlFor={ids.url}>URL</label>
      <input id={ids.url} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      <label htmlFor={ids.token}>Secret token</label>
      <input id={ids.token} type="password" value={token} onChange={(e) => setToken(e.target.value)} />
      <div className="checkbox">
        <input
          id={ids.alerts}
          type="checkbox"
          checked={alerts}
          onChange={(e) => setAlerts(e.target.checked)}
        />
        <label htmlFor={ids.alerts}>Alert events</label>
      </div>
      <div className="checkbox">
        <input
          id={ids.errors}
          type="checkbox"
          checked={errors}
          onChange={(e) => setErrors(e.target.checked)}
        />
        <label htmlFor={ids.errors}>Error tracking events</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy || url === ''}>
          {action.busy ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
    </form>
  );
}
