import { type FormEvent, useId, useState } from 'react';
import { INTEGRATION_TYPE_LABELS, INTEGRATION_TYPES } from '../../alert-labels';
import { sendJson } from '../../api';
import { ErrorNotice } from '../../components';
import { FieldError, fieldError, invalidProps } from '../../form-fields';
import type { Integration, IntegrationType, Project } from '../../types';
import { useAction } from '../../use-action';
import { integrationsPath, needsApiUrl } from './integrations';

/** Creates an integration (name, type, active, and the API URL of the types that have one). */
export function AddIntegrationForm({
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
  const [intervalSeconds, setIntervalSeconds] = useState('300');
  const [graceSeconds, setGraceSeconds] = useState('60');
  const action = useAction();
  const ids = { name: useId(), type: useId(), active: useId(), apiUrl: useId(), apiUrlHelp: useId() };
  const beatIds = { interval: useId(), grace: useId(), help: useId() };
  const errorIds = { name: useId(), type: useId(), apiUrl: useId(), interval: useId(), grace: useId() };
  // Refusals by the field the API names (`{"message": {"heartbeat.interval_seconds": ["must be …"]}}`).
  const refused = {
    name: fieldError(action.fields, 'name'),
    type: fieldError(action.fields, 'type'),
    apiUrl: fieldError(action.fields, 'api_url'),
    interval: fieldError(action.fields, 'heartbeat.interval_seconds', 'heartbeat'),
    grace: fieldError(action.fields, 'heartbeat.grace_seconds'),
  };

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const body: Record<string, unknown> = { name: name.trim(), type, active };
      if (needsApiUrl(type)) body.api_url = apiUrl.trim();
      if (type === 'heartbeat')
        body.heartbeat = { interval_seconds: Number(intervalSeconds), grace_seconds: Number(graceSeconds) };
      onCreated(await sendJson<Integration>('POST', integrationsPath(project), body));
    });
  };

  return (
    <form className="card form-card" aria-label="Add integration" onSubmit={(event) => void submit(event)}>
      <h5 className="form-title">Add integration</h5>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <div className="field">
        <label htmlFor={ids.type}>Type</label>
        <select
          id={ids.type}
          value={type}
          onChange={(event) => setType(event.target.value as IntegrationType)}
          {...invalidProps(refused.type, errorIds.type)}
        >
          {INTEGRATION_TYPES.map((t) => (
            <option key={t} value={t}>
              {INTEGRATION_TYPE_LABELS[t]}
            </option>
          ))}
        </select>
        <FieldError id={errorIds.type} error={refused.type} />
      </div>
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
          placeholder={type === 'prometheus' ? 'Prometheus' : 'My monitoring tool'}
          {...invalidProps(refused.name, errorIds.name)}
        />
        <FieldError id={errorIds.name} error={refused.name} />
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
            {...invalidProps(refused.apiUrl, errorIds.apiUrl, ids.apiUrlHelp)}
          />
          <FieldError id={errorIds.apiUrl} error={refused.apiUrl} />
          <span id={ids.apiUrlHelp} className="help">
            {type === 'prometheus'
              ? 'The URL of your Prometheus server (used for links back to it).'
              : 'The page of your on-call tool that responders should open. Needs the Premium or Ultimate tier.'}
          </span>
        </div>
      )}
      {type === 'heartbeat' && (
        <>
          <div className="field">
            <label htmlFor={beatIds.interval}>Interval (seconds)</label>
            <input
              id={beatIds.interval}
              type="number"
              min={10}
              required
              value={intervalSeconds}
              onChange={(event) => setIntervalSeconds(event.target.value)}
              {...invalidProps(refused.interval, errorIds.interval, beatIds.help)}
            />
            <FieldError id={errorIds.interval} error={refused.interval} />
          </div>
          <div className="field">
            <label htmlFor={beatIds.grace}>Grace period (seconds)</label>
            <input
              id={beatIds.grace}
              type="number"
              min={0}
              required
              value={graceSeconds}
              onChange={(event) => setGraceSeconds(event.target.value)}
              {...invalidProps(refused.grace, errorIds.grace, beatIds.help)}
            />
            <FieldError id={errorIds.grace} error={refused.grace} />
            <span id={beatIds.help} className="help">
              Your job calls the heartbeat URL (GET or POST, with the key) at least this often; when no call
              arrives within the interval plus the grace period, an alert &ldquo;Heartbeat missed&rdquo;
              opens.
            </span>
          </div>
        </>
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
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save integration'}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={action.busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
