import { type FormEvent, useId, useState } from 'react';
import { sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice } from '../components';
import { CheckboxField, SelectField, TextField, VISIBILITY_OPTIONS } from '../form-fields';
import type { ApplicationSettings, SessionUser } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';
import { AdminNav, AdminOnly } from './admin';

type SettingValue = string | number | boolean | null | readonly string[] | Record<string, number>;
/** The settings as the form edits them: each key the API answered, with its value. */
type SettingsDraft = Record<string, SettingValue>;

/** Labels, help and limits of the settings the API has (unknown ones are shown with their key). */
const DESCRIPTIONS: Readonly<
  Record<
    string,
    { readonly label: string; readonly help: string; readonly min?: number; readonly max?: number }
  >
> = {
  default_project_visibility: { label: 'Default project visibility', help: 'Preselected for new projects.' },
  default_group_visibility: { label: 'Default group visibility', help: 'Preselected for new groups.' },
  default_snippet_visibility: { label: 'Default snippet visibility', help: 'Preselected for new snippets.' },
  user_defaults_to_private_profile: {
    label: 'New users have a private profile',
    help: 'Applies to users created from now on.',
  },
  restricted_visibility_levels: {
    label: 'Restricted visibility levels',
    help: 'Levels (private, internal, public) only administrators may give projects, groups and snippets.',
  },
  default_projects_limit: {
    label: 'Default projects limit',
    help: 'Personal projects a new user may create (0: none).',
    min: 0,
  },
  signup_enabled: { label: 'Sign-up enabled', help: 'Whether people may create their own accounts.' },
  throttle_authenticated_api_enabled: {
    label: 'Limit authenticated API requests',
    help: 'Per user; beyond the limit the API answers 429 with Retry-After.',
  },
  throttle_authenticated_api_requests_per_period: {
    label: 'Authenticated API requests per period',
    help: 'Per user.',
    min: 1,
  },
  throttle_authenticated_api_period_in_seconds: {
    label: 'Authenticated API period (seconds)',
    help: 'Length of the period above.',
    min: 1,
  },
  throttle_unauthenticated_api_enabled: {
    label: 'Limit unauthenticated API requests',
    help: 'Per client address; beyond the limit the API answers 429 with Retry-After.',
  },
  throttle_unauthenticated_api_requests_per_period: {
    label: 'Unauthenticated API requests per period',
    help: 'Per client address.',
    min: 1,
  },
  throttle_unauthenticated_api_period_in_seconds: {
    label: 'Unauthenticated API period (seconds)',
    help: 'Length of the period above.',
    min: 1,
  },
  rate_limiting_response_text: {
    label: 'Rate limit response text',
    help: 'The body of a throttled answer; empty is "Retry later".',
  },
  repository_storages_weighted: {
    label: 'Repository storage weights',
    help: 'Share of new repositories each storage receives (0 to 100; 0 receives none).',
    min: 0,
    max: 100,
  },
  throttle_incident_management_notification_enabled: {
    label: 'Limit alert intake per endpoint',
    help: 'Senders beyond the limit get 429 with Retry-After.',
  },
  throttle_incident_management_notification_per_period: {
    label: 'Alerts per period',
    help: 'How many alert requests one notify URL accepts per period.',
    min: 1,
  },
  throttle_incident_management_notification_period_in_seconds: {
    label: 'Period (seconds)',
    help: 'Length of the period above.',
    min: 1,
  },
  incident_management_notification_max_alerts: {
    label: 'Alerts per Alertmanager payload',
    help: 'Larger payloads are refused with 413 (1 to 1000).',
    min: 1,
    max: 1000,
  },
  error_tracking_rate_limit_per_minute: {
    label: 'Error events per minute per client key',
    help: '0 turns the limit off; beyond it SDKs get 429.',
    min: 0,
  },
  error_tracking_retention_days: {
    label: 'Error retention (days)',
    help: 'Older error events are deleted.',
    min: 1,
  },
  allow_local_requests_from_web_hooks_and_services: {
    label: 'Allow requests to the local network',
    help: 'Lets an external Sentry on a loopback or private address be reached.',
  },
  receive_max_input_size: {
    label: 'Maximum push size (MB)',
    help: 'Larger git pushes are refused; 0 is unlimited.',
    min: 0,
    max: 1048576,
  },
  sign_in_text: { label: 'Sign-in text', help: 'Deprecated in 16.2, removed in 17.0.' },
  help_text: { label: 'Help text', help: 'Deprecated in 16.2, removed in 17.0.' },
};

/** Admin area > Settings: every application setting the API has, saved together and validated by the server. */
export function SettingsPage({ user }: { readonly user: SessionUser }) {
  const settings = useResource<ApplicationSettings>('/api/v4/application/settings');
  if (!user.is_admin) return <AdminOnly />;
  return (
    <>
      <h1>Admin area</h1>
      <AdminNav current="settings" />
      <h2>Application settings</h2>
      <ResourceView resource={settings}>{(loaded) => <SettingsForm initial={loaded} />}</ResourceView>
    </>
  );
}

/** The keys whose value changed, with their new value. */
function changes(saved: SettingsDraft, draft: SettingsDraft): SettingsDraft {
  const out: SettingsDraft = {};
  for (const [key, value] of Object.entries(draft)) {
    if (JSON.stringify(value) !== JSON.stringify(saved[key])) out[key] = value;
  }
  return out;
}

function SettingsForm({ initial }: { readonly initial: SettingsDraft }) {
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState(initial);
  const action = useAction();
  // GitLab's older name of a setting is shown beside the new one; only the new one is edited.
  const keys = Object.keys(initial).filter(
    (k) => k !== 'id' && k !== 'allow_local_requests_from_hooks_and_services',
  );
  const set = (key: string, value: SettingValue): void => {
    setDraft((d) => ({ ...d, [key]: value }));
    action.reset();
  };
  const changed = changes(saved, draft);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const next = await sendJson<ApplicationSettings>('PUT', '/api/v4/application/settings', changed);
      setSaved(next);
      setDraft(next);
      return 'Application settings saved.';
    });
  };

  return (
    <form
      className="card form-card"
      aria-label="Application settings"
      noValidate
      onSubmit={(e) => void submit(e)}
    >
      {action.error !== null && <ErrorNotice message={`Not saved: ${action.error}`} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      {keys.map((key) => (
        <SettingField key={key} name={key} value={draft[key]!} onChange={(v) => set(key, v)} />
      ))}
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={action.busy || Object.keys(changed).length === 0}
        >
          {action.busy ? 'Saving…' : 'Save changes'}
        </button>
        <button
          type="button"
          className="button"
          disabled={action.busy || Object.keys(changed).length === 0}
          onClick={() => {
            setDraft(saved);
            action.reset();
          }}
        >
          Discard
        </button>
      </div>
    </form>
  );
}

function SettingField({
  name,
  value,
  onChange,
}: {
  readonly name: string;
  readonly value: SettingValue;
  readonly onChange: (value: SettingValue) => void;
}) {
  const d = DESCRIPTIONS[name] ?? { label: name, help: '' };
  const headingId = useId();
  const help = (
    <>
      {d.help} <code className="small">{name}</code>
    </>
  );
  if (typeof value === 'boolean')
    return <CheckboxField label={d.label} checked={value} onChange={onChange} help={help} />;
  if (name.endsWith('_visibility')) {
    return (
      <SelectField
        label={d.label}
        value={String(value)}
        onChange={onChange}
        options={VISIBILITY_OPTIONS}
        help={help}
      />
    );
  }
  if (typeof value === 'number') {
    return (
      <TextField
        label={d.label}
        type="number"
        value={String(value)}
        min={d.min}
        max={d.max}
        // A field being emptied or holding a non-number is sent as is, so the server names the problem.
        onChange={(v) =>
          onChange(v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : (v as unknown as number))
        }
        help={help}
      />
    );
  }
  if (value === null) {
    // Unset (GitLab's null): typing a text sets it.
    return <TextField label={d.label} value="" onChange={onChange} help={help} />;
  }
  if (Array.isArray(value)) {
    return (
      <TextField
        label={d.label}
        value={value.join(', ')}
        onChange={(v) =>
          onChange(
            v
              .split(',')
              .map((x) => x.trim())
              .filter((x) => x !== ''),
          )
        }
        help={<>Separated by commas. {help}</>}
      />
    );
  }
  if (typeof value === 'object') {
    return (
      <fieldset className="fieldset" aria-labelledby={headingId}>
        <legend id={headingId}>{d.label}</legend>
        <p className="help">{help}</p>
        {Object.entries(value as Record<string, number>).map(([storage, weight]) => (
          <TextField
            key={storage}
            label={`Weight of ${storage}`}
            type="number"
            value={String(weight)}
            min={d.min}
            max={d.max}
            onChange={(v) =>
              onChange({ ...value, [storage]: v.trim() === '' ? (v as unknown as number) : Number(v) })
            }
          />
        ))}
      </fieldset>
    );
  }
  return <TextField label={d.label} value={String(value)} onChange={onChange} help={help} />;
}
