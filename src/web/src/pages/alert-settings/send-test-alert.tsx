import { type FormEvent, useId, useState } from 'react';
import { postText } from '../../api';
import { ErrorNotice, SuccessNotice } from '../../components';
import { Link, paths } from '../../router';
import type { IntakeResult, Integration, Project } from '../../types';
import { useAction } from '../../use-action';

const DEFAULT_TEST_PAYLOAD = JSON.stringify(
  { title: 'Test alert', description: 'Sent from the integration settings', severity: 'low' },
  null,
  2,
);

/** Sends a test payload through the integration; the alerts it creates are linked. */
export function SendTestAlert({
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
  const action = useAction();
  // The alerts the last test created (null before a test, during one, and after a failed one).
  const [alerts, setAlerts] = useState<IntakeResult | null>(null);
  const id = useId();
  const helpId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (action.busy) return;
    setAlerts(null);
    await action.run(async () => {
      // Sent as text, so the server parses it and explains what is wrong with invalid JSON.
      const created = await postText<IntakeResult>(`${path}/test`, text);
      setAlerts(Array.isArray(created) ? created : []);
    });
  };

  return (
    <form aria-label="Send test alert" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {alerts !== null && (
        <SuccessNotice>
          Test alert sent.{' '}
          {alerts.length > 0 ? (
            <>
              Alert{alerts.length > 1 ? 's' : ''}:{' '}
              {alerts.map((a, i) => (
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
        <button type="submit" className="button button-primary" disabled={action.busy || text.trim() === ''}>
          {action.busy ? 'Sending…' : 'Send'}
        </button>
      </div>
    </form>
  );
}
