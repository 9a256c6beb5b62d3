import { type FormEvent, useState } from 'react';
import { sendJson } from '../api';
import { Breadcrumbs, ErrorNotice, ResourceView } from '../components';
import {
  fieldError,
  queryParam,
  SelectField,
  TextField,
  useNameAndPath,
  VISIBILITY_OPTIONS,
} from '../form-fields';
import { navigate, paths } from '../router';
import { useSessionUser } from '../session-user';
import type { Namespace, Project } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** "New project": name, path, namespace (the user's own or a group), visibility, description. */
export function NewProjectPage() {
  const namespaces = useResource<Namespace[]>('/api/v4/namespaces?per_page=100');
  return (
    <>
      <Breadcrumbs links={[{ to: paths.projects(), label: 'Projects' }]} current="New project" />
      <h1>New project</h1>
      <p className="muted">
        A project holds alerts, errors and a repository. Create it in your personal namespace or in a group
        you maintain.
      </p>
      <ResourceView resource={namespaces}>{(list) => <NewProjectForm namespaces={list} />}</ResourceView>
    </>
  );
}

function NewProjectForm({ namespaces }: { readonly namespaces: readonly Namespace[] }) {
  const wanted = Number(queryParam('namespace_id'));
  const me = useSessionUser()?.username;
  // Admins see every namespace: their own is the default, not the first user's.
  const own = namespaces.find((n) => n.kind === 'user' && n.full_path === me);
  const initial = namespaces.find((n) => n.id === wanted) ?? own ?? namespaces[0];
  const { name, setName, path: shownPath, setPath } = useNameAndPath();
  const [namespaceId, setNamespaceId] = useState(String(initial?.id ?? ''));
  const [visibility, setVisibility] = useState('private');
  const [description, setDescription] = useState('');
  const action = useAction();
  const namespace = namespaces.find((n) => String(n.id) === namespaceId);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const body: Record<string, unknown> = { name: name.trim(), visibility, description };
      if (shownPath !== '') body.path = shownPath;
      if (namespaceId !== '') body.namespace_id = Number(namespaceId);
      const created = await sendJson<Project>('POST', '/api/v4/projects', body);
      navigate(paths.project(created.id, 'settings'));
    });
  };

  return (
    <form className="card form-card" aria-label="New project" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <TextField
        label="Project name"
        error={fieldError(action.fields, 'name')}
        value={name}
        onChange={setName}
        required
        placeholder="My app"
      />
      <SelectField
        label="Namespace"
        error={fieldError(action.fields, 'namespace', 'namespace_id', 'parent_id')}
        value={namespaceId}
        onChange={setNamespaceId}
        options={namespaces.map((n) => ({
          value: String(n.id),
          label: n === own ? `${n.full_path} (you)` : n.full_path,
        }))}
        help="Your personal namespace, or a group in which you are at least a Maintainer."
      />
      <TextField
        label="Project slug"
        error={fieldError(action.fields, 'path')}
        value={shownPath}
        onChange={setPath}
        mono
        help={
          <>
            The project's URL:{' '}
            <code>
              /{namespace?.full_path ?? '…'}/{shownPath || '…'}
            </code>
          </>
        }
      />
      <SelectField
        label="Visibility"
        error={fieldError(action.fields, 'visibility', 'visibility_level')}
        value={visibility}
        onChange={setVisibility}
        options={VISIBILITY_OPTIONS}
      />
      <TextField
        label="Description (optional)"
        error={fieldError(action.fields, 'description')}
        value={description}
        onChange={setDescription}
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create project'}
        </button>
      </div>
    </form>
  );
}
