import { type FormEvent, useId, useState } from 'react';
import { sendJson } from '../api';
import { ErrorNotice, ResourceView, SuccessNotice } from '../components';
import type { ErrorNotificationRule, ErrorRuleTrigger, Member, Project } from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

const describeRule = (r: ErrorNotificationRule): string =>
  r.trigger === 'new'
    ? 'A new error'
    : r.trigger === 'regression'
      ? 'A resolved error seen again'
      : `${r.threshold_count} events of an error within ${r.threshold_minutes} minutes`;

/** Settings > Error notification rules: who hears about new errors, regressions and bursts. */
export function ErrorRulesSettings({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/error_tracking/notification_rules`;
  const [refresh, setRefresh] = useState(0);
  const rules = useResource<ErrorNotificationRule[]>(path, refresh);
  const members = useResource<Member[]>(`/api/v4/projects/${project.id}/members/all?per_page=100`);
  const headingId = useId();
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <h3 id={headingId}>Error notification rules</h3>
      <ResourceView resource={members}>
        {(people) => (
          <>
            <ResourceView resource={rules}>
              {(list) =>
                list.length === 0 ? (
                  <p className="muted">No rules: nobody is told about errors.</p>
                ) : (
                  <ul aria-label="Error notification rules">
                    {list.map((r) => (
                      <li key={r.id}>
                        {describeRule(r)}: e-mail{' '}
                        {r.recipient_ids
                          .map((id) => people.find((m) => m.id === id)?.username ?? `user ${id}`)
                          .join(', ') || 'nobody'}
                        {r.webhook ? '; webhooks' : ''}
                      </li>
                    ))}
                  </ul>
                )
              }
            </ResourceView>
            <AddRuleForm path={path} members={people} onAdded={() => setRefresh((n) => n + 1)} />
          </>
        )}
      </ResourceView>
    </section>
  );
}

function AddRuleForm({
  path,
  members,
  onAdded,
}: {
  readonly path: string;
  readonly members: readonly Member[];
  readonly onAdded: () => void;
}) {
  const [trigger, setTrigger] = useState<ErrorRuleTrigger>('new');
  const [count, setCount] = useState('10');
  const [minutes, setMinutes] = useState('5');
  const [recipients, setRecipients] = useState<readonly number[]>([]);
  const [webhook, setWebhook] = useState(false);
  const action = useAction();
  const ids = { trigger: useId(), count: useId(), minutes: useId(), webhook: useId(), people: useId() };
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson('POST', path, {
        trigger,
        ...(trigger === 'threshold' && {
          threshold_count: Number(count),
          threshold_minutes: Number(minutes),
        }),
        recipient_ids: recipients,
        webhook,
      });
      onAdded();
      return 'Rule added.';
    });
  };
  const toggle = (id: number, on: boolean) =>
    setRecipients((r) => (on ? [...r, id] : r.filter((x) => x !== id)));
  return (
    <form aria-label="Add error notification rule" onSubmit={(event) => void submit(event)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <label htmlFor={ids.trigger}>When</label>
      <select
        id={ids.trigger}
        value={trigger}
        onChange={(e) => setTrigger(e.target.value as ErrorRuleTrigger)}
      >
        <option value="new">A new error</option>
        <option value="regression">A resolved error is seen again</option>
        <option value="threshold">An error passes N events in M minutes</option>
      </select>
      {trigger === 'threshold' && (
        <>
          <label htmlFor={ids.count}>Events (N)</label>
          <input
            id={ids.count}
            type="number"
            min={1}
            value={count}
            onChange={(e) => setCount(e.target.value)}
          />
          <label htmlFor={ids.minutes}>Minutes (M)</label>
          <input
            id={ids.minutes}
            type="number"
            min={1}
            value={minutes}
            onChange={(e) => setMinutes(e.target.value)}
          />
        </>
      )}
      <fieldset aria-labelledby={ids.people}>
        <legend id={ids.people}>E-mail these members</legend>
        {members.map((m) => (
          <div className="checkbox" key={m.id}>
            <input
              id={`${ids.people}-${m.id}`}
              type="checkbox"
              checked={recipients.includes(m.id)}
              onChange={(e) => toggle(m.id, e.target.checked)}
            />
            <label htmlFor={`${ids.people}-${m.id}`}>{m.username}</label>
          </div>
        ))}
      </fieldset>
      <div className="checkbox">
        <input
          id={ids.webhook}
          type="checkbox"
          checked={webhook}
          onChange={(e) => setWebhook(e.target.checked)}
        />
        <label htmlFor={ids.webhook}>Also send to the webhooks with error tracking events</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Adding…' : 'Add rule'}
        </button>
      </div>
    </form>
  );
}
