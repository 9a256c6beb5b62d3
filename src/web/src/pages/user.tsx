import { Breadcrumbs, ResourceView, Timestamp } from '../components';
import { paths } from '../router';
import type { Project, UserSummary } from '../types';
import { useResource } from '../use-resource';
import { ProjectLinks } from './projects';

/** A user's page (their `web_url`, `/<username>`): who they are and their personal projects. */
export function UserPage({ user }: { readonly user: UserSummary }) {
  const projects = useResource<Project[]>(`/api/v4/users/${user.id}/projects?per_page=100`);
  return (
    <>
      <Breadcrumbs links={[{ to: paths.projects(), label: 'Projects' }]} current={`@${user.username}`} />
      <header className="page-header">
        <h1>{user.name}</h1>
        <p className="muted">
          @{user.username}
          {user.state !== 'active' ? (
            <>
              {' '}
              · <span className="badge">{user.state}</span>
            </>
          ) : null}
          {user.created_at ? (
            <>
              {' '}
              · Member since <Timestamp value={user.created_at} />
            </>
          ) : null}
        </p>
        {user.bio ? <p>{user.bio}</p> : null}
      </header>
      <section className="card section" aria-labelledby="user-projects">
        <h2 id="user-projects">Personal projects</h2>
        <ResourceView resource={projects}>
          {(list) =>
            list.length === 0 ? (
              <p className="muted">No personal projects you can see.</p>
            ) : (
              <ProjectLinks label="Personal projects" projects={list} />
            )
          }
        </ResourceView>
      </section>
    </>
  );
}
