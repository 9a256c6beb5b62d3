import { ResourceView, Timestamp } from '../components';
import { Link, paths } from '../router';
import type { Project } from '../types';
import { useResource } from '../use-resource';

const PROJECTS_PATH = '/api/v4/projects?membership=true&per_page=100&order_by=name&sort=asc';

/** The signed-in user's projects, by name. */
export function ProjectsPage() {
  const projects = useResource<Project[]>(PROJECTS_PATH);
  return (
    <>
      <div className="panel-header">
        <h1>Projects</h1>
        <div className="actions">
          <Link to={paths.newGroup()} className="button">
            New group
          </Link>
          <Link to={paths.newProject()} className="button button-primary">
            New project
          </Link>
        </div>
      </div>
      <ResourceView resource={projects}>
        {(list) =>
          list.length === 0 ? (
            <div className="empty-state">
              <p>You are not a member of any project yet.</p>
              <p className="muted">
                A project receives alerts from your monitoring and errors from your applications.
              </p>
              <p>
                <Link to={paths.newProject()} className="button button-primary">
                  New project
                </Link>
              </p>
            </div>
          ) : (
            <ul className="list" aria-label="Projects">
              {list.map((project) => (
                <ProjectRow key={project.id} project={project} />
              ))}
            </ul>
          )
        }
      </ResourceView>
    </>
  );
}

function ProjectRow({ project }: { readonly project: Project }) {
  return (
    <li className="list-row">
      <div className="list-main">
        <Link to={paths.project(project.id)} className="list-title">
          {project.name}
        </Link>
        <span className="muted"> {project.path_with_namespace}</span>
        {project.description ? <p className="list-description">{project.description}</p> : null}
      </div>
      <div className="list-meta">
        <span className="badge">{project.visibility}</span>
        <span className="muted small">
          Updated <Timestamp value={project.last_activity_at} />
        </span>
      </div>
    </li>
  );
}

/** A plain list of projects, each its name (a link) and full path: a group's projects, a user's personal ones. */
export function ProjectLinks({
  label,
  projects,
}: {
  readonly label: string;
  readonly projects: readonly Project[];
}) {
  return (
    <ul className="list" aria-label={label}>
      {projects.map((p) => (
        <li key={p.id} className="list-row">
          <Link to={paths.project(p.id)} className="list-title">
            {p.name}
          </Link>
          <span className="muted"> {p.path_with_namespace}</span>
        </li>
      ))}
    </ul>
  );
}
