import { useId, useState } from 'react';
import { Breadcrumbs, CopyButton, projectLabel, ResourceView, TabList, Timestamp } from '../components';
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
import { IncidentsPanel } from './incidents';
import { MaintenanceWindowsSettings } from './maintenance-windows-settings';
import { MembersSection } from './members';
import { RenameAndDelete } from './namespace-settings';
import { OncallSchedulesPanel } from './oncall-schedules';
import { SilencesSettings } from './silences-settings';

const TAB_LABELS: Record<ProjectTab, string> = {
  alerts: 'Alerts',
  incidents: 'Incidents',
  error_tracking: 'Error tracking',
  oncall_schedules: 'On-call schedules',
  escalation_policy: 'Escalation policy',
  members: 'Members',
  settings: 'Settings',
};

/** One project: its header and the Alerts / Error tracking / Settings tabs. */
export function ProjectPage({ id, tab }: { readonly id: string; readonly tab: ProjectTab }) {
  // Bumped after a rename, so the header, breadcrumbs and clone URL show the new name and path.
  const [version, setVersion] = useState(0);
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(id)}`, version);
  return (
    <>
      <Breadcrumbs
        links={[{ to: paths.projects(), label: 'Projects' }]}
        current={projectLabel(project, id)}
      />
      <ResourceView resource={project}>
        {(data) => <ProjectView project={data} tab={tab} onChanged={() => setVersion((v) => v + 1)} />}
      </ResourceView>
    </>
  );
}

function ProjectView({
  project,
  tab,
  onChanged,
}: {
  readonly project: Project;
  readonly tab: ProjectTab;
  readonly onChanged: () => void;
}) {
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
        <CloneUrl project={project} />
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
        {tab === 'incidents' && <IncidentsPanel project={project} />}
        {tab === 'error_tracking' && <ErrorsPanel project={project} />}
        {tab === 'oncall_schedules' && <OncallSchedulesPanel project={project} />}
        {tab === 'escalation_policy' && <EscalationPolicyPanel project={project} />}
        {tab === 'members' && <MembersSection kind="projects" id={project.id} />}
        {tab === 'settings' && <SettingsPanel project={project} onChanged={onChanged} />}
      </section>
    </>
  );
}

/**
 * The repository's HTTP clone URL with a copy button; for an empty repository, the first push as GitLab shows it
 * (git asks for a username and a personal access token as the password).
 */
function CloneUrl({ project }: { readonly project: Project }) {
  const branch = project.default_branch || 'main';
  return (
    <div className="clone-panel">
      <div className="input-group">
        <input
          readOnly
          aria-label="Clone with HTTP"
          className="mono"
          value={project.http_url_to_repo}
          onFocus={(e) => e.target.select()}
        />
        <CopyButton text={project.http_url_to_repo} label="Copy clone URL" />
      </div>
      {project.empty_repo ? (
        <details className="empty-repo-hint">
          <summary>The repository is empty: push an existing folder</summary>
          <pre className="code-block">
            <code>
              {[
                'cd existing_folder',
                `git init --initial-branch=${branch}`,
                `git remote add origin ${project.http_url_to_repo}`,
                'git add .',
                'git commit -m "Initial commit"',
                `git push --set-upstream origin ${branch}`,
              ].join('\n')}
            </code>
          </pre>
          <p className="muted">
            git asks for your username and a personal access token (scope write_repository) as the password.
          </p>
        </details>
      ) : null}
    </div>
  );
}

function SettingsPanel({
  project,
  onChanged,
}: {
  readonly project: Project;
  readonly onChanged: () => void;
}) {
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
      <SilencesSettings project={project} />
      <MaintenanceWindowsSettings project={project} />
      <ChatSettings project={project} />
      <RenameAndDelete
        kind="projects"
        target={{
          id: project.id,
          name: project.name,
          path: project.path,
          fullPath: project.path_with_namespace,
        }}
        onChanged={onChanged}
      />
    </>
  );
}
