import { type FormEvent, useState } from 'react';
import { sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice, TableScroll } from '../components';
import { CheckboxField, TextField } from '../form-fields';
import { Link, paths } from '../router';
import type { AdminUser, SessionUser } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';
import { AdminNav, AdminOnly } from './admin';

// Offset pagination on /users is removed from 17.0 (deprecation catalog): the UI uses keyset pagination.
const USERS_PATH = '/api/v4/users?pagination=keyset&order_by=id&sort=asc&per_page=100';

/** Admin area > Users: create users; block and unblock; grant and revoke administrator access. */
export function AdminUsersPage({ user }: { readonly user: SessionUser }) {
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const users = useResource<AdminUser[]>(USERS_PATH, version);
  const action = useAction();
  if (!user.is_admin) return <AdminOnly />;

  const act = async (label: string, fn: () => Promise<unknown>): Promise<void> => {
    setNotice(null);
    const ok = await action.run(fn);
    if (ok) {
      setNotice(label);
      setVersion((v) => v + 1);
    }
  };

  return (
    <>
      <h1>Admin area</h1>
      <AdminNav current="users" />
      <div className="panel-header">
        <h2>Users</h2>
        {!creating && (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            New user
          </button>
        )}
      </div>
      {notice !== null && <SuccessNotice>{notice}</SuccessNotice>}
      {action.error !== null && <ErrorNotice message={action.error} />}
      {creating && (
        <NewUserForm
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setNotice(`User @${created.username} created.`);
            setVersion((v) => v + 1);
          }}
        />
      )}
      <ResourceView resource={users}>
        {(list) => (
          <TableScroll label="Users">
            <table className="table" aria-label="Users">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">State</th>
                  <th scope="col">Role</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((u) => {
                  const self = u.id === user.id;
                  const blocked = u.state === 'blocked';
                  return (
                    <tr key={u.id}>
                      <td>
                        <Link to={paths.user(u.username)}>{u.name}</Link>{' '}
                        <span className="muted">@{u.username}</span>
                        {self ? <span className="badge">It's you</span> : null}
                      </td>
                      <td>
                        <span className={blocked ? 'status status-disabled' : 'status status-enabled'}>
                          {u.state}
                        </span>
                      </td>
                      <td>{u.is_admin ? 'Administrator' : 'Regular'}</td>
                      <td className="actions-cell">
                        <div className="actions">
                          <button
                            type="button"
                            className="button button-small"
                            disabled={self || action.busy}
                            title={self ? 'You cannot change your own administrator access here' : undefined}
                            aria-label={`${u.is_admin ? 'Revoke admin from' : 'Make admin'} ${u.username}`}
                            onClick={() =>
                              void act(
                                u.is_admin
                                  ? `@${u.username} is no longer an administrator.`
                                  : `@${u.username} is now an administrator.`,
                                () => sendJson('PUT', `/api/v4/users/${u.id}`, { admin: !u.is_admin }),
                              )
                            }
                          >
                            {u.is_admin ? 'Revoke admin' : 'Make admin'}
                          </button>
                          <button
                            type="button"
                            className={
                              blocked ? 'button button-small' : 'button button-small button-danger-outline'
                            }
                            disabled={self || action.busy}
                            title={self ? 'You cannot block yourself' : undefined}
                            aria-label={`${blocked ? 'Unblock' : 'Block'} ${u.username}`}
                            onClick={() =>
                              void act(
                                blocked
                                  ? `@${u.username} is unblocked.`
                                  : `@${u.username} is blocked: they cannot sign in, and their tokens stop working.`,
                                () =>
                                  sendJson('POST', `/api/v4/users/${u.id}/${blocked ? 'unblock' : 'block'}`),
                              )
                            }
                          >
                            {blocked ? 'Unblock' : 'Block'}
                          </button>
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        )}
      </ResourceView>
    </>
  );
}

function NewUserForm({
  onCreated,
  onCancel,
}: {
  readonly onCreated: (user: AdminUser) => void;
  readonly onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      const created = await sendJson<AdminUser>('POST', '/api/v4/users', {
        name: name.trim(),
        username: username.trim(),
        email: email.trim(),
        password,
        admin,
        skip_confirmation: true,
      });
      onCreated(created);
    });
  };
  return (
    <form className="card form-card" aria-label="New user" onSubmit={(event) => void submit(event)}>
      <h3 className="form-title">New user</h3>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <TextField label="Name" value={name} onChange={setName} required />
      <TextField label="Username" value={username} onChange={setUsername} required mono />
      <TextField label="Email" type="email" value={email} onChange={setEmail} required />
      <TextField
        label="Password"
        type="password"
        value={password}
        onChange={setPassword}
        required
        autoComplete="new-password"
        help="At least 8 characters. Give it to the user over a safe channel."
      />
      <CheckboxField
        label="Administrator"
        checked={admin}
        onChange={setAdmin}
        help="Administrators can do everything, including this."
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create user'}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={action.busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
