import type { Project } from '../../types';

/** Integrations that carry an API URL: Prometheus (links back) and the on-call link (the page responders open). */
export const needsApiUrl = (type: string): boolean => type === 'prometheus' || type === 'oncall_link';

export function integrationsPath(project: Project): string {
  return `/api/v4/projects/${project.id}/alert_management/integrations`;
}

/** The tabs of an integration's editor. */
export type EditTab = 'configure' | 'credentials' | 'test';
