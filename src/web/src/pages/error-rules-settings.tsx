import { type FormEvent, useId, useState } from 'react';
import { sendJson } from '../api';
import { ConfirmDialog, ErrorNotice, ResourceView, SuccessNotice } from '../components';
import { CheckboxField, SelectField, TextField } from '../form-fields';
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
                  <ul aria-label="Error notification rules" className="rule-list">
                    {list.map((r) => (
                      <RuleItem
                        key={r.id}
                        path={`${path}/${r.id}`}
                        rule={r}
                        people={people}
                        onChanged={() => setRefresh((n) => n + 1)}
                      />
                    ))}
                  </ul>
                )
              }
            </ResourceView>
            <RuleForm path={path} rule={null} members={people} onSaved={() => setRefresh((n) => n + 1)} />
          </>
        )}
      </ResourceView>
    </section>
  );
}

function RuleItem({
  path,
  rule,
  people,
  onChanged,
}: {
  readonly path: string;
  readonly rule: ErrorNotificationRule;
  readonly people: readonly Member[];
  readonly onChanged: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useAction();
  const text = `${describeRule(rule)}: e-mail ${
    rule.recipient_ids.map((id) => people.find((m) => m.id === id)?.username ?? `user ${id}`).join(', ') ||
    'nobody'
  }${rule.webhook ? '; webhooks' : ''}`;
  return (
    <li className="card rule-card" aria-label={text}>
      <div className="panel-header">
        <span>{text}</span>
        <div className="actions">
          <button type="button" className="button button-small" onClick={() => setEditing((e) => !e)}>
            {editing ? 'Close editor' : 'Edit rule'}
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            onClick={() => setConfirming(true)}
          >
            Delete rule
          </button>
        </div>
      </div>
      {remove.error !== null && <ErrorNotice message={remove.error} />}
      {editing && (
        <RuleForm
          path={path}
          rule={rule}
          members={people}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      <ConfirmDialog
        open={confirming}
        title="Delete this rule?"
        confirmLabel="Delete rule"
        danger
        busy={remove.busy}
        onConfirm={() =>
          void remove
            .run(() => sendJson('DELETE', path))
            .then((ok) => {
              setConfirming(false);
              if (ok) onChanged();
            })
        }
        onCancel={() => setConfirming(false)}
      >
        <p>Nobody is told about errors by this rule any more.</p>
      </ConfirmDialog>
    </li>
  );
}

const TRIGGER_OPTIONS = [
  { value: 'new', label: 'A new error' },
  { value: 'regression', label: 'A resolved error is seen again' },
  { value: 'threshold', label: 'An error passes N events in M minutes' },
] as const;

/** Adds a rule (`rule` null) or edits one. */
function RuleForm({
  path,
  rule,
  members,
  onSaved,
  onCancel = null,
}: {
  readonly path: string;
  readonly rule: ErrorNotificationRule | null;
  readonly members: readonly Member[];
  readonly onSaved: () => void;
  readonly onCancel?: (() => void) | null;
}) {
  const [trigger, setTrigger] = useState<ErrorRuleTrigger>(
    (rule?.trigger as ErrorRuleTrigger | undefined) ?? 'new',
  );
  const [count, setCount] = useState(String(rule?.threshold_count ?? 10));
  const [minutes, setMinutes] = useState(String(rule?.threshold_minutes ?? 5));
  const [recipients, setRecipients] = useState<readonly number[]>(rule?.recipient_ids ?? []);
  const [webhook, setWebhook] = useState(rule?.webhook ?? false);
  const action = useAction();
  const peopleId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson(rule ? 'PUT' : 'POST', path, {
        trigger,
        ...(trigger === 'threshold' && {
          threshold_count: Number(count),
          threshold_minutes: Number(minutes),
        }),
        recipient_ids: recipients,
        webhook,
      });
      onSaved();
      return rule ? 'Rule saved.' : 'Rule added.';
    });
  };
  const toggle = (id: number, on: boolean) =>
    setRecipients((r) => (on ? [...r, id] : r.filter((x) => x !== id)));
  const title = rule ? 'Edit error notification rule' : 'Add error notification rule';
  return (
    <form aria-label={title} className="card form-card" onSubmit={(event) => void submit(event)}>
      <h4 className="form-title">{title}</h4>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <SelectField
        label="When"
        value={trigger}
        onChange={(v) => setTrigger(v as ErrorRuleTrigger)}
        options={TRIGGER_OPTIONS}
      />
      {trigger === 'threshold' && (
        <div className="field-row">
          <TextField label="Events (N)" type="number" min={1} value={count} onChange={setCount} />
          <TextField label="Minutes (M)" type="number" min={1} value={minutes} onChange={setMinutes} />
        </div>
      )}
      <fieldset className="field" aria-labelledby={peopleId}>
        <legend id={peopleId}>E-mail these members</legend>
        {members.map((m) => (
          <CheckboxField
            key={m.id}
            label={m.username}
            checked={recipients.includes(m.id)}
            onChange={(on) => toggle(m.id, on)}
          />
        ))}
      </fieldset>
      <CheckboxField
        label="Also send to the webhooks with error tracking events"
        checked={webhook}
        onChange={setWebhook}
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : rule ? 'Save rule' : 'Add rule'}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
