import type { Clock } from '../clock.js';
import type { JobQueue } from '../jobs/queue.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { ErrorTrackingRepository } from './error-tracking.repository.js';
import type { ReportsRepository } from './reports.repository.js';

const RETENTION_JOB = 'error_tracking_retention';
const DAY_MS = 86_400_000;
const dayKey = (d: Date) => `${RETENTION_JOB}:${d.toISOString().slice(0, 10)}`;

/**
 * Error retention (spec: 90 days, `error_tracking_retention_days`): a daily job deletes events that occurred
 * before the cutoff and errors left without events, feedback and attachments received before it (their events are
 * gone too), then schedules the next day's run.
 */
export function registerRetention(
  jobs: JobQueue,
  repo: ErrorTrackingRepository,
  settings: SettingsService,
  clock: Clock,
  reports: ReportsRepository,
): void {
  jobs.register(RETENTION_JOB, async (_job, { stopping }) => {
    const now = clock.now();
    const days = (await settings.get()).error_tracking_retention_days;
    const cutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
    const { complete } = await repo.prune(cutoff, { stopping });
    await reports.prune(cutoff);
    // Stopped between batches (the server shuts down): the job is retried, by this or another process, and
    // deletes the rest; a graceful stop waits for one batch, not for the whole run.
    if (!complete)
      throw new Error('retention stopped early because the server is stopping; the rest follows');
    const next = new Date(now.getTime() + DAY_MS);
    await jobs.enqueue(RETENTION_JOB, {}, { runAt: next, uniqueKey: dayKey(next) });
  });
}

/** Makes sure today's retention run is scheduled (called when the worker starts). */
export async function scheduleRetention(jobs: JobQueue, clock: Clock): Promise<void> {
  const now = clock.now();
  await jobs.enqueue(RETENTION_JOB, {}, { runAt: now, uniqueKey: dayKey(now) });
}
