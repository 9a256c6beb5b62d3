import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';

/** One check-in of a cron monitor (svc's; Sentry's check-in fields in snake case). */
export const CheckInEntity = Type.Object({
  /** The SDK's check_in_id (32 hex digits); svc's own for a missed check-in. */
  check_in_id: Str,
  /** in_progress, ok, error (the SDK's), missed or timeout (svc's). */
  status: Str,
  environment: Nullable(Str),
  /** Seconds. */
  duration: Nullable(Type.Number()),
  created_at: Str,
  updated_at: Str,
});

/** A Sentry cron monitor of a project, upserted by the SDKs' check-ins (svc's). */
export const MonitorEntity = Type.Object({
  id: Int,
  slug: Str,
  /** new, in_progress, ok, error, missed, timeout: the last outcome. */
  status: Str,
  schedule: Nullable(Type.Object({ type: Str, value: Type.Union([Str, Int]), unit: Type.Optional(Str) })),
  checkin_margin: Nullable(Int),
  max_runtime: Nullable(Int),
  timezone: Nullable(Str),
  last_checkin_at: Nullable(Str),
  /** When the next check-in is missed at the latest (the schedule's next time plus the margin). */
  next_checkin_latest_at: Nullable(Str),
  created_at: Str,
  updated_at: Str,
  /** The newest check-ins, newest first (5 in the list, 50 for one monitor). */
  checkins: Type.Array(CheckInEntity),
});
