import { type ComponentProps, lazy, Suspense } from 'react';
import type * as Charts from './charts';
import { Loading } from './components';
import type * as Md from './markdown';

// The chart library (recharts) and the Markdown renderer (markdown-it) are most of the UI's weight: they load as
// their own chunks, the first time a page shows a chart or Markdown, so signing in and the project lists never pay
// for them.
const loadCharts = () => import('./charts');
const LazyOccurrenceChart = lazy(() => loadCharts().then((m) => ({ default: m.OccurrenceChart })));
const LazySparkline = lazy(() => loadCharts().then((m) => ({ default: m.Sparkline })));
const LazyMarkdown = lazy(() => import('./markdown').then((m) => ({ default: m.Markdown })));

/** `charts.OccurrenceChart`, loaded on first use. */
export function OccurrenceChart(props: ComponentProps<typeof Charts.OccurrenceChart>) {
  return (
    <Suspense fallback={<Loading label="Loading chart…" />}>
      <LazyOccurrenceChart {...props} />
    </Suspense>
  );
}

/** `charts.Sparkline`, loaded on first use. */
export function Sparkline(props: ComponentProps<typeof Charts.Sparkline>) {
  return (
    <Suspense fallback={<span className="sparkline muted">…</span>}>
      <LazySparkline {...props} />
    </Suspense>
  );
}

/** `markdown.Markdown`, loaded on first use; until then the text shows as it is. */
export function Markdown(props: ComponentProps<typeof Md.Markdown>) {
  return (
    <Suspense fallback={<div className={props.className ?? 'markdown'}>{props.text}</div>}>
      <LazyMarkdown {...props} />
    </Suspense>
  );
}
