import { type FormEvent, useId, useState } from 'react';
import { ApiError, describeError, signIn } from '../api';
import { ErrorNotice } from '../components';
import type { Session } from '../types';
import { useAction } from '../use-action';

/** The sign-in form: username or email plus password, posted to `/-/session`. */
export function SignInPage({ onSignedIn }: { readonly onSignedIn: (session: Session) => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction(signInError);
  const loginId = useId();
  const passwordId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const ok = await action.run(async () => onSignedIn(await signIn(login.trim(), password)));
    if (!ok) setPassword('');
  };

  return (
    <main className="sign-in">
      <div className="card sign-in-card">
        <h1>Sign in to svc</h1>
        {action.error !== null && <ErrorNotice message={action.error} />}
        <form onSubmit={(event) => void submit(event)} aria-label="Sign in">
          <div className="field">
            <label htmlFor={loginId}>Username or email</label>
            <input
              id={loginId}
              name="login"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              required
              value={login}
              onChange={(event) => setLogin(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={passwordId}>Password</label>
            <input
              id={passwordId}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </div>
          <button type="submit" className="button button-primary button-block" disabled={action.busy}>
            {action.busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}

// GitLab's body reads "401 Unauthorized - Invalid login or password."; the reason alone is what a person needs.
function signInError(err: unknown): string {
  const message = describeError(err);
  if (!(err instanceof ApiError) || err.status !== 401) return message;
  return message.replace(/^401 Unauthorized\s*-\s*/, '') || message;
}
