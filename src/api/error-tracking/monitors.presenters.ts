import type { Static } from 'typebox';
import type { MonitorView } from '../../error-tracking/monitors.service.js';
import type { MonitorEntity } from './monitors.entities.js';

export function monitor(m: MonitorView): Static<typeof MonitorEntity> {
  const c = m.config;
  return {
    id: m.id,
    slug: m.slug,
    status: m.status,
    schedule: c
      ? c.schedule.type === 'crontab'
        ? { type: 'crontab', value: c.schedule.value }
        : { type: 'interval', value: c.schedule.value, unit: c.schedule.unit }
      : null,
    checkin_margin: c?.checkinMargin ?? null,
    max_runtime: c?.maxRuntime ?? null,
    timezone: c?.timezone ?? null,
    last_checkin_at: m.lastCheckInAt,
    next_checkin_latest_at: m.deadlineAt,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    checkins: m.checkIns.map((ci) => ({
      check_in_id: ci.checkInId,
      status: ci.status,
      environment: ci.environment,
      duration: ci.duration,
      created_at: ci.createdAt,
      updated_at: ci.updatedAt,
    })),
  };
}
