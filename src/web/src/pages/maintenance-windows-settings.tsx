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
import { SelectField, TextField } from '../form-fields';
import type { Integration, MaintenanceWindow, Project } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** An ISO time from a `datetime-local` value (the browser's time zone), or undefined when empty. */
function isoFromLocal(value: string): string | undefined {
  return value === '' ? undefined : new Date(value).toISOString();
}

/**
 * Settings > Maintenance windows: planned periods in which the whole project, or one alert integration, pages,
 * e-mails and calls hooks for no one (alerts are still stored); list, plan, end early, delete a planned one.
 */
export function MaintenanceWindowsSettings({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/alert_management/maintenance_windows`;
  const [refresh, setRefresh] = useState(0);
  const windows = useResource<MaintenanceWindow[]>(`${path}?per_page=100`, refresh);
  // Reporters may not list integrations: the form then offers the whole project only.
  const integrations = useResource<Integration[]>(
    `/api/v4/projects/${project.id}/alert_management/integrations`,
  );
  const integrationList = integrations.status === 'ok' ? integrations.data : [];
  const headingId = useId();
  const changed = () => setRefresh((n) => n + 1);
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h3 id={headingId}>Maintenance windows</h3>
      <p className="muted">
        While a window is active, alerts of its scope are stored and counted but page, e-mail and call hooks
        for no one. When it ends, alerts still firing escalate and notify as new.
      </p>
      <ResourceView resource={windows}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No maintenance windows yet.</p>
          ) : (
            <TableScroll label="Maintenance windows">
              <table className="table" aria-label="Maintenance windows">
                <thead>
                  <tr>
                    <th>Scope</th>
                    <th>Starts</th>
                    <th>Ends</th>
                    <th>State</th>
                    <th>Comment</th>
                    <th>Created by</th>
                    <th>
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((w) => (
                    <WindowRow
                      key={w.id}
                      path={`${path}/${w.id}`}
                      window={w}
                      scope={scopeLabel(w, integrationList)}
                      onChanged={changed}
                    />
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </ResourceView>
      <AddWindowForm path={path} integrations={integrationList} onAdded={changed} />
    </section>
  );
}

function scopeLabel(w: MaintenanceWindow, integrations: readonly Integration[]): string {
  if (w.integration_id === null) return 'Whole project';
  const i = integrations.find((x) => x.id === w.integration_id);
  return i ? `Integration: ${i.name}` : `Integration #${w.integration_id}`;
}

function WindowRow({
  path,
  window: w,
  scope,
  onChanged,
}: {
  readonly path: string;
  readonly window: MaintenanceWindow;
  readonly scope: string;
  readonly onChanged: () => void;
}) {
  const action = useAction();
  const [confirming, setConfirming] = useState(false);
  // DELETE ends an active window now and deletes one that has not started.
  const verb = w.state === 'active' ? 'End now' : 'Delete';
  const confirm = async (): Promise<void> => {
    const ok = await action.run(() => sendJson('DELETE', path));
    setConfirming(false);
    if (ok) onChanged();
  };
  return (
    <tr aria-label={`Maintenance window ${w.id}`}>
      <td>{scope}</td>
      <td>
        <Timestamp value={w.starts_at} />
      </td>
      <td>
        <Timestamp value={w.ends_at} />
      </td>
      <td>
        <span className="badge">{w.state}</span>
      </td>
      <td>{w.comment}</td>
      <td>{w.created_by?.username ?? '–'}</td>
      <td>
        {action.error !== null && <ErrorNotice message={action.error} />}
        {w.state !== 'expired' && (
          <button
            type="button"
            className={w.state === 'active' ? 'button button-small' : 'button button-small button-danger'}
            disabled={action.busy}
            onClick={() => setConfirming(true)}
          >
            {verb}
          </button>
        )}
        <ConfirmDialog
          open={confirming}
          title={
            w.state === 'active' ? 'End this maintenance window now?' : 'Delete this maintenance window?'
          }
          confirmLabel={verb}
          danger={w.state !== 'active'}
          busy={action.busy}
          onConfirm={() => void confirm()}
          onCancel={() => setConfirming(false)}
        >
          <p>
            {w.state === 'active'
              ? 'Alerts of its scope that still fire will page, e-mail and call hooks now.'
              : 'It has not started; it will be removed.'}
          </p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}

function AddWindowForm({
  path,
  integrations,
  onAdded,
}: {
  readonly path: string;
  readonly integrations: readonly Integration[];
  readonly onAdded: () => void;
}) {
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [scope, setScope] = useState('');
  const [comment, setComment] = useState('');
  const action = useAction();
  const commentId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson('POST', path, {
        ...(startsAt !== '' && { starts_at: isoFromLocal(startsAt) }),
        ends_at: isoFromLocal(endsAt),
        integration_id: scope === '' ? null : Number(scope),
        comment,
      });
      setStartsAt('');
      setEndsAt('');
      setComment('');
      onAdded();
      return 'Maintenance window added.';
    });
  };
  return (
    <form aria-label="Add maintenance window" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField
        label="Starts"
        type="datetime-local"
        value={startsAt}
        onChange={setStartsAt}
        help="Empty: now."
      />
      <TextField label="Ends" type="datetime-local" required value={endsAt} onChange={setEndsAt} />
      <SelectField
        label="Scope"
        value={scope}
        onChange={setScope}
        options={[
          { value: '', label: 'Whole project' },
          ...integrations.map((i) => ({ value: String(i.id), label: `Integration: ${i.name}` })),
        ]}
      />
      <div className="field">
        <label htmlFor={commentId}>Comment</label>
        <textarea id={commentId} required value={comment} onChange={(e) => setComment(e.target.value)} />
      </div>
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={action.busy || endsAt === '' || comment.trim() === ''}
        >
          {action.busy ? 'Adding…' : 'Add maintenance window'}
        </button>
      </div>
    </form>
  );
}
