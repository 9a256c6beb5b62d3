import { useId } from 'react';
import { Breadcrumbs, projectLabel, ResourceView, TabList, Timestamp } from '../components';
import { navigate, PROJECT_TABS, type ProjectTab, paths } from '../router';
import type { Project } from '../types';
import { useResource } from '../use-resource';
import { AlertsSettings } from './alert-settings/alert-settings';
import { AlertsPanel } from './alerts';
import { ChatSettings } from './chat-settings';
import { ErrorRulesSettings } from './error-rules-settings';
import { ErrorTrackingSettingsSection } from './error-tracking-settings';
import { ErrorsPanel } from './errors';
import { EscalationPolicyPanel } from './escalation-policy';
import { HooksSettings } from './hooks-settings';
import { MembersSection } from './members';
import { OncallSchedulesPanel } from './oncall-schedules';

const TAB_LABELS: Record<ProjectTab, string> = {
  alerts: 'Alerts',
  error_tracking: 'Error tracking',
  oncall_schedules: 'On-call schedules',
  escalation_policy: 'Escalation policy',
  members: 'Members',
  settings: 'Settings',
};

/** One project: its header and the Alerts / Error tracking / Settings tabs. */
export function ProjectPage({ id, tab }: { readonly id: string; readonly tab: ProjectTab }) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(id)}`);
  return (
    <>
      <Breadcrumbs
        links={[{ to: paths.projects(), label: 'Projects' }]}
        current={projectLabel(project, id)}
      />
      <ResourceView resource={project}>{(data) => <ProjectView project={data} tab={tab} />}</ResourceView>
    </>
  );
}

function ProjectView({ project, tab }: { readonly project: Project; readonly tab: ProjectTab }) {
  const baseId = useId();
  const tabId = (t: ProjectTab): string => `${baseId}-tab-${t}`;
  const panelId = (t: ProjectTab): string => `${baseId}-panel-${t}`;

  const select = (t: ProjectTab): void => navigate(paths.project(project.id, t), { replace: true });

  return (
    <>
      <header className="page-header">
        <h1>{project.name}</h1>
        <p className="muted">
          {project.path_with_namespace} · <span className="badge">{project.visibility}</span>
        </p>
        {project.description ? <p>{project.description}</p> : null}
      </header>
      <TabList
        label="Project sections"
        variant="tab"
        tabs={PROJECT_TABS}
        selected={tab}
        onSelect={select}
        tabId={tabId}
        panelId={panelId}
      >
        {(t) => TAB_LABELS[t]}
      </TabList>
      <section className="tab-panel" role="tabpanel" id={panelId(tab)} aria-labelledby={tabId(tab)}>
        {tab === 'alerts' && <AlertsPanel project={project} />}
        {tab === 'error_tracking' && <ErrorsPanel project={project} />}
        {tab === 'oncall_schedules' && <OncallSchedulesPanel project={project} />}
        {tab === 'escalation_policy' && <EscalationPolicyPanel project={project} />}
        {tab === 'members' && <MembersSection kind="projects" id={project.id} />}
        {tab === 'settings' && <SettingsPanel project={project} />}
      </section>
    </>
  );
}

function SettingsPanel({ project }: { readonly project: Project }) {
  return (
    <>
      <h2>Settings</h2>
      <section className="settings-section" aria-labelledby="settings-general">
        <h3 id="settings-general">General</h3>
        <dl className="details">
          <dt>Project ID</dt>
          <dd>{project.id}</dd>
          <dt>Path</dt>
          <dd>{project.path_with_namespace}</dd>
          <dt>Visibility</dt>
          <dd>{project.visibility}</dd>
          <dt>Monitor access level</dt>
          <dd>{project.monitor_access_level ?? <span className="muted">not returned by the server</span>}</dd>
          <dt>Last activity</dt>
          <dd>
            <Timestamp value={project.last_activity_at} />
          </dd>
        </dl>
      </section>
      <AlertsSettings project={project} />
      <ErrorTrackingSettingsSection project={project} />
      <ErrorRulesSettings project={project} />
      <HooksSettings project={project} />
      <ChatSettings project={project} />
    </>
  );
}
