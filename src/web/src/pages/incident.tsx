import { Breadcrumbs, projectLabel, ResourceView, Timestamp } from '../components';
import { Markdown } from '../lazy';
import { paths } from '../router';
import type { Issue, Project } from '../types';
import { useResource } from '../use-resource';

/** An incident (an issue of type incident) opened from an alert: read-only; the description is rendered Markdown. */
export function IncidentPage({ projectId, iid }: { readonly projectId: string; readonly iid: string }) {
  const project = useResource<Project>(`/api/v4/projects/${encodeURIComponent(projectId)}`);
  const issue = useResource<Issue>(
    `/api/v4/projects/${encodeURIComponent(projectId)}/issues/${encodeURIComponent(iid)}`,
  );
  return (
    <>
      <Breadcrumbs
        links={[
          { to: paths.projects(), label: 'Projects' },
          { to: paths.project(projectId), label: projectLabel(project, projectId) },
        ]}
        current={`Incident #${iid}`}
      />
      <ResourceView resource={issue}>
        {(incident) => (
          <>
            <header className="page-header">
              <h1>{incident.title}</h1>
              <p className="muted">
                <span className="badge">{incident.state === 'opened' ? 'Open' : 'Closed'}</span> Incident #
                {incident.iid} · opened <Timestamp value={incident.created_at} />
                {incident.closed_at ? (
                  <>
                    {' · closed '}
                    <Timestamp value={incident.closed_at} />
                  </>
                ) : null}
              </p>
            </header>
            <section className="card section" aria-labelledby="incident-description">
              <h2 id="incident-description">Description</h2>
              {incident.description ? (
                <Markdown
                  text={incident.description}
                  env={{ alertPath: (alertIid) => paths.alert(projectId, alertIid) }}
                />
              ) : (
                <p className="muted">No description.</p>
              )}
            </section>
          </>
        )}
      </ResourceView>
    </>
  );
}
