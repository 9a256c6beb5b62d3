import { useId, useState } from 'react';
import { Breadcrumbs, ResourceView, TabList } from '../components';
import { Link, navigate, paths } from '../router';
import type { Group, Project } from '../types';
import { useResource } from '../use-resource';
import { EscalationPolicyPanel } from './escalation-policy';
import { MembersSection } from './members';
import { RenameAndDelete } from './namespace-settings';
import { OncallSchedulesPanel } from './oncall-schedules';
import { ProjectLinks } from './projects';

/** The groups the user can see, with a "New group" button. */
export function GroupsPage() {
  const groups = useResource<Group[]>('/api/v4/groups?per_page=100&order_by=path&sort=asc');
  return (
    <>
      <div className="panel-header">
        <h1>Groups</h1>
        <Link to={paths.newGroup()} className="button button-primary">
          New group
        </Link>
      </div>
      <ResourceView resource={groups}>
        {(list) =>
          list.length === 0 ? (
            <div className="empty-state">
              <p>No groups yet.</p>
              <p>
                <Link to={paths.newGroup()}>Create a group</Link> to share projects with a team.
              </p>
            </div>
          ) : (
            <ul className="list" aria-label="Groups">
              {list.map((g) => (
                <li key={g.id} className="list-row">
                  <div className="list-main">
                    <Link to={paths.group(g.full_path)} className="list-title">
                      {g.name}
                    </Link>
                    <span className="muted"> {g.full_path}</span>
                    {g.description ? <p className="list-description">{g.description}</p> : null}
                  </div>
                  <div className="list-meta">
                    <span className="badge">{g.visibility}</span>
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </ResourceView>
    </>
  );
}

/** A group's page (its `web_url`, `/groups/<full path>`): subgroups, projects, members. */
export function GroupPage({ path }: { readonly path: string }) {
  // Bumped after a rename that keeps the path (a new path is a new page).
  const [version, setVersion] = useState(0);
  const group = useResource<Group>(`/api/v4/groups/${encodeURIComponent(path)}`, version);
  return (
    <>
      <Breadcrumbs links={[{ to: paths.groups(), label: 'Groups' }]} current={path} />
      <ResourceView resource={group}>
        {(g) => <GroupView group={g} onRenamed={() => setVersion((v) => v + 1)} />}
      </ResourceView>
    </>
  );
}

/** The group page's sections: its content, and its on-call (the project pages' panels, for the group). */
const GROUP_SECTIONS = ['overview', 'oncall_schedules', 'escalation_policy'] as const;
type GroupSection = (typeof GROUP_SECTIONS)[number];
const GROUP_SECTION_LABELS: Record<GroupSection, string> = {
  overview: 'Overview',
  oncall_schedules: 'On-call schedules',
  escalation_policy: 'Escalation policy',
};

function GroupView({ group, onRenamed }: { readonly group: Group; readonly onRenamed: () => void }) {
  const baseId = useId();
  const [section, setSection] = useState<GroupSection>('overview');
  return (
    <>
      <header className="page-header">
        <div className="panel-header">
          <h1>{group.name}</h1>
          <div className="actions">
            <Link to={paths.newGroup(group.id)} className="button">
              New subgroup
            </Link>
            <Link to={paths.newProject(group.id)} className="button button-primary">
              New project
            </Link>
          </div>
        </div>
        <p className="muted">
          {group.full_path} · <span className="badge">{group.visibility}</span>
        </p>
        {group.description ? <p>{group.description}</p> : null}
      </header>
      <TabList
        label="Group sections"
        variant="tab"
        tabs={GROUP_SECTIONS}
        selected={section}
        onSelect={setSection}
        tabId={(t) => `${baseId}-tab-${t}`}
        panelId={(t) => `${baseId}-panel-${t}`}
      >
        {(t) => GROUP_SECTION_LABELS[t]}
      </TabList>
      <section
        className="tab-panel"
        role="tabpanel"
        id={`${baseId}-panel-${section}`}
        aria-labelledby={`${baseId}-tab-${section}`}
      >
        {section === 'overview' && <GroupOverview group={group} onRenamed={onRenamed} />}
        {section === 'oncall_schedules' && (
          <>
            <p className="muted">
              A group's schedules take its members, and those of the groups above it; its escalation policy
              can page them.
            </p>
            <OncallSchedulesPanel group={group} />
          </>
        )}
        {section === 'escalation_policy' && (
          <>
            <p className="muted">
              The group's policy pages for every project in the group and its subgroups that has no policy of
              its own (a subgroup's policy wins over this one).
            </p>
            <EscalationPolicyPanel group={group} />
          </>
        )}
      </section>
    </>
  );
}

function GroupOverview({ group, onRenamed }: { readonly group: Group; readonly onRenamed: () => void }) {
  const subgroups = useResource<Group[]>(`/api/v4/groups/${group.id}/subgroups?per_page=100`);
  const projects = useResource<Project[]>(
    `/api/v4/groups/${group.id}/projects?per_page=100&order_by=name&sort=asc`,
  );
  return (
    <>
      <section className="card section" aria-labelledby="group-subgroups">
        <h2 id="group-subgroups">Subgroups</h2>
        <ResourceView resource={subgroups}>
          {(list) =>
            list.length === 0 ? (
              <p className="muted">No subgroups.</p>
            ) : (
              <ul className="list" aria-label="Subgroups">
                {list.map((g) => (
                  <li key={g.id} className="list-row">
                    <Link to={paths.group(g.full_path)} className="list-title">
                      {g.name}
                    </Link>
                    <span className="muted"> {g.full_path}</span>
                  </li>
                ))}
              </ul>
            )
          }
        </ResourceView>
      </section>
      <section className="card section" aria-labelledby="group-projects">
        <h2 id="group-projects">Projects</h2>
        <ResourceView resource={projects}>
          {(list) =>
            list.length === 0 ? (
              <p className="muted">
                No projects yet. <Link to={paths.newProject(group.id)}>Create one in this group</Link>.
              </p>
            ) : (
              <ProjectLinks label="Group projects" projects={list} />
            )
          }
        </ResourceView>
      </section>
      <MembersSection kind="groups" id={group.id} />
      <section className="card section" aria-label="Group settings">
        <RenameAndDelete
          kind="groups"
          target={{ id: group.id, name: group.name, path: group.path, fullPath: group.full_path }}
          onChanged={({ fullPath }) =>
            fullPath === group.full_path ? onRenamed() : navigate(paths.group(fullPath), { replace: true })
          }
        />
      </section>
    </>
  );
}
