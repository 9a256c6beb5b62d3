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
import type { Group } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** "New group" (or subgroup, with a parent): name, path, parent, visibility, description. */
export function NewGroupPage() {
  // Subgroups need Maintainer of the parent (40).
  const parents = useResource<Group[]>('/api/v4/groups?min_access_level=40&per_page=100&order_by=path');
  return (
    <>
      <Breadcrumbs links={[{ to: paths.groups(), label: 'Groups' }]} current="New group" />
      <h1>New group</h1>
      <p className="muted">
        Groups gather projects and people: members of a group are members of its subgroups and projects.
      </p>
      <ResourceView resource={parents}>{(list) => <NewGroupForm parents={list} />}</ResourceView>
    </>
  );
}

function NewGroupForm({ parents }: { readonly parents: readonly Group[] }) {
  const wanted = queryParam('parent_id') ?? '';
  const { name, setName, path: shownPath, setPath } = useNameAndPath();
  const [parentId, setParentId] = useState(parents.some((g) => String(g.id) === wanted) ? wanted : '');
  const [visibility, setVisibility] = useState('private');
  const [description, setDescription] = useState('');
  const action = useAction();
  const parent = parents.find((g) => String(g.id) === parentId);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const body: Record<string, unknown> = { name: name.trim(), path: shownPath, visibility, description };
      if (parentId !== '') body.parent_id = Number(parentId);
      const created = await sendJson<Group>('POST', '/api/v4/groups', body);
      navigate(paths.group(created.full_path));
    });
  };

  return (
    <form className="card form-card" aria-label="New group" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <TextField
        label="Group name"
        error={fieldError(action.fields, 'name')}
        value={name}
        onChange={setName}
        required
        placeholder="My team"
      />
      <SelectField
        label="Parent group"
        error={fieldError(action.fields, 'namespace', 'namespace_id', 'parent_id')}
        value={parentId}
        onChange={setParentId}
        options={[
          { value: '', label: 'None (a top-level group)' },
          ...parents.map((g) => ({ value: String(g.id), label: g.full_path })),
        ]}
        help="Choose a parent to create a subgroup (you must be at least a Maintainer of it)."
      />
      <TextField
        label="Group URL"
        error={fieldError(action.fields, 'path')}
        value={shownPath}
        onChange={setPath}
        required
        mono
        help={
          <>
            The group's URL:{' '}
            <code>
              /groups/{parent ? `${parent.full_path}/` : ''}
              {shownPath || '…'}
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
          {action.busy ? 'Creating…' : 'Create group'}
        </button>
      </div>
    </form>
  );
}
