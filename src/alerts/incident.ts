import type { Alert, ParsedAlert } from './alerts.js';

/** The incident's description: the alert summary, the metric, then the payload's incident markdown (spec). */
export function incidentDescription(a: Alert, p: Pick<ParsedAlert, 'incidentMarkdown' | 'metric'>): string {
  const markdown = p.incidentMarkdown;
  const lines = [
    `**Alert:** ^alert#${a.iid}`,
    `**Start time:** ${a.startedAt}`,
    `**Severity:** ${a.severity}`,
    ...(a.service ? [`**Service:** ${a.service}`] : []),
    ...(a.monitoringTool ? [`**Monitoring tool:** ${a.monitoringTool}`] : []),
    ...(a.hosts.length > 0 ? [`**Hosts:** ${a.hosts.join(', ')}`] : []),
    ...(p.metric
      ? [`**Metric:** \`${p.metric.query}\`${p.metric.yLabel ? ` (y-axis: ${p.metric.yLabel})` : ''}`]
      : []),
    ...(a.description ? ['', a.description] : []),
  ];
  return markdown ? `${lines.join('\n')}\n\n---\n\n${markdown}` : lines.join('\n');
}
