import { type FormEvent, useId, useState } from 'react';
import { sendJson } from '../../api';
import { ErrorNotice, ResourceView, SuccessNotice } from '../../components';
import type { AlertSettings, Project } from '../../types';
import { useAction } from '../../use-action';
import { useResource } from '../../use-resource';

/** What alerts do on arrival: create an incident, close it on recovery, e-mail the Owners and Maintainers. */
export function AlertSettingsForm({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/alert_management/settings`;
  const settings = useResource<AlertSettings>(path);
  const headingId = useId();
  return (
    <section className="subsection" aria-labelledby={headingId}>
      <h4 id={headingId}>Alert settings</h4>
      <ResourceView resource={settings}>
        {(loaded) => <AlertSettingsFields path={path} initial={loaded} />}
      </ResourceView>
    </section>
  );
}

function AlertSettingsFields({ path, initial }: { readonly path: string; readonly initial: AlertSettings }) {
  const [saved, setSaved] = useState(initial);
  const [draft, setDraft] = useState(initial);
  const action = useAction();
  const ids = { create: useId(), close: useId(), closeHelp: useId(), email: useId(), emailHelp: useId() };
  const dirty =
    draft.create_incident !== saved.create_incident ||
    draft.auto_close_incident !== saved.auto_close_incident ||
    draft.send_email !== saved.send_email;

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const next = await sendJson<AlertSettings>('PUT', path, draft);
      setSaved(next);
      setDraft(next);
      return 'Alert settings saved.';
    });
  };

  return (
    <form aria-label="Alert settings" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <div className="checkbox">
        <input
          id={ids.create}
          type="checkbox"
          checked={draft.create_incident}
          onChange={(event) => setDraft((d) => ({ ...d, create_incident: event.target.checked }))}
        />
        <label htmlFor={ids.create}>Create an incident for each alert</label>
      </div>
      <div className="checkbox">
        <input
          id={ids.close}
          type="checkbox"
          checked={draft.auto_close_incident}
          aria-describedby={ids.closeHelp}
          onChange={(event) => setDraft((d) => ({ ...d, auto_close_incident: event.target.checked }))}
        />
        <label htmlFor={ids.close}>Close the incident automatically on recovery</label>
      </div>
      <p id={ids.closeHelp} className="help checkbox-help">
        When a recovery alert resolves an alert, its incident is closed too.
      </p>
      <div className="checkbox">
        <input
          id={ids.email}
          type="checkbox"
          checked={draft.send_email}
          aria-describedby={ids.emailHelp}
          onChange={(event) => setDraft((d) => ({ ...d, send_email: event.target.checked }))}
        />
        <label htmlFor={ids.email}>Send an e-mail to Owners and Maintainers for each new alert</label>
      </div>
      <p id={ids.emailHelp} className="help checkbox-help">
        One e-mail per new alert (none for repeats), and one when an e-mailed alert recovers.
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy || !dirty}>
          {action.busy ? 'Saving…' : 'Save alert settings'}
        </button>
      </div>
    </form>
  );
}
