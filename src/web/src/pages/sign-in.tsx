import { type FormEvent, useId, useState } from 'react';
import { ApiError, describeError, signIn } from '../api';
import { ErrorNotice } from '../components';
import type { Session } from '../types';

/** The sign-in form: username or email plus password, posted to `/-/session`. */
export function SignInPage({ onSignedIn }: { readonly onSignedIn: (session: Session) => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const loginId = useId();
  const passwordId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(login.trim(), password));
    } catch (err) {
      setError(signInError(err));
      setPassword('');
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <div className="card sign-in-card">
        <h1>Sign in to svc</h1>
        {error !== null && <ErrorNotice message={error} />}
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
          <button type="submit" className="button button-primary button-block" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
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
