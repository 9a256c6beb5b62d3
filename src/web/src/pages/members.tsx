import { type FormEvent, useId, useState } from 'react';
import { getJson, sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice, TableScroll } from '../components';
import { ACCESS_LEVELS, SelectField, TextField } from '../form-fields';
import { Link, paths } from '../router';
import type { Member, UserSummary } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

const LEVEL_NAMES: Record<number, string> = Object.fromEntries(
  ACCESS_LEVELS.map((l) => [Number(l.value), l.label]),
);

/** Members of a project or group: the list (direct and inherited), adding one, changing a role, removing. */
export function MembersSection({ kind, id }: { readonly kind: 'projects' | 'groups'; readonly id: number }) {
  const base = `/api/v4/${kind}/${id}/members`;
  const [version, setVersion] = useState(0);
  const all = useResource<Member[]>(`${base}/all?per_page=100`, version);
  const direct = useResource<Member[]>(`${base}?per_page=100`, version);
  const [notice, setNotice] = useState<string | null>(null);
  const rowAction = useAction();
  const headingId = useId();
  const refresh = (message: string): void => {
    setNotice(message);
    setVersion((v) => v + 1);
  };
  const directIds = new Set(direct.status === 'ok' ? direct.data.map((m) => m.id) : []);

  const change = async (m: Member, level: string): Promise<void> => {
    setNotice(null);
    await rowAction.run(async () => {
      await sendJson('PUT', `${base}/${m.id}`, { access_level: Number(level) });
      refresh(`${m.name} is now ${LEVEL_NAMES[Number(level)]}.`);
    });
  };
  const remove = async (m: Member): Promise<void> => {
    setNotice(null);
    await rowAction.run(async () => {
      await sendJson('DELETE', `${base}/${m.id}`);
      refresh(`${m.name} was removed.`);
    });
  };

  return (
    // On a group's page it is a card among others; in a project's tab the panel is the card already.
    <section className={kind === 'groups' ? 'card section' : 'section'} aria-labelledby={headingId}>
      <h2 id={headingId}>Members</h2>
      <p className="muted">
        {kind === 'groups'
          ? 'Members of a group are members of its subgroups and projects, with the same role.'
          : 'Members of the project, including those who are members through its group.'}
      </p>
      {notice !== null && <SuccessNotice>{notice}</SuccessNotice>}
      {rowAction.error !== null && <ErrorNotice message={rowAction.error} />}
      <AddMemberForm
        base={base}
        onAdded={(m) => refresh(`${m.name} was added as ${LEVEL_NAMES[m.access_level]}.`)}
      />
      <ResourceView resource={all}>
        {(members) => (
          <TableScroll label="Members">
            <table className="table" aria-labelledby={headingId}>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  <th scope="col">Source</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {members.map((m) => (
                  <tr key={m.id}>
                    <td>
                      <Link to={paths.user(m.username)}>{m.name}</Link>{' '}
                      <span className="muted">@{m.username}</span>
                    </td>
                    <td>
                      {directIds.has(m.id) ? (
                        <select
                          aria-label={`Role of ${m.username}`}
                          value={String(m.access_level)}
                          disabled={rowAction.busy}
                          onChange={(event) => void change(m, event.target.value)}
                        >
                          {ACCESS_LEVELS.map((l) => (
                            <option key={l.value} value={l.value}>
                              {l.label}
                            </option>
                          ))}
                        </select>
                      ) : (
                        (LEVEL_NAMES[m.access_level] ?? m.access_level)
                      )}
                    </td>
                    <td className="muted">{directIds.has(m.id) ? 'Direct' : 'Inherited'}</td>
                    <td className="actions-cell">
                      {directIds.has(m.id) && (
                        <button
                          type="button"
                          className="button button-small button-danger-outline"
                          aria-label={`Remove ${m.username}`}
                          disabled={rowAction.busy}
                          onClick={() => void remove(m)}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </ResourceView>
    </section>
  );
}

function AddMemberForm({ base, onAdded }: { readonly base: string; readonly onAdded: (m: Member) => void }) {
  const [username, setUsername] = useState('');
  const [level, setLevel] = useState('30');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const wanted = username.trim().replace(/^@/, '');
    await action.run(async () => {
      const found = await getJson<UserSummary[]>(`/api/v4/users?username=${encodeURIComponent(wanted)}`);
      const user = found[0];
      if (!user) throw new Error(`No user with the username "${wanted}".`);
      const member = await sendJson<Member>('POST', base, { user_id: user.id, access_level: Number(level) });
      setUsername('');
      onAdded(member);
    });
  };
  return (
    <form className="form-card inline-form" aria-label="Add member" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <div className="field-row">
        <TextField label="Username" value={username} onChange={setUsername} required placeholder="jane" />
        <SelectField label="Role" value={level} onChange={setLevel} options={ACCESS_LEVELS} />
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={action.busy}>
            {action.busy ? 'Adding…' : 'Add member'}
          </button>
        </div>
      </div>
    </form>
  );
}
