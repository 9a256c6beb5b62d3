import { type FormEvent, useState } from 'react';
import { sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice, TableScroll } from '../components';
import { SelectField, TextField } from '../form-fields';
import type { FeatureFlag, SessionUser } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';
import { AdminNav, AdminOnly } from './admin';

/** Flags svc reads, with their default and what they do; `GET /features` lists only flags that were set. */
export const KNOWN_FLAGS: readonly {
  readonly name: string;
  readonly defaultOn: boolean;
  readonly help: string;
}[] = [
  {
    name: 'integrated_error_tracking',
    defaultOn: false,
    help: 'Integrated error tracking on self-managed instances: SDKs send errors to svc itself (always on for the hosted offering).',
  },
  {
    name: 'generic_alert_fingerprinting',
    defaultOn: true,
    help: 'Premium and Ultimate: HTTP alerts without a fingerprint are grouped by a hash of their payload.',
  },
];

/** How a flag stands, in words: on, off, or on/off for some projects. */
export function describeFlag(flag: FeatureFlag | undefined, defaultOn: boolean): string {
  if (!flag) return defaultOn ? 'On (default)' : 'Off (default)';
  const projects = flag.gates.find((g) => g.key === 'actors')?.value;
  const list = Array.isArray(projects) ? projects.map((p) => p.replace('Project:', '#')).join(', ') : '';
  if (flag.state === 'on') return 'On for the instance';
  if (flag.state === 'conditional') return `On for projects ${list}`;
  return 'Off';
}

/** Admin area > Features: the flags, on or off for the whole instance or one project. */
export function FeaturesPage({ user }: { readonly user: SessionUser }) {
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const flags = useResource<FeatureFlag[]>('/api/v4/features', version);
  const action = useAction();
  if (!user.is_admin) return <AdminOnly />;

  const set = async (name: string, value: boolean, project?: string): Promise<boolean> => {
    setNotice(null);
    const ok = await action.run(() =>
      sendJson('POST', `/api/v4/features/${encodeURIComponent(name)}`, {
        value,
        ...(project !== undefined && { project }),
      }),
    );
    if (ok) {
      setNotice(
        `${name} is now ${value ? 'on' : 'off'} ${project !== undefined ? `for project ${project}` : 'for the instance'}.`,
      );
      setVersion((v) => v + 1);
    }
    return ok;
  };

  return (
    <>
      <h1>Admin area</h1>
      <AdminNav current="features" />
      <h2>Features</h2>
      <p className="muted">
        Feature flags turn behaviour on or off for the whole instance, or for single projects (a project's
        setting wins over the instance's).
      </p>
      {notice !== null && <SuccessNotice>{notice}</SuccessNotice>}
      {action.error !== null && <ErrorNotice message={action.error} />}
      <ResourceView resource={flags}>
        {(list) => {
          const names = [
            ...KNOWN_FLAGS.map((k) => k.name),
            ...list.map((f) => f.name).filter((n) => !KNOWN_FLAGS.some((k) => k.name === n)),
          ];
          return (
            <>
              <TableScroll label="Feature flags">
                <table className="table" aria-label="Feature flags">
                  <thead>
                    <tr>
                      <th scope="col">Flag</th>
                      <th scope="col">State</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {names.map((name) => {
                      const known = KNOWN_FLAGS.find((k) => k.name === name);
                      const flag = list.find((f) => f.name === name);
                      const on = flag ? flag.state === 'on' : (known?.defaultOn ?? false);
                      return (
                        <tr key={name}>
                          <td>
                            <code>{name}</code>
                            {known ? <p className="help">{known.help}</p> : null}
                          </td>
                          <td>{describeFlag(flag, known?.defaultOn ?? false)}</td>
                          <td className="actions-cell">
                            <button
                              type="button"
                              className={on ? 'button button-small' : 'button button-small button-primary'}
                              disabled={action.busy}
                              aria-label={`Turn ${name} ${on ? 'off' : 'on'} for the instance`}
                              onClick={() => void set(name, !on)}
                            >
                              {on ? 'Turn off' : 'Turn on'}
                            </button>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableScroll>
              <ProjectFlagForm names={names} onSet={set} />
            </>
          );
        }}
      </ResourceView>
    </>
  );
}

function ProjectFlagForm({
  names,
  onSet,
}: {
  readonly names: readonly string[];
  readonly onSet: (name: string, value: boolean, project: string) => Promise<boolean>;
}) {
  const [name, setName] = useState(names[0] ?? '');
  const [project, setProject] = useState('');
  const [value, setValue] = useState('true');
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (await onSet(name.trim(), value === 'true', project.trim())) setProject('');
  };
  return (
    <form className="card form-card" aria-label="Set a flag for one project" onSubmit={(e) => void submit(e)}>
      <h3 className="form-title">Set a flag for one project</h3>
      <TextField
        label="Flag"
        value={name}
        onChange={setName}
        required
        mono
        help={`Known flags: ${names.join(', ')}. Any other name creates a flag.`}
      />
      <TextField
        label="Project"
        value={project}
        onChange={setProject}
        required
        placeholder="group/my-app or 42"
        help="The project's path or id."
      />
      <SelectField
        label="Value"
        value={value}
        onChange={setValue}
        options={[
          { value: 'true', label: 'On for this project' },
          { value: 'false', label: 'Off for this project' },
        ]}
      />
      <div className="actions">
        <button type="submit" className="button button-primary">
          Set for project
        </button>
      </div>
    </form>
  );
}
