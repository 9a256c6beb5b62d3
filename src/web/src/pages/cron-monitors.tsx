import { useId } from 'react';
import { TableScroll, Timestamp } from '../components';
import type { CronMonitor, Project } from '../types';
import { useResource } from '../use-resource';

/** A monitor's or a run's status, drawn with the alert statuses' colours: failures red, success green. */
const STATUS_CLASS: Record<string, string> = {
  ok: 'status-resolved',
  error: 'status-triggered',
  missed: 'status-triggered',
  timeout: 'status-triggered',
  in_progress: 'status-acknowledged',
  new: 'status-ignored',
};
const STATUS_LABEL: Record<string, string> = {
  ok: 'OK',
  error: 'Failed',
  missed: 'Missed',
  timeout: 'Timed out',
  in_progress: 'In progress',
  new: 'Waiting',
};

function Status({ value }: { readonly value: string }) {
  return (
    <span className={`status ${STATUS_CLASS[value] ?? 'status-ignored'}`}>
      {STATUS_LABEL[value] ?? value}
    </span>
  );
}

function schedule(m: CronMonitor): string {
  if (!m.schedule) return 'no schedule';
  const s =
    m.schedule.type === 'crontab'
      ? `${m.schedule.value}${m.timezone ? ` (${m.timezone})` : ' (UTC)'}`
      : `every ${m.schedule.value} ${m.schedule.unit}${m.schedule.value === 1 ? '' : 's'}`;
  return s;
}

const seconds = (d: number | null): string =>
  d === null ? '' : d < 1 ? `${Math.round(d * 1000)} ms` : `${d.toFixed(d < 10 ? 1 : 0)} s`;

/**
 * Sentry cron monitors (created by the SDKs' check-ins): each monitor's status, schedule and recent runs; hidden
 * while the project has none.
 */
export function CronMonitors({
  project,
  refreshKey,
}: {
  readonly project: Project;
  readonly refreshKey: number;
}) {
  const monitors = useResource<CronMonitor[]>(
    `/api/v4/projects/${project.id}/error_tracking/monitors`,
    refreshKey,
  );
  const headingId = useId();
  if (monitors.status !== 'ok' || monitors.data.length === 0) return null;
  return (
    <section className="subsection" aria-labelledby={headingId}>
      <h3 id={headingId} className="subheading">
        Cron monitors
      </h3>
      <TableScroll label="Cron monitors">
        <table className="table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Monitor</th>
              <th scope="col">Status</th>
              <th scope="col">Schedule</th>
              <th scope="col">Next check-in by</th>
              <th scope="col">Recent runs</th>
            </tr>
          </thead>
          <tbody>
            {monitors.data.map((m) => (
              <tr key={m.slug}>
                <th scope="row">{m.slug}</th>
                <td>
                  <Status value={m.status} />
                </td>
                <td>{schedule(m)}</td>
                <td>{m.next_checkin_latest_at ? <Timestamp value={m.next_checkin_latest_at} /> : '—'}</td>
                <td>
                  <ul className="runs-list" aria-label={`Recent runs of ${m.slug}`}>
                    {m.checkins.map((c) => (
                      <li key={c.check_in_id}>
                        <Status value={c.status} /> <Timestamp value={c.created_at} />
                        {c.duration !== null && <span className="muted inline"> {seconds(c.duration)}</span>}
                        {c.environment && <span className="muted inline"> {c.environment}</span>}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
