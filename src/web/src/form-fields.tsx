import { type ReactNode, useId, useState } from 'react';

/** A labelled text input (`type` text, email, password, date, datetime-local, time, number, url), with optional help. */
export function TextField({
  label,
  value,
  onChange,
  type = 'text',
  required = false,
  help,
  placeholder,
  autoComplete,
  min,
  max,
  mono = false,
  error,
}: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly type?: 'text' | 'email' | 'password' | 'date' | 'datetime-local' | 'time' | 'number' | 'url';
  readonly required?: boolean;
  readonly help?: ReactNode;
  readonly placeholder?: string;
  readonly autoComplete?: string;
  readonly min?: number | string;
  readonly max?: number | string;
  readonly mono?: boolean;
  /** Why the server refused this field's value, shown under it (`Action.fields`). */
  readonly error?: string | undefined;
}) {
  const id = useId();
  const helpId = useId();
  const errorId = useId();
  return (
    <div className="field narrow-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        value={value}
        required={required}
        placeholder={placeholder}
        autoComplete={autoComplete}
        min={min}
        max={max}
        className={mono ? 'mono' : undefined}
        aria-describedby={describedBy(help ? helpId : null, error ? errorId : null)}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      <FieldError id={errorId} error={error} />
      {help ? (
        <span id={helpId} className="help">
          {help}
        </span>
      ) : null}
    </div>
  );
}

/** A labelled select over `options` (value, label). */
export function SelectField({
  label,
  value,
  onChange,
  options,
  help,
  error,
}: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly options: readonly { readonly value: string; readonly label: string }[];
  readonly help?: ReactNode;
  /** Why the server refused this field's value, shown under it (`Action.fields`). */
  readonly error?: string | undefined;
}) {
  const id = useId();
  const helpId = useId();
  const errorId = useId();
  return (
    <div className="field narrow-field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-describedby={describedBy(help ? helpId : null, error ? errorId : null)}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.target.value)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldError id={errorId} error={error} />
      {help ? (
        <span id={helpId} className="help">
          {help}
        </span>
      ) : null}
    </div>
  );
}

function describedBy(...ids: readonly (string | null)[]): string | undefined {
  const present = ids.filter((id) => id !== null);
  return present.length > 0 ? present.join(' ') : undefined;
}

/**
 * What ties a hand-built control to its refusal (and its help, if any): `aria-invalid` and `aria-describedby`,
 * for forms whose controls are not `TextField`s; the sentence itself goes under it as a `FieldError`.
 */
export function invalidProps(
  error: string | undefined,
  errorId: string,
  helpId: string | null = null,
): { 'aria-invalid': true | undefined; 'aria-describedby': string | undefined } {
  return {
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy(helpId, error ? errorId : null),
  };
}

/** A field's refusal, as a sentence under it. */
export function FieldError({ id, error }: { readonly id: string; readonly error: string | undefined }) {
  if (!error) return null;
  return (
    <span id={id} className="field-error">
      {error}
    </span>
  );
}

/** The first sentence `fields` has for any of `names` (a form field the API may name in more than one way). */
export function fieldError(
  fields: Readonly<Record<string, string>>,
  ...names: readonly string[]
): string | undefined {
  for (const name of names) if (fields[name]) return fields[name];
  return undefined;
}

/** A labelled checkbox with optional help. */
export function CheckboxField({
  label,
  checked,
  onChange,
  help,
}: {
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly help?: ReactNode;
}) {
  const id = useId();
  const helpId = useId();
  return (
    <>
      <div className="checkbox">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-describedby={help ? helpId : undefined}
          onChange={(event) => onChange(event.target.checked)}
        />
        <label htmlFor={id}>{label}</label>
      </div>
      {help ? (
        <p id={helpId} className="help checkbox-help">
          {help}
        </p>
      ) : null}
    </>
  );
}

/** GitLab's visibility levels, for project and group forms. */
export const VISIBILITY_OPTIONS = [
  { value: 'private', label: 'Private: only members' },
  { value: 'internal', label: 'Internal: any signed-in user' },
  { value: 'public', label: 'Public: anyone' },
] as const;

/** GitLab's roles, for member forms. */
export const ACCESS_LEVELS = [
  { value: '10', label: 'Guest' },
  { value: '20', label: 'Reporter' },
  { value: '30', label: 'Developer' },
  { value: '40', label: 'Maintainer' },
  { value: '50', label: 'Owner' },
] as const;

/**
 * A name and its URL path, which follows the name (`pathFromName`) until the user edits the path: GitLab's new
 * group and new project forms.
 */
export function useNameAndPath() {
  const [name, setName] = useState('');
  const [editedPath, setPath] = useState<string | null>(null);
  return { name, setName, path: editedPath ?? pathFromName(name), setPath };
}

/** A URL path segment from a name, as GitLab suggests one: lower case, dashes, no leading or trailing dash. */
export function pathFromName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/\.(git|atom)$/, '');
}

/** The query parameter `name` of the current URL, or null. */
export function queryParam(name: string): string | null {
  return new URLSearchParams(window.location.search).get(name);
}
