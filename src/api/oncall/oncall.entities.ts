import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';
import { UserBasic } from '../users/users.entities.js';

/**
 * On-call schedules (GitLab has them only in GraphQL: its field names, in snake_case). Times are ISO 8601 with the
 * schedule's UTC offset at that instant, so that they read as local times of the schedule.
 */
export const OncallActivePeriodEntity = Type.Object({ start_time: Str, end_time: Str });

export const OncallParticipantEntity = Type.Object({ user: UserBasic, position: Int });

export const OncallRotationEntity = Type.Object({
  id: Int,
  name: Str,
  starts_at: Str,
  ends_at: Nullable(Str),
  length: Int,
  /** `hours`, `days` or `weeks`. */
  length_unit: Str,
  active_period: Nullable(OncallActivePeriodEntity),
  participants: Type.Array(OncallParticipantEntity),
});

export const OncallScheduleEntity = Type.Object({
  iid: Int,
  name: Str,
  description: Nullable(Str),
  /** An IANA zone name. */
  timezone: Str,
  rotations: Type.Array(OncallRotationEntity),
});

/**
 * One shift of `GET .../oncall_schedules/:iid/shifts`: whose, of which rotation or override (the other is null),
 * from when until when.
 */
export const OncallShiftEntity = Type.Object({
  rotation: Nullable(Type.Object({ id: Int, name: Str })),
  override: Nullable(Type.Object({ id: Int })),
  user: UserBasic,
  starts_at: Str,
  ends_at: Str,
});

/**
 * One user of `GET .../oncall_schedules/:iid/on_call`, with the shifts (one per rotation, or the override's) that put
 * them on call.
 */
export const OncallUserEntity = Type.Object({
  ...UserBasic.properties,
  shifts: Type.Array(
    Type.Object({
      rotation: Nullable(Type.Object({ id: Int, name: Str })),
      override: Nullable(Type.Object({ id: Int })),
      starts_at: Str,
      ends_at: Str,
    }),
  ),
});

/** An override: `user` on call from `starts_at` to `ends_at` across the whole schedule. */
export const OncallOverrideEntity = Type.Object({
  id: Int,
  user: UserBasic,
  starts_at: Str,
  ends_at: Str,
  created_at: Str,
});

export const OncallOverrideInput = Type.Object({
  user_id: Type.Optional(Type.Integer()),
  username: Type.Optional(Type.String()),
  starts_at: Type.Optional(Type.String()),
  ends_at: Type.Optional(Type.String()),
});

export const OncallScheduleInput = Type.Object({
  name: Type.Optional(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
  timezone: Type.Optional(Type.String()),
});

/** A rotation's start or end: an ISO time (local to the schedule without an offset), or GitLab's `{date, time}`. */
const TimeInput = Type.Union([Type.String(), Type.Object({ date: Type.String(), time: Type.String() })]);

export const OncallRotationInput = Type.Object({
  name: Type.Optional(Type.String()),
  starts_at: Type.Optional(TimeInput),
  ends_at: Type.Optional(Nullable(TimeInput)),
  length: Type.Optional(Type.Integer()),
  length_unit: Type.Optional(Type.String()),
  active_period: Type.Optional(
    Nullable(
      Type.Object({ start_time: Type.Optional(Type.String()), end_time: Type.Optional(Type.String()) }),
    ),
  ),
  participants: Type.Optional(
    Type.Array(
      Type.Object({ username: Type.Optional(Type.String()), user_id: Type.Optional(Type.Integer()) }),
    ),
  ),
});
