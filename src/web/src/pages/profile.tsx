import { type FormEvent, useEffect, useState } from 'react';
import { sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice } from '../components';
import { fieldError, TextField } from '../form-fields';
import { Link, paths } from '../router';
import type { CurrentUser, SessionUser } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/**
 * The signed-in user's own settings: name and e-mail, and a password change that asks for the current password
 * and ends every other session (the one in this browser stays).
 */
export function ProfilePage({ onChanged }: { readonly onChanged: (user: SessionUser) => void }) {
  const me = useResource<CurrentUser>('/api/v4/user');
  return (
    <>
      <h1>Profile</h1>
      <ResourceView resource={me}>
        {(user) => (
          <>
            <p className="muted">
              Signed in as @{user.username} · <Link to={paths.user(user.username)}>Your public page</Link>
            </p>
            <ProfileForm user={user} onChanged={onChanged} />
            <PasswordForm />
          </>
        )}
      </ResourceView>
    </>
  );
}

function ProfileForm({
  user,
  onChanged,
}: {
  readonly user: CurrentUser;
  readonly onChanged: (user: SessionUser) => void;
}) {
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const action = useAction();
  useEffect(() => {
    setName(user.name);
    setEmail(user.email);
  }, [user]);
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      onChanged(await sendJson<SessionUser>('PUT', '/-/profile', { name: name.trim(), email: email.trim() }));
      return 'Profile saved.';
    });
  };
  return (
    <form className="card form-card" aria-label="Profile" onSubmit={(event) => void submit(event)}>
      <h2 className="form-title">Name and e-mail</h2>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField
        label="Full name"
        error={fieldError(action.fields, 'name')}
        value={name}
        onChange={setName}
        required
        autoComplete="name"
      />
      <TextField
        label="E-mail"
        error={fieldError(action.fields, 'email')}
        type="email"
        value={email}
        onChange={setEmail}
        required
        autoComplete="email"
        help="Pages, alerts and error notifications are sent here."
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          Save profile
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (next !== confirm) {
      action.fail('The new password and its confirmation differ.');
      return;
    }
    const ok = await action.run(async () => {
      await sendJson('PUT', '/-/profile/password', { current_password: current, new_password: next });
      return 'Password changed. Every other session of yours has been signed out.';
    });
    setCurrent('');
    if (ok) {
      setNext('');
      setConfirm('');
    }
  };
  return (
    <form className="card form-card" aria-label="Change password" onSubmit={(event) => void submit(event)}>
      <h2 className="form-title">Change password</h2>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField
        label="Current password"
        error={fieldError(action.fields, 'current_password')}
        type="password"
        value={current}
        onChange={setCurrent}
        required
        autoComplete="current-password"
      />
      <TextField
        label="New password"
        error={fieldError(action.fields, 'password')}
        type="password"
        value={next}
        onChange={setNext}
        required
        autoComplete="new-password"
        help="At least 8 characters."
      />
      <TextField
        label="Confirm new password"
        type="password"
        value={confirm}
        onChange={setConfirm}
        required
        autoComplete="new-password"
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          Change password
        </button>
      </div>
    </form>
  );
}
