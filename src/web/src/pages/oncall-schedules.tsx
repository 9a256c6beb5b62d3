import { type FormEvent, useId, useMemo, useState } from 'react';
import { sendJson } from '../api';
import { ConfirmDialog, ErrorNotice, ResourceView, SuccessNotice, useNow } from '../components';
import { SelectField, TextField } from '../form-fields';
import type {
  Group,
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

/**
 * Whose on-call a panel shows: a project's or a group's (the same API at `/projects/:id/...` and `/groups/:id/...`;
 * a group's members include those of the groups above it).
 */
export type OncallOwnerProps =
  | { readonly project: Project; readonly group?: undefined }
  | { readonly group: Group; readonly project?: undefined };

/** The API path of the project or group a panel shows. */
export const ownerPath = (owner: OncallOwnerProps): string =>
  owner.project ? `/api/v4/projects/${owner.project.id}` : `/api/v4/groups/${owner.group.id}`;

/**
 * Project (or group) > On-call schedules: schedules, their rotations, and the next two weeks of shifts as a
 * timeline.
 */
export function OncallSchedulesPanel(owner: OncallOwnerProps) {
  const path = `${ownerPath(owner)}/incident_management/oncall_schedules`;
  const [refresh, setRefresh] = useState(0);
  const schedules = useResource<OncallSchedule[]>(path, refresh);
  const members = useResource<Member[]>(`${ownerPath(owner)}/members/all?per_page=100`);
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
  // What is open for editing: the schedule itself, or one of its rotations by id.
  const [editing, setEditing] = useState<'schedule' | number | null>(null);
  const saved = (): void => {
    setEditing(null);
    onChanged();
  };
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
        <button type="button" className="button button-small" onClick={() => setEditing('schedule')}>
          Edit schedule
        </button>
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
      {editing === 'schedule' && (
        <ScheduleForm path={path} schedule={schedule} onSaved={saved} onCancel={() => setEditing(null)} />
      )}
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
              <button type="button" className="button button-small" onClick={() => setEditing(r.id)}>
                Edit rotation {r.name}
              </button>{' '}
              <button
                type="button"
                className="button button-small button-danger-outline"
                onClick={() => setConfirm({ what: `rotation ${r.name}`, url: `${path}/rotations/${r.id}` })}
              >
                Delete rotation {r.name}
              </button>
              {editing === r.id && (
                <AddRotationForm
                  path={`${path}/rotations/${r.id}`}
                  schedule={schedule}
                  members={members}
                  rotation={r}
                  onAdded={saved}
                  onCancel={() => setEditing(null)}
                />
              )}
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
  return <ScheduleForm path={path} schedule={null} onSaved={onAdded} onCancel={null} />;
}

/** Adds a schedule (`schedule` null) or edits one; a new timezone moves its rotations' active hours with it. */
function ScheduleForm({
  path,
  schedule,
  onSaved,
  onCancel,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule | null;
  readonly onSaved: () => void;
  readonly onCancel: (() => void) | null;
}) {
  const zones = useMemo(() => Intl.supportedValuesOf('timeZone'), []);
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const [name, setName] = useState(schedule?.name ?? '');
  const [timezone, setTimezone] = useState(
    schedule?.timezone ?? (zones.includes(browserZone) ? browserZone : 'UTC'),
  );
  const [description, setDescription] = useState(schedule?.description ?? '');
  const action = useAction();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await action.run(async () => {
      if (schedule) {
        await sendJson('PUT', path, { name, timezone, description });
        onSaved();
        return 'Schedule saved.';
      }
      await sendJson('POST', path, { name, timezone, ...(description && { description }) });
      setName('');
      setDescription('');
      onSaved();
      return 'Schedule added.';
    });
  };
  const title = schedule ? `Edit schedule ${schedule.name}` : 'Add on-call schedule';
  return (
    <form
      className={schedule ? 'card form-card' : 'settings-section'}
      aria-label={title}
      onSubmit={(e) => void submit(e)}
    >
      {schedule ? <h4 className="form-title">{title}</h4> : <h3>Add a schedule</h3>}
      {action.error !== null && <ErrorNotice message={action.error} />}
      {action.done !== null && <SuccessNotice>{action.done}</SuccessNotice>}
      <TextField label="Schedule name" value={name} onChange={setName} required />
      <SelectField
        label="Timezone"
        value={timezone}
        onChange={setTimezone}
        options={(zones.includes(timezone) ? zones : [timezone, ...zones]).map((z) => ({
          value: z,
          label: z,
        }))}
        help="Rotations hand over and active hours apply at local times of this zone."
      />
      <TextField label="Description" value={description} onChange={setDescription} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={action.busy || name.trim() === ''}>
          {action.busy ? 'Saving…' : schedule ? 'Save schedule' : 'Add schedule'}
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

/** An instant as the wall time of `timezone`, for a `datetime-local` field (`2026-11-27T09:00`). */
function wallTime(iso: string, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** Adds a rotation (`rotation` absent) or edits one: its participants, when saved, replace the list. */
function AddRotationForm({
  path,
  schedule,
  members,
  onAdded,
  rotation = null,
  onCancel = null,
}: {
  readonly path: string;
  readonly schedule: OncallSchedule;
  readonly members: readonly UserRef[];
  readonly onAdded: () => void;
  readonly rotation?: OncallSchedule['rotations'][number] | null;
  readonly onCancel?: (() => void) | null;
}) {
  const [name, setName] = useState(rotation?.name ?? '');
  const [people, setPeople] = useState<readonly number[]>(
    rotation ? [...rotation.participants].sort((a, b) => a.position - b.position).map((p) => p.user.id) : [],
  );
  const [length, setLength] = useState(String(rotation?.length ?? 1));
  const [unit, setUnit] = useState<RotationLengthUnit>(
    (rotation?.length_unit as RotationLengthUnit) ?? 'weeks',
  );
  const [start, setStart] = useState(rotation ? wallTime(rotation.starts_at, schedule.timezone) : '');
  const [end, setEnd] = useState(rotation?.ends_at ? wallTime(rotation.ends_at, schedule.timezone) : '');
  const [restricted, setRestricted] = useState(rotation?.active_period != null);
  const [activeFrom, setActiveFrom] = useState(rotation?.active_period?.start_time ?? '09:00');
  const [activeTo, setActiveTo] = useState(rotation?.active_period?.end_time ?? '17:00');
  const action = useAction();
  const ids = { restricted: useId(), people: useId() };
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await action.run(async () => {
      await sendJson(rotation ? 'PUT' : 'POST', path, {
        name,
        // Without an offset, the server reads these as local times of the schedule's timezone.
        starts_at: start,
        ...(end && { ends_at: end }),
        length: Number(length),
        length_unit: unit,
        ...(restricted && { active_period: { start_time: activeFrom, end_time: activeTo } }),
        participants: people.map((id) => ({ user_id: id })),
      });
      if (rotation) {
        onAdded();
        return 'Rotation saved.';
      }
      setName('');
      setPeople([]);
      onAdded();
      return 'Rotation added.';
    });
  };
  const toggle = (id: number, on: boolean) => setPeople((p) => (on ? [...p, id] : p.filter((x) => x !== id)));
  return (
    <form
      aria-label={rotation ? `Edit rotation ${rotation.name}` : `Add rotation to ${schedule.name}`}
      className={rotation ? 'card form-card' : undefined}
      onSubmit={(e) => void submit(e)}
    >
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
          {action.busy ? 'Saving…' : rotation ? 'Save rotation' : 'Add rotation'}
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
