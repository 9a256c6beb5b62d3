import { type FormEvent, useId, useMemo, useState } from 'react';
import { sendJson } from '../api';
import { ConfirmDialog, ErrorNotice, ResourceView, SuccessNotice, useNow } from '../components';
import { SelectField, TextField } from '../form-fields';
import type {
  Member,
  OncallOverride,
  OncallRotation,
  OncallSchedule,
  OncallShift,
  Project,
  RotationLengthUnit,
  UserRef,
} from '../types';
import { useAction } from '../use-action';
import { useResource } from '../use-resource';

const DAY = 86_400_000;
const TIMELINE_DAYS = 14;
/** Participant colours by position in the rotation (distinct, readable with white text). */
/** Rotation colours are CSS variables (styles.css), so both themes can tune them. */
const ROTATION_COLOURS = 8;
const colour = (position: number) => `var(--rotation-${position % ROTATION_COLOURS})`;

/** "Mon 30 Mar, 09:00" in the schedule's timezone. */
function localTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
}

/** Midnight of the day `now` falls on in `timeZone` (a DST change earlier that day moves it by the difference). */
function startOfLocalDay(now: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(now));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return now - ((part('hour') * 60 + part('minute')) * 60 + part('second')) * 1000 - (now % 1000);
}

function describeRotation(r: OncallRotation): string {
  const unit = r.length === 1 ? r.length_unit.slice(0, -1) : r.length_unit;
  const hours = r.active_period ? `, active ${r.active_period.start_time}–${r.active_period.end_time}` : '';
  return `every ${r.length} ${unit}${hours}`;
}

/** Project > On-call schedules: schedules, their rotations, and the next two weeks of shifts as a timeline. */
export function OncallSchedulesPanel({ project }: { readonly project: Project }) {
  const path = `/api/v4/projects/${project.id}/incident_management/oncall_schedules`;
  const [refresh, setRefresh] = useState(0);
  const schedules = useResource<OncallSchedule[]>(path, refresh);
  const members = useResource<Member[]>(`/api/v4/projects/${project.id}/members/all?per_page=100`);
  const changed = () => setRefresh((n) => n + 1);
  return (
    <>
      <h2>On-call schedules</h2>
      <p className="muted">
        Who is paged when an alert comes in. Rotations hand over at the same local time of the schedule's
        timezone, daylight saving changes included.
      </p>
      <ResourceView resource={schedules}>
        {(list) => (
          <>
            {list.length === 0 && <p className="muted">No on-call schedules yet.</p>}
            {list.map((s) => (
              <ScheduleCard
                key={s.iid}
                path={`${path}/${s.iid}`}
                schedule={s}
                members={members.status === 'ok' ? members.data : []}
                refresh={refresh}
                onChanged={changed}
              />
            ))}
            <AddScheduleForm path={path} onAdded={changed} />
          </>
        )}
      </ResourceView>
    </>
  );
}

function ScheduleCard({
  path,
  schedule,
  members,
  refresh,
  onChanged,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule;
  readonly members: readonly UserRef[];
  readonly refresh: number;
  readonly onChanged: () => void;
}) {
  const headingId = useId();
  const [confirm, setConfirm] = useState<{ what: string; url: string } | null>(null);
  const remove = useAction();
  const doRemove = async () => {
    if (!confirm) return;
    const ok = await remove.run(() => sendJson('DELETE', confirm.url));
    setConfirm(null);
    if (ok) onChanged();
  };
  return (
    <section className="settings-section oncall-schedule" aria-labelledby={headingId}>
      <div className="oncall-schedule-head">
        <h3 id={headingId}>{schedule.name}</h3>
        <button
          type="button"
          className="button button-small button-danger-outline"
          onClick={() => setConfirm({ what: `schedule ${schedule.name}`, url: path })}
        >
          Delete schedule
        </button>
      </div>
      <p className="muted">
        {schedule.timezone}
        {schedule.description ? ` · ${schedule.description}` : ''}
      </p>
      {remove.error !== null && <ErrorNotice message={remove.error} />}
      {schedule.rotations.length === 0 ? (
        <p className="muted">No rotations yet: nobody is on call.</p>
      ) : (
        <ul className="oncall-rotations" aria-label={`Rotations of ${schedule.name}`}>
          {schedule.rotations.map((r) => (
            <li key={r.id}>
              <strong>{r.name}</strong> <span className="muted-inline">{describeRotation(r)}</span>
              <br />
              <span className="small">
                from {localTime(r.starts_at, schedule.timezone)}
                {r.ends_at ? ` until ${localTime(r.ends_at, schedule.timezone)}` : ''} ·{' '}
                {r.participants.map((p) => (
                  <span key={p.position} className="oncall-person">
                    <span className="oncall-swatch" style={{ background: colour(p.position) }} />
                    {p.user.username}
                  </span>
                ))}
              </span>{' '}
              <button
                type="button"
                className="button button-small button-danger-outline"
                onClick={() => setConfirm({ what: `rotation ${r.name}`, url: `${path}/rotations/${r.id}` })}
              >
                Delete rotation {r.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <Timeline path={path} schedule={schedule} refresh={refresh} />
      <Overrides path={path} schedule={schedule} members={members} refresh={refresh} onChanged={onChanged} />
      <details className="oncall-add-rotation" open={schedule.rotations.length === 0}>
        <summary>Add a rotation to {schedule.name}</summary>
        <AddRotationForm
          path={`${path}/rotations`}
          schedule={schedule}
          members={members}
          onAdded={onChanged}
        />
      </details>
      <ConfirmDialog
        open={confirm !== null}
        title={`Delete ${confirm?.what ?? ''}?`}
        confirmLabel="Delete"
        danger
        busy={remove.busy}
        onConfirm={() => void doRemove()}
        onCancel={() => setConfirm(null)}
      >
        <p>
          {confirm?.url === path
            ? 'Its rotations go with it, and so do escalation rules that page this schedule.'
            : 'Its shifts end now.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The next two weeks of shifts: one row per rotation, a block per shift, and a line at the current time. */
function Timeline({
  path,
  schedule,
  refresh,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule;
  readonly refresh: number;
}) {
  const now = useNow();
  // The window starts at today's midnight in the schedule's zone, so that its columns are its days (and the
  // request stays the same all day).
  const from = startOfLocalDay(now, schedule.timezone);
  const to = from + TIMELINE_DAYS * DAY;
  const url = `${path}/shifts?from=${encodeURIComponent(new Date(from).toISOString())}&to=${encodeURIComponent(new Date(to).toISOString())}`;
  const shifts = useResource<OncallShift[]>(url, refresh);
  const days = useMemo(
    () =>
      Array.from({ length: TIMELINE_DAYS }, (_, i) =>
        new Intl.DateTimeFormat('en-GB', {
          timeZone: schedule.timezone,
          weekday: 'short',
          day: 'numeric',
        }).format(new Date(from + i * DAY + DAY / 2)),
      ),
    [from, schedule.timezone],
  );
  const pct = (t: number) => `${((Math.min(Math.max(t, from), to) - from) / (to - from)) * 100}%`;
  if (schedule.rotations.length === 0) return null;
  return (
    <ResourceView resource={shifts}>
      {(list) => (
        <figure className="oncall-timeline" aria-label={`Shifts of ${schedule.name}, next two weeks`}>
          <div className="oncall-timeline-head" aria-hidden="true">
            <span className="oncall-timeline-label" />
            <span className="oncall-timeline-days">
              {days.map((d) => (
                <span key={d}>{d}</span>
              ))}
            </span>
          </div>
          {list.some((s) => s.override !== null) && (
            <div className="oncall-timeline-row">
              <span className="oncall-timeline-label">Overrides</span>
              <span className="oncall-timeline-track">
                {list
                  .filter((s) => s.override !== null)
                  .map((s) => {
                    const label = `Override ${s.user.username}: ${localTime(s.starts_at, schedule.timezone)} – ${localTime(s.ends_at, schedule.timezone)}`;
                    return (
                      <span
                        key={`${s.starts_at}-${s.override?.id}`}
                        className="oncall-shift oncall-override"
                        role="img"
                        aria-label={label}
                        title={label}
                        style={{
                          left: pct(Date.parse(s.starts_at)),
                          width: `calc(${pct(Date.parse(s.ends_at))} - ${pct(Date.parse(s.starts_at))})`,
                        }}
                      >
                        {s.user.username}
                      </span>
                    );
                  })}
                <span className="oncall-now" style={{ left: pct(now) }} title="now" />
              </span>
            </div>
          )}
          {schedule.rotations.map((r) => (
            <div key={r.id} className="oncall-timeline-row">
              <span className="oncall-timeline-label">{r.name}</span>
              <span className="oncall-timeline-track">
                {/* The spans an override holds, drawn across every rotation: nobody of the rotation is on call then. */}
                {list
                  .filter((s) => s.override !== null)
                  .map((s) => (
                    <span
                      key={`band-${s.starts_at}-${s.override?.id}`}
                      className="oncall-override-band"
                      aria-hidden="true"
                      style={{
                        left: pct(Date.parse(s.starts_at)),
                        width: `calc(${pct(Date.parse(s.ends_at))} - ${pct(Date.parse(s.starts_at))})`,
                      }}
                    />
                  ))}
                {list
                  .filter((s) => s.rotation?.id === r.id)
                  .map((s) => {
                    const start = Date.parse(s.starts_at);
                    const end = Date.parse(s.ends_at);
                    const position = r.participants.find((p) => p.user.id === s.user.id)?.position ?? 0;
                    const label = `${s.user.username}: ${localTime(s.starts_at, schedule.timezone)} – ${localTime(s.ends_at, schedule.timezone)}`;
                    return (
                      <span
                        key={`${s.starts_at}-${s.user.id}`}
                        className="oncall-shift"
                        role="img"
                        aria-label={label}
                        title={label}
                        style={{
                          left: pct(start),
                          width: `calc(${pct(end)} - ${pct(start)})`,
                          background: colour(position),
                        }}
                      >
                        {s.user.username}
                      </span>
                    );
                  })}
                <span className="oncall-now" style={{ left: pct(now) }} title="now" />
              </span>
            </div>
          ))}
          <figcaption className="small muted">
            Times in {schedule.timezone}. The red line is now; hover a shift to see who and when. Striped
            blocks are overrides: their user is on call instead of the rotations.
          </figcaption>
        </figure>
      )}
    </ResourceView>
  );
}

/** A schedule's overrides that have not ended (a user on call in place of the rotations), add and delete. */
function Overrides({
  path,
  schedule,
  members,
  refresh,
  onChanged,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule;
  readonly members: readonly UserRef[];
  readonly refresh: number;
  readonly onChanged: () => void;
}) {
  const headingId = useId();
  // The request stays the same for the page's life: `starts_at` alone keeps the overrides that end after it.
  const [since] = useState(() => new Date().toISOString());
  const overrides = useResource<OncallOverride[]>(
    `${path}/overrides?per_page=100&starts_at=${encodeURIComponent(since)}`,
    refresh,
  );
  const remove = useAction();
  const [confirm, setConfirm] = useState<OncallOverride | null>(null);
  const doRemove = async () => {
    if (!confirm) return;
    const ok = await remove.run(() => sendJson('DELETE', `${path}/overrides/${confirm.id}`));
    setConfirm(null);
    if (ok) onChanged();
  };
  return (
    <section className="oncall-overrides" aria-labelledby={headingId}>
      <h4 id={headingId}>Overrides</h4>
      {remove.error !== null && <ErrorNotice message={`Could not delete the override: ${remove.error}`} />}
      <ResourceView resource={overrides}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No overrides.</p>
          ) : (
            <ul className="oncall-rotations" aria-label={`Overrides of ${schedule.name}`}>
              {list.map((o) => (
                <li key={o.id}>
                  <strong>{o.user.username}</strong>{' '}
                  <span className="small">
                    {localTime(o.starts_at, schedule.timezone)} – {localTime(o.ends_at, schedule.timezone)}
                  </span>{' '}
                  <button
                    type="button"
                    className="button button-small button-danger-outline"
                    disabled={remove.busy}
                    onClick={() => setConfirm(o)}
                  >
                    Delete override of {o.user.username}
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </ResourceView>
      <details className="oncall-add-rotation">
        <summary>Add an override to {schedule.name}</summary>
        <AddOverrideForm
          path={`${path}/overrides`}
          schedule={schedule}
          members={members}
          onAdded={onChanged}
        />
      </details>
      <ConfirmDialog
        open={confirm !== null}
        title={`Delete the override of ${confirm?.user.username ?? ''}?`}
        confirmLabel="Delete"
        danger
        busy={remove.busy}
        onConfirm={() => void doRemove()}
        onCancel={() => setConfirm(null)}
      >
        <p>The rotations decide who is on call for its time again.</p>
      </ConfirmDialog>
    </section>
  );
}

function AddOverrideForm({
  path,
  schedule,
  members,
  onAdded,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule;
  readonly members: readonly UserRef[];
  readonly onAdded: () => void;
}) {
  // Participants first (the usual swap), then the other members.
  const participants = schedule.rotations.flatMap((r) => r.participants.map((p) => p.user));
  const people = [...participants, ...members].filter(
    (u, i, all) => all.findIndex((x) => x.id === u.id) === i,
  );
  const [userId, setUserId] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await action.run(async () => {
      // Without an offset, the server reads these as local times of the schedule's timezone.
      await sendJson('POST', path, { user_id: Number(userId), starts_at: start, ends_at: end });
      setStart('');
      setEnd('');
      onAdded();
      return 'Override added.';
    });
  };
  return (
    <form aria-label={`Add override to ${schedule.name}`} onSubmit={(e) => void submit(e)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <SelectField
        label="On call instead"
        value={userId}
        onChange={setUserId}
        options={[
          { value: '', label: 'Choose a person' },
          ...people.map((u) => ({ value: String(u.id), label: `${u.name} (@${u.username})` })),
        ]}
      />
      <div className="oncall-length">
        <TextField
          label={`From (${schedule.timezone})`}
          type="datetime-local"
          value={start}
          onChange={setStart}
          required
        />
        <TextField
          label={`Until (${schedule.timezone})`}
          type="datetime-local"
          value={end}
          onChange={setEnd}
          required
        />
      </div>
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={action.busy || userId === '' || start === '' || end === ''}
        >
          {action.busy ? 'Adding…' : 'Add override'}
        </button>
      </div>
    </form>
  );
}

function AddScheduleForm({ path, onAdded }: { readonly path: string; readonly onAdded: () => void }) {
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const [name, setName] = useState('');
  const [timezone, setTimezone] = useState(zones.includes(browserZone) ? browserZone : 'UTC');
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson('POST', path, { name, timezone, ...(description && { description }) });
      setName('');
      setDescription('');
      onAdded();
      return 'Schedule added.';
    });
  };
  return (
    <form className="settings-section" aria-label="Add on-call schedule" onSubmit={(e) => void submit(e)}>
      <h3>Add a schedule</h3>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField label="Schedule name" value={name} onChange={setName} required />
      <SelectField
        label="Timezone"
        value={timezone}
        onChange={setTimezone}
        options={(zones.includes('UTC') ? zones : ['UTC', ...zones]).map((z) => ({ value: z, label: z }))}
        help="Rotations hand over and active hours apply at local times of this zone."
      />
      <TextField label="Description" value={description} onChange={setDescription} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy || name.trim() === ''}>
          {action.busy ? 'Adding…' : 'Add schedule'}
        </button>
      </div>
    </form>
  );
}

function AddRotationForm({
  path,
  schedule,
  members,
  onAdded,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule;
  readonly members: readonly UserRef[];
  readonly onAdded: () => void;
}) {
  const [name, setName] = useState('');
  const [people, setPeople] = useState<readonly number[]>([]);
  const [length, setLength] = useState('1');
  const [unit, setUnit] = useState<RotationLengthUnit>('weeks');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [restricted, setRestricted] = useState(false);
  const [activeFrom, setActiveFrom] = useState('09:00');
  const [activeTo, setActiveTo] = useState('17:00');
  const action = useAction();
  const ids = { restricted: useId(), people: useId() };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson('POST', path, {
        name,
        // Without an offset, the server reads these as local times of the schedule's timezone.
        starts_at: start,
        ...(end && { ends_at: end }),
        length: Number(length),
        length_unit: unit,
        ...(restricted && { active_period: { start_time: activeFrom, end_time: activeTo } }),
        participants: people.map((id) => ({ user_id: id })),
      });
      setName('');
      setPeople([]);
      onAdded();
      return 'Rotation added.';
    });
  };
  const toggle = (id: number, on: boolean) => setPeople((p) => (on ? [...p, id] : p.filter((x) => x !== id)));
  return (
    <form aria-label={`Add rotation to ${schedule.name}`} onSubmit={(e) => void submit(e)}>
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField label="Rotation name" value={name} onChange={setName} required />
      <fieldset aria-describedby={ids.people}>
        <legend>Participants (in shift order)</legend>
        <p id={ids.people} className="help">
          Project members; each takes a shift in the order ticked.
        </p>
        {members.map((m) => (
          <label key={m.id} className="checkbox">
            <input
              type="checkbox"
              checked={people.includes(m.id)}
              onChange={(e) => toggle(m.id, e.target.checked)}
            />
            {m.username}
            {people.includes(m.id) ? ` (#${people.indexOf(m.id) + 1})` : ''}
          </label>
        ))}
      </fieldset>
      <div className="oncall-length">
        <TextField
          label="Shift length"
          type="number"
          min={1}
          max={1000}
          value={length}
          onChange={setLength}
          required
        />
        <SelectField
          label="Unit"
          value={unit}
          onChange={(v) => setUnit(v as RotationLengthUnit)}
          options={[
            { value: 'hours', label: 'hours' },
            { value: 'days', label: 'days' },
            { value: 'weeks', label: 'weeks' },
          ]}
        />
      </div>
      {/* Wall times without a zone: the schedule's applies. */}
      <TextField
        label={`Starts (${schedule.timezone})`}
        type="datetime-local"
        value={start}
        onChange={setStart}
        required
      />
      <TextField
        label={`Ends (optional, ${schedule.timezone})`}
        type="datetime-local"
        value={end}
        onChange={setEnd}
      />
      <div className="checkbox">
        <input
          id={ids.restricted}
          type="checkbox"
          checked={restricted}
          disabled={unit === 'hours'}
          onChange={(e) => setRestricted(e.target.checked)}
        />
        <label htmlFor={ids.restricted}>Only on call during daily active hours (days and weeks)</label>
      </div>
      {restricted && unit !== 'hours' && (
        <div className="oncall-length">
          <TextField label="Active from" type="time" value={activeFrom} onChange={setActiveFrom} />
          <TextField label="Active until" type="time" value={activeTo} onChange={setActiveTo} />
        </div>
      )}
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={action.busy || name.trim() === '' || people.length === 0 || start === ''}
        >
          {action.busy ? 'Adding…' : 'Add rotation'}
        </button>
      </div>
    </form>
  );
}
