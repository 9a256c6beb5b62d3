import { type FormEvent, useState } from 'react';
import { sendJson } from '../api';
import { ConfirmDialog, ErrorNotice, SuccessNotice } from '../components';
import { TextField } from '../form-fields';
import { navigate, paths } from '../router';
import type { Group, Project } from '../types';
import { useAction } from '../use-action';

/** What the rename/path/delete sections need of a project or a group. */
interface Renamable {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  /** `path_with_namespace` of a project, `full_path` of a group: what the delete confirmation asks to type. */
  readonly fullPath: string;
}

const WHAT = { projects: 'project', groups: 'group' } as const;

/**
 * A project's or a group's name, path and deletion, with GitLab's rules left to the API (who may rename, who
 * may change the path, who may delete: its refusal is shown as a sentence). Changing the path moves every URL
 * and the clone URL; the old path redirects, as in GitLab. Deleting asks for the full path typed out.
 */
export function RenameAndDelete({
  kind,
  target,
  onChanged,
}: {
  readonly kind: 'projects' | 'groups';
  readonly target: Renamable;
  readonly onChanged: (after: { readonly fullPath: string }) => void;
}) {
  const what = WHAT[kind];
  return (
    <section className="settings-section" aria-labelledby={`${what}-advanced`}>
      <h3 id={`${what}-advanced`}>Name, path and deletion</h3>
      <NameAndPathForm kind={kind} target={target} onChanged={onChanged} />
      <DeleteForm kind={kind} target={target} />
    </section>
  );
}

function NameAndPathForm({
  kind,
  target,
  onChanged,
}: {
  readonly kind: 'projects' | 'groups';
  readonly target: Renamable;
  readonly onChanged: (after: { readonly fullPath: string }) => void;
}) {
  const what = WHAT[kind];
  const [name, setName] = useState(target.name);
  const [path, setPath] = useState(target.path);
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const body: Record<string, string> = {};
      if (name.trim() !== target.name) body.name = name.trim();
      if (path.trim() !== target.path) body.path = path.trim();
      if (Object.keys(body).length === 0) return 'Nothing to change.';
      const saved = await sendJson<Project | Group>('PUT', `/api/v4/${kind}/${target.id}`, body);
      onChanged({ fullPath: 'path_with_namespace' in saved ? saved.path_with_namespace : saved.full_path });
      return body.path ? `Saved. The old path redirects to the new one.` : 'Saved.';
    });
  };
  return (
    <form className="card form-card" aria-label={`Rename ${what}`} onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField
        label={`${what === 'project' ? 'Project' : 'Group'} name`}
        value={name}
        onChange={setName}
        required
      />
      <TextField
        label="Path"
        value={path}
        onChange={setPath}
        required
        mono
        help={
          kind === 'projects'
            ? 'Changes the URL and the clone URL; update your remotes (git follows the redirect for a while).'
            : 'Changes the URL of the group and of every project and subgroup in it.'
        }
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          Save name and path
        </button>
      </div>
    </form>
  );
}

function DeleteForm({ kind, target }: { readonly kind: 'projects' | 'groups'; readonly target: Renamable }) {
  const what = WHAT[kind];
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const action = useAction();
  const remove = async (): Promise<void> => {
    const ok = await action.run(() => sendJson('DELETE', `/api/v4/${kind}/${target.id}`));
    if (ok) navigate(kind === 'projects' ? paths.projects() : paths.groups());
  };
  return (
    <div className="card form-card danger-zone">
      <h4 className="form-title">Delete this {what}</h4>
      <p className="muted">
        {kind === 'projects'
          ? 'Its alerts, incidents, errors, settings and repository are deleted. This cannot be undone.'
          : 'Its subgroups and projects, with everything in them, are deleted. This cannot be undone.'}
      </p>
      <div className="actions">
        <button
          type="button"
          className="button button-danger-outline"
          onClick={() => {
            action.reset();
            setTyped('');
            setOpen(true);
          }}
        >
          Delete {what}
        </button>
      </div>
      <ConfirmDialog
        open={open}
        title={`Delete ${target.fullPath}?`}
        confirmLabel={`Yes, delete ${what}`}
        danger
        busy={action.busy}
        confirmDisabled={typed !== target.fullPath}
        onConfirm={() => void remove()}
        onCancel={() => setOpen(false)}
      >
        <p>
          Type <code>{target.fullPath}</code> to confirm.
        </p>
        <TextField label="Full path" value={typed} onChange={setTyped} mono />
        {action.error !== null && <ErrorNotice message={action.error} />}
      </ConfirmDialog>
    </div>
  );
}
