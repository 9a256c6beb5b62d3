import { useId } from 'react';
import { Link, paths } from '../../router';
import type { Project } from '../../types';
import { AlertSettingsForm } from './alert-settings-form';
import { IntegrationsSection } from './integrations-section';

/** Settings > Monitor > Alerts: the integrations that receive alerts, and what alerts do on arrival. */
export function AlertsSettings({ project }: { readonly project: Project }) {
  const headingId = useId();
  return (
    <section className="settings-section" aria-labelledby={headingId}>
      <p className="eyebrow">Monitor</p>
      <h3 id={headingId}>Alerts</h3>
      <p className="muted">
        Monitoring tools post alerts to an integration's URL with its authorization key. Alerts appear in the{' '}
        <Link to={paths.project(project.id, 'alerts')}>Alerts</Link> tab.
      </p>
      <IntegrationsSection project={project} />
      <AlertSettingsForm project={project} />
    </section>
  );
}
