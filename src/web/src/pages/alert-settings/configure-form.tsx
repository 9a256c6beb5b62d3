import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { sendJson } from '../../api';
import { ErrorNotice, Loading } from '../../components';
import { FieldError, fieldError, invalidProps } from '../../form-fields';
import type { Integration, PayloadField } from '../../types';
import { useAction } from '../../use-action';
import { useResource } from '../../use-resource';
import { needsApiUrl } from './integrations';
import { buildMapping, initialSelection, MAPPING_FIELDS, MappingTable, RESOLVED_VALUES_KEY } from './mapping';

/** An integration's name, state, API URL and (HTTP endpoints) sample payload and field mapping. */
export function ConfigureForm({
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
  const action = useAction();
  const ids = { name: useId(), active: useId(), apiUrl: useId(), payload: useId(), payloadHelp: useId() };
  const errorIds = { name: useId(), apiUrl: useId(), payload: useId(), mapping: useId() };
  const refused = {
    name: fieldError(action.fields, 'name'),
    apiUrl: fieldError(action.fields, 'api_url'),
    payload: fieldError(action.fields, 'payload_example'),
    mapping: fieldError(action.fields, 'payload_attribute_mapping'),
  };
  const isHttp = integration.type === 'http';
  const payloadChanged = payload !== integration.payload_example;
  const initial = initialSelection(integration);
  const mappingChanged =
    MAPPING_FIELDS.some((f) => selection[f.key] !== initial[f.key]) ||
    (Boolean(selection.status) && selection[RESOLVED_VALUES_KEY] !== initial[RESOLVED_VALUES_KEY]);

  const save = async (body: Record<string, unknown>, message: string): Promise<void> => {
    await action.run(async () => {
      onSaved(await sendJson<Integration>('PUT', path, body), message);
    });
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
      {action.error !== null && <ErrorNotice message={action.error} />}
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
          {...invalidProps(refused.name, errorIds.name)}
        />
        <FieldError id={errorIds.name} error={refused.name} />
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
            {...invalidProps(refused.apiUrl, errorIds.apiUrl)}
          />
          <FieldError id={errorIds.apiUrl} error={refused.apiUrl} />
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
              {...invalidProps(refused.payload, errorIds.payload)}
            />
            <FieldError id={errorIds.payload} error={refused.payload} />
          </div>
          <div className="actions">
            <button
              type="button"
              className="button"
              disabled={action.busy || !payloadChanged}
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
          <FieldError id={errorIds.mapping} error={refused.mapping} />
        </fieldset>
      )}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save integration'}
        </button>
      </div>
    </form>
  );
}

/**
 * Loads the payload fields of an HTTP integration before its form renders, and again when the integration
 * changes (`version`), keeping the old fields on screen meanwhile so a save does not blank the form.
 */
export function FieldsLoader({
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
