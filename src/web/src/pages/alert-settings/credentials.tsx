import { useId, useState } from 'react';
import { sendJson } from '../../api';
import { ConfirmDialog, CopyButton, ErrorNotice } from '../../components';
import type { Integration } from '../../types';
import { useAction } from '../../use-action';

/** The webhook URL and authorization key of an integration, and resetting the key. */
export function Credentials({
  path,
  integration,
  onReset,
}: {
  readonly path: string;
  readonly integration: Integration;
  readonly onReset: (integration: Integration, message: string) => void;
}) {
  const [confirm, setConfirm] = useState(false);
  const action = useAction();
  const ids = { url: useId(), key: useId() };
  const key = integration.authorization_key ?? '';

  const reset = async (): Promise<void> => {
    await action.run(async () => {
      const updated = await sendJson<Integration>('POST', `${path}/reset_authorization_key`);
      setConfirm(false);
      onReset(updated, 'A new authorization key was generated. The old key no longer works.');
    });
  };

  return (
    <div>
      {action.error !== null && !confirm && <ErrorNotice message={action.error} />}
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
        busy={action.busy}
        onConfirm={() => void reset()}
        onCancel={() => {
          setConfirm(false);
          action.reset();
        }}
      >
        <p>Tools that send alerts with the current key will be refused until they get the new one.</p>
        {action.error !== null && <ErrorNotice message={action.error} />}
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
