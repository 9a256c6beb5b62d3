import { useId, useState } from 'react';
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { ResourceView } from './components';
import type { Bucket, Occurrences, StatsPeriod } from './types';
import { useResource } from './use-resource';

const PERIODS: readonly StatsPeriod[] = ['24h', '30d'];
const PERIOD_LABELS: Record<StatsPeriod, string> = { '24h': '24 hours', '30d': '30 days' };

/** A bucket's start as a short label: the hour for hourly buckets, the day for daily ones (reader's time zone). */
function bucketLabel(start: string, interval: string): string {
  const d = new Date(start);
  return interval === 'hour'
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

function total(buckets: readonly Bucket[]): number {
  return buckets.reduce((sum, b) => sum + b.count, 0);
}

/**
 * A bar chart of occurrences over the last 24 hours or 30 days (`path` answers `?stats_period=`), with a choice of
 * period, a one-line summary for everyone, and the numbers as a table for screen readers. Recharts' accessibility
 * layer lets the keyboard move the tooltip from bar to bar.
 */
export function OccurrenceChart({ path, noun }: { readonly path: string; readonly noun: string }) {
  const [period, setPeriod] = useState<StatsPeriod>('24h');
  const stats = useResource<Occurrences>(`${path}?stats_period=${period}`);
  const captionId = useId();
  return (
    <div className="chart">
      <fieldset className="segmented">
        <legend className="visually-hidden">Period</legend>
        {PERIODS.map((p) => (
          <label key={p} className={p === period ? 'segment segment-selected' : 'segment'}>
            <input
              type="radio"
              name={`${captionId}-period`}
              value={p}
              checked={p === period}
              onChange={() => setPeriod(p)}
            />
            {PERIOD_LABELS[p]}
          </label>
        ))}
      </fieldset>
      {stats.status === 'error' ? (
        // The external backend keeps no history (400 with the reason): say so quietly, without the status prefix.
        <p className="muted">{stats.message.replace(/^\d{3} [^-]*- /, '')}</p>
      ) : (
        <ResourceView resource={stats}>
          {(data) => <OccurrenceFigure data={data} noun={noun} captionId={captionId} />}
        </ResourceView>
      )}
    </div>
  );
}

function OccurrenceFigure({
  data,
  noun,
  captionId,
}: {
  readonly data: Occurrences;
  readonly noun: string;
  readonly captionId: string;
}) {
  const rows = data.buckets.map((b) => ({ ...b, label: bucketLabel(b.start, data.interval) }));
  const sum = total(data.buckets);
  const peak = data.buckets.reduce<Bucket | null>((m, b) => (m === null || b.count > m.count ? b : m), null);
  const unit = data.interval === 'hour' ? 'hour' : 'day';
  return (
    <figure className="chart-figure" aria-labelledby={captionId} data-total={sum} data-buckets={rows.length}>
      <figcaption id={captionId} className="muted small">
        {sum} {noun}
        {sum === 1 ? '' : 's'} in the last {PERIOD_LABELS[data.stats_period as StatsPeriod]}
        {peak && peak.count > 0
          ? `; busiest ${unit}: ${bucketLabel(peak.start, data.interval)} with ${peak.count}`
          : ''}
        .
      </figcaption>
      <BarChart
        responsive
        style={{ width: '100%', height: 180 }}
        data={rows}
        margin={{ top: 8, right: 8, bottom: 0, left: -16 }}
        accessibilityLayer
      >
        <CartesianGrid vertical={false} stroke="var(--border)" />
        <XAxis
          dataKey="label"
          tick={{ fontSize: 11, fill: 'var(--muted)' }}
          stroke="var(--border)"
          interval="preserveStartEnd"
          minTickGap={16}
        />
        <YAxis
          allowDecimals={false}
          tick={{ fontSize: 11, fill: 'var(--muted)' }}
          stroke="var(--border)"
          width={48}
        />
        <Tooltip
          cursor={{ fill: 'var(--accent-soft)' }}
          contentStyle={{ background: 'var(--surface)', borderColor: 'var(--border)', color: 'var(--text)' }}
          formatter={(value) => [String(value), `${noun[0]!.toUpperCase()}${noun.slice(1)}s`]}
        />
        <Bar dataKey="count" fill="var(--accent)" radius={[2, 2, 0, 0]} isAnimationActive={false} />
      </BarChart>
      <table className="visually-hidden">
        <caption>
          {noun[0]!.toUpperCase()}
          {noun.slice(1)}s per {unit}
        </caption>
        <thead>
          <tr>
            <th scope="col">{unit === 'hour' ? 'Hour' : 'Day'}</th>
            <th scope="col">Count</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.start}>
              <td>{r.label}</td>
              <td>{r.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** A small trend line for a table row; the numbers are in its accessible name. */
export function Sparkline({
  buckets,
  label,
}: {
  readonly buckets: readonly Bucket[];
  readonly label: string;
}) {
  const sum = total(buckets);
  return (
    <span
      className="sparkline"
      role="img"
      aria-label={`${label}: ${sum} in the last 24 hours`}
      title={`${sum} in the last 24 hours`}
      data-total={sum}
    >
      <AreaChart
        width={96}
        height={24}
        data={[...buckets]}
        margin={{ top: 2, right: 0, bottom: 2, left: 0 }}
        accessibilityLayer={false}
      >
        <Area
          type="monotone"
          dataKey="count"
          stroke="var(--accent)"
          fill="var(--accent-soft)"
          strokeWidth={1.5}
          isAnimationActive={false}
          dot={false}
        />
      </AreaChart>
    </span>
  );
}
