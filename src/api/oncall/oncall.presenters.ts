import type { Static } from 'typebox';
import { formatInZone } from '../../oncall/oncall.js';
import type { OverrideView, RotationView, ScheduleView, ShiftView } from '../../oncall/oncall.service.js';
import type { View } from '../common/common.presenters.js';
import { userBasic } from '../users/users.presenters.js';
import type {
  OncallOverrideEntity,
  OncallRotationEntity,
  OncallScheduleEntity,
  OncallShiftEntity,
  OncallUserEntity,
} from './oncall.entities.js';

const at = (iso: string, timezone: string) => formatInZone(Date.parse(iso), timezone);

export function oncallRotation(r: RotationView, v: View): Static<typeof OncallRotationEntity> {
  return {
    id: r.id,
    name: r.name,
    starts_at: at(r.startsAt, r.timezone),
    ends_at: r.endsAt === null ? null : at(r.endsAt, r.timezone),
    length: r.length,
    length_unit: r.lengthUnit,
    active_period: r.activePeriod && {
      start_time: r.activePeriod.startTime,
      end_time: r.activePeriod.endTime,
    },
    participants: r.participants.map((p) => ({ user: userBasic(p.user, v), position: p.position })),
  };
}

export function oncallSchedule(s: ScheduleView, v: View): Static<typeof OncallScheduleEntity> {
  return {
    iid: s.schedule.iid,
    name: s.schedule.name,
    description: s.schedule.description,
    timezone: s.schedule.timezone,
    rotations: s.rotations.map((r) => oncallRotation(r, v)),
  };
}

export function oncallShift(s: ShiftView, v: View): Static<typeof OncallShiftEntity> {
  return {
    rotation: s.rotation && { id: s.rotation.id, name: s.rotation.name },
    override: s.override && { id: s.override.id },
    user: userBasic(s.user, v),
    starts_at: formatInZone(s.startsAt, s.timezone),
    ends_at: formatInZone(s.endsAt, s.timezone),
  };
}

/** The users on call, each once, with the shifts that put them there. */
export function oncallUsers(shifts: readonly ShiftView[], v: View): Static<typeof OncallUserEntity>[] {
  const byUser = new Map<number, Static<typeof OncallUserEntity>>();
  for (const s of shifts) {
    const entry = byUser.get(s.user.id) ?? { ...userBasic(s.user, v), shifts: [] };
    entry.shifts.push({
      rotation: s.rotation && { id: s.rotation.id, name: s.rotation.name },
      override: s.override && { id: s.override.id },
      starts_at: formatInZone(s.startsAt, s.timezone),
      ends_at: formatInZone(s.endsAt, s.timezone),
    });
    byUser.set(s.user.id, entry);
  }
  return [...byUser.values()];
}

export function oncallOverride(o: OverrideView, v: View): Static<typeof OncallOverrideEntity> {
  return {
    id: o.override.id,
    user: userBasic(o.user, v),
    starts_at: at(o.override.startsAt, o.timezone),
    ends_at: at(o.override.endsAt, o.timezone),
    created_at: o.override.createdAt,
  };
}
