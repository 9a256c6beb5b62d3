import { useId } from 'react';
import { TableScroll } from '../../components';
import type { Integration, PayloadField, PayloadMapping } from '../../types';

/** Alert fields a custom mapping may fill, with the payload types each accepts (the server's table). */
export const MAPPING_FIELDS: readonly {
  readonly key: string;
  readonly label: string;
  readonly types: string[];
}[] = [
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
  { key: 'status', label: 'Status', types: ['string'] },
];

/** The selection key of the status field's resolved values (comma-separated text). */
export const RESOLVED_VALUES_KEY = 'status.resolved_values';

/** Comma-separated text as the list of values that mean resolved. */
const resolvedValues = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** The select value for a mapping entry: its path as JSON, so equal paths compare equal as strings. */
const pathKey = (path: readonly (string | number)[]): string => JSON.stringify(path);

export function initialSelection(integration: Integration): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of MAPPING_FIELDS) {
    const entry = integration.payload_attribute_mapping[f.key];
    out[f.key] = entry ? pathKey(entry.path) : '';
  }
  out[RESOLVED_VALUES_KEY] = integration.payload_attribute_mapping.status?.resolved_values?.join(', ') ?? '';
  return out;
}

export function buildMapping(
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
    } else {
      // A datetime is also a string, so it may fill a string field; the type sent is the one the field takes.
      const type = f.types.includes(field.type) ? field.type : 'string';
      out[f.key] = { path: [...field.path], type, label: field.label };
    }
    const entry = out[f.key];
    if (f.key === 'status' && entry) {
      out[f.key] = { ...entry, resolved_values: resolvedValues(selection[RESOLVED_VALUES_KEY]) };
    }
  }
  return out;
}

function compatible(alertTypes: readonly string[], fieldType: string): boolean {
  return alertTypes.includes(fieldType) || (fieldType === 'datetime' && alertTypes.includes('string'));
}

export function MappingTable({
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
  const resolvedId = `${baseId}-resolved-values`;
  if (fields.length === 0) {
    return <p className="muted">Parse a sample payload to map its fields.</p>;
  }
  return (
    <TableScroll label="Payload mapping">
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
                  {f.key === 'status' && (
                    <div className="field">
                      <label htmlFor={resolvedId}>Values that mean resolved</label>
                      <input
                        id={resolvedId}
                        value={selection[RESOLVED_VALUES_KEY] ?? ''}
                        disabled={disabled || !selection.status}
                        required={Boolean(selection.status)}
                        placeholder="resolved, ok, Recovered"
                        aria-describedby={`${resolvedId}-help`}
                        onChange={(event) => onChange(RESOLVED_VALUES_KEY, event.target.value)}
                      />
                      <span id={`${resolvedId}-help`} className="muted small">
                        Comma-separated, any case. A payload whose status is one of them resolves the alert
                        with the same fingerprint.
                      </span>
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

function exampleText(example: unknown): string {
  const text = typeof example === 'string' ? example : JSON.stringify(example);
  if (text === undefined || text === '') return '';
  return ` = ${text.length > 30 ? `${text.slice(0, 29)}…` : text}`;
}
