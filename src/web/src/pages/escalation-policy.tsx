import { type FormEvent, useId, useState } from 'react';
import type { Static } from 'typebox';
import type { ChatIntegrationBasicEntity } from '../../../api/chat/chat.entities.js';
import { ApiError, getJson, sendJson } from '../api';
import {
  ConfirmDialog,
  ErrorNotice,
  ResourceView,
  SuccessNotice,
  TableScroll,
  Timestamp,
} from '../components';
import { SelectField, TextField } from '../form-fields';
import { usePaidTier } from '../tier';
import type {
  AlertEscalation,
  EscalationPolicy,
  EscalationRule,
  EscalationRuleStatus,
  Member,
  OncallSchedule,
  UserRef,
} from '../types';
import { useAction } from '../use-action';
import { useLoader, useResource } from '../use-resource';
import { type OncallOwnerProps, ownerPath } from './oncall-schedules';

type ChatIntegrationBasic = Static<typeof ChatIntegrationBasicEntity>;

/** A schedule as a rule names it and the form offers it: its `iid` and `name`. */
type ScheduleRef = Pick<OncallSchedule, 'iid' | 'name'>;

/** One rule as the form edits it: elapsed time in minutes and seconds, the target as `user:<id>` or `schedule:<iid>`. */
interface RuleDraft {
  readonly minutes: string;
  readonly seconds: string;
  readonly status: EscalationRuleStatus;
  readonly target: string;
}

const MAX_RULES = 10;
const STATUS_TEXT: Record<EscalationRuleStatus, string> = {
  acknowledged: 'is not acknowledged',
  resolved: 'is not resolved',
};

/** "5 min 30 s", "0 s". */
export function elapsedText(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m === 0) return `${s} s`;
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

const targetText = (r: {
  oncall_schedule: ScheduleRef | null;
  user: UserRef | null;
  integration_slug?: string | null;
}): string =>
  r.oncall_schedule
    ? `the people on call in ${r.oncall_schedule.name}`
    : r.user
      ? `${r.user.name} (@${r.user.username})`
      : r.integration_slug
        ? `the ${r.integration_slug} chat channel`
        : 'nobody';

/** The project's on-call schedules; none where the server has no schedules API (answers 404). */
const loadSchedules = (path: string): Promise<OncallSchedule[]> =>
  getJson<OncallSchedule[]>(path).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return [];
    throw err;
  });

/**
 * The project's (or group's) Escalation policy tab: the policy and its rules; create, edit and delete (Maintainer).
 * A group's policy pages for the projects below it that have none of their own.
 */
export function EscalationPolicyPanel(owner: OncallOwnerProps) {
  const base = ownerPath(owner);
  const path = `${base}/incident_management/escalation_policies`;
  const [refresh, setRefresh] = useState(0);
  const [editing, setEditing] = useState(false);
  const policies = useResource<EscalationPolicy[]>(path, refresh);
  const members = useResource<Member[]>(`${base}/members/all?per_page=100`);
  const schedules = useLoader<OncallSchedule[]>(
    `${base}/incident_management/oncall_schedules`,
    loadSchedules,
  );
  const changed = () => {
    setEditing(false);
    setRefresh((n) => n + 1);
  };
  return (
    <>
      <h2>Escalation policy</h2>
      <p className="muted">
        When a new alert comes in, each rule pages its target after its time has passed, unless the alert was
        acknowledged (or resolved) by then.
      </p>
      <ResourceView resource={policies}>
        {(list) => {
          const policy = list[0] ?? null;
          if (policy && !editing)
            return (
              <PolicyView
                policy={policy}
                path={`${path}/${policy.id}`}
                onEdit={() => setEditing(true)}
                onDeleted={changed}
              />
            );
          return (
            <ResourceView resource={members}>
              {(people) => (
                <ResourceView resource={schedules}>
                  {(scheds) => (
                    <PolicyForm
                      policy={policy}
                      path={policy ? `${path}/${policy.id}` : path}
                      members={people}
                      schedules={scheds}
                      onSaved={changed}
                      onCancel={policy ? () => setEditing(false) : null}
                      ownerNoun={owner.project ? 'project' : 'group'}
                    />
                  )}
                </ResourceView>
              )}
            </ResourceView>
          );
        }}
      </ResourceView>
    </>
  );
}

function PolicyView({
  policy,
  path,
  onEdit,
  onDeleted,
}: {
  readonly policy: EscalationPolicy;
  readonly path: string;
  readonly onEdit: () => void;
  readonly onDeleted: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const headingId = useId();
  return (
    <section className="card section" aria-labelledby={headingId}>
      <h3 id={headingId}>{policy.name}</h3>
      {policy.description ? <p>{policy.description}</p> : null}
      <p className="muted">
        {policy.repeat > 0
          ? `While nobody acknowledges, the rules run ${policy.repeat} more ${policy.repeat === 1 ? 'time' : 'times'}.`
          : 'The rules run once.'}{' '}
        {policy.ack_timeout_minutes !== null
          ? `An acknowledgement not resolved within ${policy.ack_timeout_minutes} min triggers the alert again.`
          : 'Acknowledgements do not time out.'}
      </p>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <TableScroll label="Escalation rules">
        <table className="table" aria-label="Escalation rules">
          <thead>
            <tr>
              <th scope="col">After</th>
              <th scope="col">If the alert</th>
              <th scope="col">Page</th>
            </tr>
          </thead>
          <tbody>
            {policy.rules.map((r) => (
              <tr key={r.id}>
                <td>{elapsedText(r.elapsed_time_seconds)}</td>
                <td>{STATUS_TEXT[r.status as EscalationRuleStatus]}</td>
                <td>{targetText(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <div className="actions">
        <button type="button" className="button" onClick={onEdit}>
          Edit policy
        </button>
        <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
          Delete policy
        </button>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Delete the escalation policy?"
        confirmLabel="Delete"
        danger
        busy={action.busy}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          void action.run(async () => {
            await sendJson('DELETE', path);
            setConfirming(false);
            onDeleted();
          })
        }
      >
        <p>New alerts will page nobody, and escalations in progress stop.</p>
      </ConfirmDialog>
    </section>
  );
}

const draftOf = (r: EscalationRule): RuleDraft => ({
  minutes: String(Math.floor(r.elapsed_time_seconds / 60)),
  seconds: String(r.elapsed_time_seconds % 60),
  status: r.status as EscalationRuleStatus,
  target: r.oncall_schedule
    ? `schedule:${r.oncall_schedule.iid}`
    : r.integration_slug
      ? `integration:${r.integration_slug}`
      : `user:${r.user?.id ?? ''}`,
});

function PolicyForm({
  policy,
  path,
  members,
  schedules,
  onSaved,
  onCancel,
  ownerNoun,
}: {
  readonly policy: EscalationPolicy | null;
  readonly path: string;
  /** "project" or "group": whose schedules the targets are. */
  readonly ownerNoun: string;
  readonly members: readonly UserRef[];
  readonly schedules: readonly ScheduleRef[];
  readonly onSaved: () => void;
  readonly onCancel: (() => void) | null;
}) {
  const firstTarget = members[0]
    ? `user:${members[0].id}`
    : schedules[0]
      ? `schedule:${schedules[0].iid}`
      : '';
  const blank = (): RuleDraft => ({
    minutes: '0',
    seconds: '0',
    status: 'acknowledged',
    target: firstTarget,
  });
  const [name, setName] = useState(policy?.name ?? '');
  const [description, setDescription] = useState(policy?.description ?? '');
  const [rules, setRules] = useState<readonly RuleDraft[]>(policy ? policy.rules.map(draftOf) : [blank()]);
  const [repeat, setRepeat] = useState(String(policy?.repeat ?? 0));
  const [ackTimeout, setAckTimeout] = useState(
    policy?.ack_timeout_minutes == null ? '' : String(policy.ack_timeout_minutes),
  );
  const action = useAction();
  // The project's active chat integrations: a rule may page a channel.
  const chats = useResource<ChatIntegrationBasic[]>(
    path.replace(/\/incident_management\/escalation_policies.*$/, '/integrations'),
  );
  const targets = [
    ...members.map((m) => ({ value: `user:${m.id}`, label: `${m.name} (@${m.username})` })),
    ...schedules.map((s) => ({ value: `schedule:${s.iid}`, label: `Schedule: ${s.name}` })),
    ...(chats.status === 'ok' ? chats.data : []).map((c) => ({
      value: `integration:${c.slug}`,
      label: `Chat: ${c.title}`,
    })),
  ];
  const set = (i: number, change: Partial<RuleDraft>) =>
    setRules((rs) => rs.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson(policy ? 'PUT' : 'POST', path, {
        name,
        description: description.trim() === '' ? null : description,
        repeat: Number(repeat || 0),
        ack_timeout_minutes: ackTimeout.trim() === '' ? null : Number(ackTimeout),
        rules: rules.map((r) => {
          const [kind, id] = r.target.split(':');
          return {
            elapsed_time_seconds: Number(r.minutes || 0) * 60 + Number(r.seconds || 0),
            status: r.status,
            ...(kind === 'schedule'
              ? { oncall_schedule_iid: Number(id) }
              : kind === 'integration'
                ? { integration_slug: id }
                : { user_id: Number(id) }),
          };
        }),
      });
      onSaved();
      return policy ? 'Policy saved.' : 'Policy created.';
    });
  };
  return (
    <form
      className="card section"
      aria-label={policy ? 'Edit escalation policy' : 'Create escalation policy'}
      onSubmit={(event) => void submit(event)}
    >
      {policy === null && <p className="muted">No escalation policy: new alerts page nobody.</p>}
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField label="Name" value={name} onChange={setName} required />
      <TextField label="Description" value={description} onChange={setDescription} />
      <TextField
        label="Repeat (times, while nobody acknowledges)"
        type="number"
        min={0}
        max={9}
        value={repeat}
        onChange={setRepeat}
      />
      <TextField
        label="Acknowledgement timeout (minutes, empty: none)"
        type="number"
        min={1}
        max={1440}
        value={ackTimeout}
        onChange={setAckTimeout}
      />
      {schedules.length === 0 && (
        <p className="help">No on-call schedules in this {ownerNoun}: rules can page members.</p>
      )}
      {rules.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rules have no identity while they are edited.
        <fieldset key={i} className="rule-fieldset">
          <legend>Rule {i + 1}</legend>
          <TextField
            label={`Rule ${i + 1} minutes`}
            type="number"
            min={0}
            max={1440}
            value={r.minutes}
            onChange={(v) => set(i, { minutes: v })}
          />
          <TextField
            label={`Rule ${i + 1} seconds`}
            type="number"
            min={0}
            max={59}
            value={r.seconds}
            onChange={(v) => set(i, { seconds: v })}
          />
          <SelectField
            label={`Rule ${i + 1}: if the alert`}
            value={r.status}
            onChange={(v) => set(i, { status: v as EscalationRuleStatus })}
            options={[
              { value: 'acknowledged', label: STATUS_TEXT.acknowledged },
              { value: 'resolved', label: STATUS_TEXT.resolved },
            ]}
          />
          <SelectField
            label={`Rule ${i + 1}: page`}
            value={r.target}
            onChange={(v) => set(i, { target: v })}
            options={targets}
          />
          {rules.length > 1 && (
            <button
              type="button"
              className="button"
              onClick={() => setRules((rs) => rs.filter((_, j) => j !== i))}
            >
              Remove rule {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      <div className="actions">
        <button
          type="button"
          className="button"
          disabled={rules.length >= MAX_RULES}
          onClick={() => setRules((rs) => [...rs, blank()])}
        >
          Add rule
        </button>
        <button type="submit" className="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : policy ? 'Save policy' : 'Create policy'}
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

/** Loads an alert's escalation; none where escalation is not available (Free: 403) or not served (404). */
const loadEscalations = (path: string): Promise<AlertEscalation[]> =>
  getJson<AlertEscalation[]>(path).catch((err: unknown) => {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return [];
    throw err;
  });

/** The alert page's Escalation section: which rules paged whom and when, which wait. Hidden when there is none. */
export function AlertEscalations(props: { readonly apiPath: string; readonly refreshKey: number }) {
  // A Free instance has no escalation policies and refuses the read: do not ask.
  return usePaidTier() === true ? <LoadedAlertEscalations {...props} /> : null;
}

function LoadedAlertEscalations({
  apiPath,
  refreshKey,
}: {
  readonly apiPath: string;
  readonly refreshKey: number;
}) {
  const escalations = useLoader<AlertEscalation[]>(`${apiPath}/escalations`, loadEscalations, refreshKey);
  if (escalations.status !== 'ok' || escalations.data.length === 0) return null;
  return (
    <section className="card section" aria-labelledby="alert-escalation">
      <h2 id="alert-escalation">Escalation</h2>
      <ul aria-label="Escalation rules of this alert">
        {escalations.data.map((e) => (
          <li key={e.rule_id}>
            {e.elapsed_time_seconds === null ? 'A rule' : `After ${elapsedText(e.elapsed_time_seconds)}`}
            {e.status ? `, if the alert ${STATUS_TEXT[e.status as EscalationRuleStatus]}` : ''}
            {e.user || e.oncall_schedule ? `: ${targetText(e)}` : ''} —{' '}
            {e.state === 'pending' ? (
              <>
                pending, due <Timestamp value={e.due_at} />
              </>
            ) : e.state === 'paged' ? (
              <>
                paged{' '}
                {e.pages.map((p, i) => (
                  <span key={`${p.user?.id ?? i}`}>
                    {i > 0 ? ', ' : ''}@{p.user?.username ?? 'unknown'} <Timestamp value={p.paged_at} />{' '}
                    (e-mail {p.email_status})
                  </span>
                ))}
              </>
            ) : (
              'not paged (the alert was acknowledged or resolved in time, or nobody was on call)'
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
