import { SeverityBadge, StatusBadge } from '../alert-labels';
import { getJson } from '../api';
import { ResourceView, Timestamp } from '../components';
import { Link, paths } from '../router';
import type {
  Alert,
  Issue,
  OncallSchedule,
  OncallUser,
  Project,
  SessionUser,
  TrackedError,
  VersionInfo,
} from '../types';
import { useLoader } from '../use-resource';

/**
 * The per-project reads (alerts, errors, schedules) go to this many of the user's most recently active projects
 * at most, so the page costs a bounded number of requests however many projects the user is in.
 */
export const HOME_PROJECT_LIMIT = 10;
/** The `on_call` reads across all those projects' schedules, at most. */
const HOME_SCHEDULE_LIMIT = 10;
const DAY_MS = 86_400_000;

const PROJECTS_PATH = '/api/v4/projects?membership=true&per_page=100&order_by=last_activity_at&sort=desc';

/** A row of "Alerts and incidents": an open alert or an open incident in one of my projects. */
interface WorkItem {
  readonly kind: 'Alert' | 'Incident';
  readonly key: string;
  readonly title: string;
  readonly to: string;
  readonly project: Project;
  readonly severity: string;
  readonly status: string;
  readonly since: string;
  readonly mine: boolean;
}

interface OncallNow {
  readonly project: Project;
  readonly schedule: OncallSchedule;
  readonly users: readonly OncallUser[];
}

/** An error first seen, or (resolved) seen again, in the last 24 hours: `at` is when it became so. */
interface NewError {
  readonly project: Project;
  readonly error: TrackedError;
  readonly regressed: boolean;
  readonly at: string;
}

interface HomeData {
  readonly projects: readonly Project[];
  readonly work: readonly WorkItem[];
  /** Null when the tier has no on-call schedules (Free): the section says so instead of asking. */
  readonly oncall: readonly OncallNow[] | null;
  readonly errors: readonly NewError[];
}

/** Settled values only: a project the user may not read alerts or errors of (Guest, feature off) adds nothing. */
async function settled<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  return results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
}

/** Everything the page shows, from the user's projects' path. */
function loadHome(userId: number): (projectsPath: string) => Promise<HomeData> {
  return async (projectsPath) => {
    const [projects, version, incidents] = await Promise.all([
      getJson<Project[]>(projectsPath),
      getJson<VersionInfo>('/api/v4/version'),
      getJson<Issue[]>('/api/v4/issues?issue_type=incident&state=opened&scope=all&per_page=100'),
    ]);
    const byId = new Map(projects.map((p) => [p.id, p]));
    const recent = projects.slice(0, HOME_PROJECT_LIMIT);
    const since = Date.now() - DAY_MS;

    const [alertLists, errorLists, scheduleLists] = await Promise.all([
      settled(
        recent.map(async (project) => ({
          project,
          alerts: await getJson<Alert[]>(
            `/api/v4/projects/${project.id}/alert_management/alerts?status=open&per_page=50`,
          ),
        })),
      ),
      // The newest first seen, and the most recently seen (a regression is an old error seen again lately).
      settled(
        recent.map(async (project) => {
          const list = (sort: string) =>
            getJson<TrackedError[]>(
              `/api/v4/projects/${project.id}/error_tracking/errors?status=unresolved&sort=${sort}&per_page=50`,
            );
          const [firstSeen, lastSeen] = await Promise.all([list('first_seen'), list('last_seen')]);
          const byId = new Map([...firstSeen, ...lastSeen].map((e) => [e.id, e]));
          return { project, errors: [...byId.values()] };
        }),
      ),
      version.enterprise
        ? settled(
            recent.map(async (project) => ({
              project,
              schedules: await getJson<OncallSchedule[]>(
                `/api/v4/projects/${project.id}/incident_management/oncall_schedules`,
              ),
            })),
          )
        : Promise.resolve(null),
    ]);

    const work: WorkItem[] = [
      ...alertLists.flatMap(({ project, alerts }) =>
        alerts.map(
          (a): WorkItem => ({
            kind: 'Alert',
            key: `a${project.id}-${a.iid}`,
            title: a.title,
            to: paths.alert(project.id, a.iid),
            project,
            severity: a.severity.toLowerCase(),
            status: a.status.toLowerCase(),
            since: a.started_at,
            mine: a.assignees.some((u) => u.id === userId),
          }),
        ),
      ),
      ...incidents.flatMap((i): WorkItem[] => {
        const project = byId.get(i.project_id);
        if (!project) return [];
        return [
          {
            kind: 'Incident',
            key: `i${project.id}-${i.iid}`,
            title: i.title,
            to: paths.incident(project.id, i.iid),
            project,
            severity: i.severity.toLowerCase(),
            status: i.escalation_status ?? 'triggered',
            since: i.created_at,
            mine: i.assignees.some((u) => u.id === userId),
          },
        ];
      }),
    ];
    // Mine first, then the newest.
    work.sort((x, y) => Number(y.mine) - Number(x.mine) || y.since.localeCompare(x.since));

    const errors = errorLists
      .flatMap(({ project, errors: list }) =>
        list.flatMap((error): NewError[] => {
          if (error.regressed_at !== null && Date.parse(error.regressed_at) >= since)
            return [{ project, error, regressed: true, at: error.regressed_at }];
          if (Date.parse(error.first_seen) >= since)
            return [{ project, error, regressed: false, at: error.first_seen }];
          return [];
        }),
      )
      .sort((x, y) => Date.parse(y.at) - Date.parse(x.at));

    let oncall: OncallNow[] | null = null;
    if (scheduleLists !== null) {
      const schedules = scheduleLists
        .flatMap(({ project, schedules: list }) => list.map((schedule) => ({ project, schedule })))
        .slice(0, HOME_SCHEDULE_LIMIT);
      oncall = await settled(
        schedules.map(async ({ project, schedule }) => ({
          project,
          schedule,
          users: await getJson<OncallUser[]>(
            `/api/v4/projects/${project.id}/incident_management/oncall_schedules/${schedule.iid}/on_call`,
          ),
        })),
      );
    }
    return { projects, work, oncall, errors };
  };
}

/** The signed-in user's start page: what is open, who is on call, what broke lately, across their projects. */
export function HomePage({ user }: { readonly user: SessionUser }) {
  const home = useLoader(PROJECTS_PATH, loadHome(user.id));
  return (
    <>
      <div className="panel-header">
        <h1>Home</h1>
      </div>
      <ResourceView resource={home}>
        {(data) => (
          <>
            {data.projects.length > HOME_PROJECT_LIMIT ? (
              <p className="muted small">
                Alerts, errors and schedules come from your {HOME_PROJECT_LIMIT} most recently active
                projects; open a project for the rest.
              </p>
            ) : null}
            <WorkSection items={data.work} hasProjects={data.projects.length > 0} />
            <OncallSection oncall={data.oncall} userId={user.id} />
            <ErrorsSection errors={data.errors} />
            <ProjectsSection projects={data.projects} />
          </>
        )}
      </ResourceView>
    </>
  );
}

function WorkSection({
  items,
  hasProjects,
}: {
  readonly items: readonly WorkItem[];
  readonly hasProjects: boolean;
}) {
  return (
    <section className="card section" aria-labelledby="home-work">
      <h2 id="home-work">Open alerts and incidents</h2>
      {items.length === 0 ? (
        <p className="muted">
          {hasProjects
            ? 'Nothing open: no triggered or acknowledged alert and no open incident. Alerts arrive through an integration in a project’s Settings.'
            : 'Join or create a project to see its alerts and incidents here.'}
        </p>
      ) : (
        <ul className="list" aria-label="Open alerts and incidents">
          {items.map((item) => (
            <li key={item.key} className="list-row">
              <div className="list-main">
                <span className="badge">{item.kind}</span> <Link to={item.to}>{item.title}</Link>
                <span className="muted"> in {item.project.name_with_namespace ?? item.project.name}</span>
                {item.mine ? <span className="badge"> Assigned to you</span> : null}
              </div>
              <div className="list-meta">
                <SeverityBadge severity={item.severity} />
                <StatusBadge status={item.status} />
                <span className="muted small">
                  Started <Timestamp value={item.since} />
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function OncallSection({
  oncall,
  userId,
}: {
  readonly oncall: readonly OncallNow[] | null;
  readonly userId: number;
}) {
  return (
    <section className="card section" aria-labelledby="home-oncall">
      <h2 id="home-oncall">On call now</h2>
      {oncall === null ? (
        <p className="muted">
          On-call schedules need the Premium or Ultimate tier: an administrator sets SVC_TIER=premium and
          restarts svc.
        </p>
      ) : oncall.length === 0 ? (
        <p className="muted">
          No schedule in your projects yet. Add one in a project’s On-call schedules tab.
        </p>
      ) : (
        <ul className="list" aria-label="On call now">
          {oncall.map(({ project, schedule, users }) => {
            const me = users.find((u) => u.id === userId);
            const until = me?.shifts.map((s) => s.ends_at).sort()[0];
            return (
              <li key={`${project.id}-${schedule.iid}`} className="list-row">
                <div className="list-main">
                  <Link to={paths.project(project.id, 'oncall_schedules')}>{schedule.name}</Link>
                  <span className="muted"> in {project.name_with_namespace ?? project.name}</span>
                  <div>
                    {users.length === 0
                      ? 'Nobody is on call now.'
                      : users.map((u) => (u.id === userId ? 'You' : u.name)).join(', ')}
                  </div>
                </div>
                <div className="list-meta">
                  {me ? (
                    <span className="badge">
                      You are on call{until ? ' until ' : ''}
                      {until ? new Date(until).toLocaleString() : ''}
                    </span>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function ErrorsSection({ errors }: { readonly errors: readonly NewError[] }) {
  return (
    <section className="card section" aria-labelledby="home-errors">
      <h2 id="home-errors">New and regressed errors in the last 24 hours</h2>
      {errors.length === 0 ? (
        <p className="muted">
          No new or regressed error in the last 24 hours. Applications report errors with a client key from a
          project’s Settings (Error tracking).
        </p>
      ) : (
        <ul className="list" aria-label="New and regressed errors">
          {errors.map(({ project, error, regressed, at }) => (
            <li key={`${project.id}-${error.id}`} className="list-row">
              <div className="list-main">
                <span className="badge">{regressed ? 'Regressed' : 'New'}</span>{' '}
                <Link to={paths.error(project.id, error.id)}>{error.title}</Link>
                <span className="muted"> in {project.name_with_namespace ?? project.name}</span>
              </div>
              <div className="list-meta">
                <span className="muted small">
                  {error.count === 1 ? '1 event' : `${error.count} events`} ·{' '}
                  {regressed ? 'seen again' : 'first seen'} <Timestamp value={at} />
                  {regressed ? (
                    <>
                      {' '}
                      · first seen <Timestamp value={error.first_seen} />
                    </>
                  ) : null}
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ProjectsSection({ projects }: { readonly projects: readonly Project[] }) {
  return (
    <section className="card section" aria-labelledby="home-projects">
      <div className="panel-header">
        <h2 id="home-projects">Projects</h2>
        <div className="actions">
          <Link to={paths.projects()}>All projects</Link>
        </div>
      </div>
      {projects.length === 0 ? (
        <div className="empty-state">
          <p>You are not a member of any project yet.</p>
          <p className="muted">
            A project receives alerts from your monitoring and errors from your applications.
          </p>
          <p>
            <Link to={paths.newGroup()} className="button">
              New group
            </Link>{' '}
            <Link to={paths.newProject()} className="button button-primary">
              New project
            </Link>
          </p>
        </div>
      ) : (
        <ul className="list" aria-label="Your projects">
          {projects.slice(0, 20).map((project) => (
            <li key={project.id} className="list-row">
              <div className="list-main">
                <Link to={paths.project(project.id)} className="list-title">
                  {project.name}
                </Link>
                <span className="muted"> {project.path_with_namespace}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
