import { type FormEvent, useState } from 'react';
import { sendJson } from '../api';
import {
  ConfirmDialog,
  CopyButton,
  ErrorNotice,
  ResourceView,
  SuccessNotice,
  TableScroll,
  Timestamp,
} from '../components';
import { fieldError, TextField } from '../form-fields';
import type { PersonalAccessToken, SessionUser } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

/** Token scopes svc knows, with what each allows (GitLab's wording, shortened). */
const SCOPES: readonly { readonly name: string; readonly help: string; readonly adminOnly?: boolean }[] = [
  { name: 'api', help: 'Read and write everything you can, through the API and git.' },
  { name: 'read_api', help: 'Read-only access to the API.' },
  { name: 'read_user', help: 'Read your profile and other users.' },
  { name: 'read_repository', help: 'Clone and fetch repositories over HTTP.' },
  { name: 'write_repository', help: 'Push to repositories over HTTP.' },
  { name: 'create_runner', help: 'Register runners.' },
  { name: 'sudo', help: 'Act as another user (with the Sudo header).', adminOnly: true },
];

/** A date `days` from today, as the date input wants it. */
function inDays(days: number): string {
  const d = new Date();
  d.setDate(d.getDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The signed-in user's personal access tokens: create (shown once), list, revoke. */
export function TokensPage({ user }: { readonly user: SessionUser }) {
  const [version, setVersion] = useState(0);
  const [created, setCreated] = useState<PersonalAccessToken | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<PersonalAccessToken | null>(null);
  const tokens = useResource<PersonalAccessToken[]>(
    `/api/v4/personal_access_tokens?user_id=${user.id}&per_page=100`,
    version,
  );
  const revokeAction = useAction();

  const revoke = async (): Promise<void> => {
    if (!revoking) return;
    const ok = await revokeAction.run(() =>
      sendJson('DELETE', `/api/v4/personal_access_tokens/${revoking.id}`),
    );
    if (ok) {
      setNotice(`Token "${revoking.name}" revoked. Anything using it is refused from now on.`);
      setRevoking(null);
      setVersion((v) => v + 1);
    }
  };

  return (
    <>
      <h1>Personal access tokens</h1>
      <p className="muted">
        Tokens let scripts, CLIs and git use the API as you: send one in the <code>PRIVATE-TOKEN</code>{' '}
        header.
      </p>
      {created?.token && (
        <section className="card section notice-success" aria-label="Your new token">
          <h2>Your new token "{created.name}"</h2>
          <p>Copy it now: it is shown only once.</p>
          <div className="input-group">
            <input
              readOnly
              aria-label="New personal access token"
              className="mono"
              value={created.token}
              onFocus={(e) => e.target.select()}
            />
            <CopyButton text={created.token} label="Copy token" />
          </div>
        </section>
      )}
      {notice !== null && <SuccessNotice>{notice}</SuccessNotice>}
      <NewTokenForm
        admin={user.is_admin}
        onCreated={(t) => {
          setCreated(t);
          setNotice(null);
          setVersion((v) => v + 1);
        }}
      />
      <section className="card section" aria-labelledby="tokens-active">
        <h2 id="tokens-active">Your tokens</h2>
        <ResourceView resource={tokens}>
          {(list) =>
            list.length === 0 ? (
              <p className="muted">No tokens yet.</p>
            ) : (
              <TableScroll label="Active tokens">
                <table className="table" aria-labelledby="tokens-active">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Scopes</th>
                      <th scope="col">Created</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Status</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((t) => (
                      <tr key={t.id}>
                        <td>{t.name}</td>
                        <td>{t.scopes.join(', ')}</td>
                        <td>
                          <Timestamp value={t.created_at} />
                        </td>
                        <td>{t.expires_at ?? <span className="muted">never</span>}</td>
                        <td>
                          <span className={t.active ? 'status status-enabled' : 'status status-disabled'}>
                            {t.revoked ? 'Revoked' : t.active ? 'Active' : 'Expired'}
                          </span>
                        </td>
                        <td className="actions-cell">
                          {!t.revoked && (
                            <button
                              type="button"
                              className="button button-small button-danger-outline"
                              aria-label={`Revoke ${t.name}`}
                              onClick={() => {
                                revokeAction.reset();
                                setRevoking(t);
                              }}
                            >
                              Revoke
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            )
          }
        </ResourceView>
      </section>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke token?"
        confirmLabel="Revoke token"
        danger
        busy={revokeAction.busy}
        onConfirm={() => void revoke()}
        onCancel={() => setRevoking(null)}
      >
        <p>Scripts and tools using "{revoking?.name}" will be refused at once. This cannot be undone.</p>
        {revokeAction.error !== null && <ErrorNotice message={revokeAction.error} />}
      </ConfirmDialog>
    </>
  );
}

function NewTokenForm({
  admin,
  onCreated,
}: {
  readonly admin: boolean;
  readonly onCreated: (token: PersonalAccessToken) => void;
}) {
  const [name, setName] = useState('');
  const [expiresAt, setExpiresAt] = useState(inDays(30));
  const [scopes, setScopes] = useState<ReadonlySet<string>>(new Set(['api']));
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (scopes.size === 0) {
      action.fail('Choose at least one scope.');
      return;
    }
    const ok = await action.run(async () => {
      const body: Record<string, unknown> = { name: name.trim(), scopes: [...scopes] };
      body.expires_at = expiresAt === '' ? null : expiresAt;
      onCreated(await sendJson<PersonalAccessToken>('POST', '/api/v4/user/personal_access_tokens', body));
    });
    if (ok) setName('');
  };
  const toggle = (scope: string, on: boolean): void => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };
  return (
    <form className="card form-card" aria-label="New token" onSubmit={(event) => void submit(event)}>
      <h2 className="form-title">Add a token</h2>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <TextField
        label="Token name"
        error={fieldError(action.fields, 'name')}
        value={name}
        onChange={setName}
        required
        placeholder="ci-deploy"
      />
      <TextField
        label="Expiration date"
        error={fieldError(action.fields, 'expires_at')}
        type="date"
        value={expiresAt}
        onChange={setExpiresAt}
        min={inDays(1)}
        help="Leave empty for a token that never expires (not recommended)."
      />
      <fieldset className="fieldset">
        <legend>Scopes</legend>
        {SCOPES.filter((s) => admin || !s.adminOnly).map((s) => (
          <div key={s.name}>
            <div className="checkbox">
              <input
                id={`scope-${s.name}`}
                type="checkbox"
                checked={scopes.has(s.name)}
                onChange={(event) => toggle(s.name, event.target.checked)}
              />
              <label htmlFor={`scope-${s.name}`}>
                <code>{s.name}</code>
              </label>
            </div>
            <p className="help checkbox-help">{s.help}</p>
          </div>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}
