import { ApiError, getJson } from '../api';
import { Breadcrumbs, ErrorNotice, Loading, ResourceView, Timestamp } from '../components';
import { Link, type ProjectTab, paths } from '../router';
import type { Group, MergeRequest, Project, UserSummary } from '../types';
import { useLoader, useResource } from '../use-resource';
import { AlertPage } from './alert';
import { ErrorPage } from './error';
import { GroupPage } from './groups';
import { IncidentPage } from './incident';
import { NotFoundPage } from './not-found';
import { ProjectPage } from './project';
import { SnippetPage } from './snippet';
import { UserPage } from './user';

type Resolved =
  | { readonly kind: 'project'; readonly project: Project }
  | { readonly kind: 'group'; readonly group: Group }
  | { readonly kind: 'user'; readonly user: UserSummary }
  | { readonly kind: 'none' };

const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

/**
 * What `/<path>` names, as GitLab resolves its URLs: a project (`/group/app`), else a group, else a user
 * (`/jane`). Sub-pages (`/-/...`) exist only under projects.
 */
async function resolve(key: string): Promise<Resolved> {
  const [path, hasSub] = [key.slice(2), key.startsWith('s:')];
  const enc = encodeURIComponent(path);
  try {
    return { kind: 'project', project: await getJson<Project>(`/api/v4/projects/${enc}`) };
  } catch (err) {
    if (!isNotFound(err) || hasSub) {
      if (isNotFound(err)) return { kind: 'none' };
      throw err;
    }
  }
  try {
    return { kind: 'group', group: await getJson<Group>(`/api/v4/groups/${enc}`) };
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  if (path.includes('/')) return { kind: 'none' };
  const users = await getJson<UserSummary[]>(`/api/v4/users?username=${enc}`);
  return users[0] ? { kind: 'user', user: users[0] } : { kind: 'none' };
}

/** The page of a `web_url` outside `/-/ui`: `/<namespace>/<project>[/-/<sub-page>]`, `/<group>`, `/<username>`. */
export function WebPathPage({ path, sub }: { readonly path: string; readonly sub: string | null }) {
  const resolved = useLoader(`${sub === null ? 'n' : 's'}:${path}`, resolve);
  const shown = `/${path}${sub === null ? '' : `/-/${sub}`}`;
  if (resolved.status === 'loading') return <Loading />;
  if (resolved.status === 'error') return <ErrorNotice message={resolved.message} />;
  const r = resolved.data;
  switch (r.kind) {
    case 'none':
      return <NotFoundPage path={shown} />;
    case 'group':
      return <GroupPage path={r.group.full_path} />;
    case 'user':
      return <UserPage user={r.user} />;
    case 'project':
      return <ProjectSubPage project={r.project} sub={sub} shown={shown} />;
  }
}

/** GitLab's project sub-paths that svc's API links to or that people type. */
const TAB_PATHS: Readonly<Record<string, ProjectTab>> = {
  alert_management: 'alerts',
  error_tracking: 'error_tracking',
  project_members: 'members',
  settings: 'settings',
};

function ProjectSubPage({
  project,
  sub,
  shown,
}: {
  readonly project: Project;
  readonly sub: string | null;
  readonly shown: string;
}) {
  const id = String(project.id);
  if (sub === null) return <ProjectPage id={id} tab="alerts" />;
  const [first, second] = sub.replace(/\/+$/, '').split('/');
  const tab = TAB_PATHS[first ?? ''];
  if (second === undefined && tab) return <ProjectPage id={id} tab={tab} />;
  const number = second !== undefined && /^\d+$/.test(second) ? second : null;
  if (first === 'merge_requests' && number) return <MergeRequestPage project={project} iid={number} />;
  if (first === 'alert_management' && number) return <AlertPage projectId={id} iid={number} />;
  if (first === 'issues' && number) return <IncidentPage projectId={id} iid={number} />;
  if (first === 'error_tracking' && number) return <ErrorPage projectId={id} errorId={number} />;
  if (first === 'snippets' && number) return <SnippetPage id={number} />;
  if (first === 'commit' && second && /^[0-9a-f]{7,64}$/i.test(second)) {
    return <CommitPage project={project} sha={second} />;
  }
  return <NotFoundPage path={shown} />;
}

const projectCrumbs = (project: Project) => [
  { to: paths.projects(), label: 'Projects' },
  { to: paths.project(project.id), label: project.name },
];

/** A merge request's page (its `web_url`): title, state, branches, author and description. */
function MergeRequestPage({ project, iid }: { readonly project: Project; readonly iid: string }) {
  const mr = useResource<MergeRequest>(`/api/v4/projects/${project.id}/merge_requests/${iid}`);
  return (
    <>
      <Breadcrumbs links={projectCrumbs(project)} current={`Merge request !${iid}`} />
      <ResourceView resource={mr}>
        {(m) => (
          <>
            <header className="page-header">
              <h1>{m.title}</h1>
              <p className="muted">
                <span className="badge">{m.state}</span> · !{m.iid} · <code>{m.source_branch}</code> into{' '}
                <code>{m.target_branch}</code>
                {m.author ? ` · by ${m.author.name}` : ''} · <Timestamp value={m.created_at} />
              </p>
            </header>
            <section className="card section" aria-label="Description">
              {m.description ? (
                <p className="prewrap">{m.description}</p>
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

/** A commit's page (the `web_url` of a merge request's commits). */
function CommitPage({ project, sha }: { readonly project: Project; readonly sha: string }) {
  return (
    <>
      <Breadcrumbs links={projectCrumbs(project)} current={`Commit ${sha.slice(0, 8)}`} />
      <h1>Commit {sha.slice(0, 8)}</h1>
      <dl className="details card section">
        <dt>Project</dt>
        <dd>
          <Link to={paths.project(project.id)}>{project.path_with_namespace}</Link>
        </dd>
        <dt>SHA</dt>
        <dd>
          <code>{sha}</code>
        </dd>
        <dt>Clone</dt>
        <dd>
          <code>git clone {project.web_url}.git</code>
        </dd>
      </dl>
    </>
  );
}
