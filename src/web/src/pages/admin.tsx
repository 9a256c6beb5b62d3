import { ResourceView, TableScroll } from '../components';
import { Link, paths } from '../router';
import type { AdminUser, SessionUser, VersionInfo } from '../types';
import { useResource } from '../use-resource';

/** Instance version and users; only administrators get here (the API enforces it as well). */
export function AdminPage({ user }: { readonly user: SessionUser }) {
  if (!user.is_admin) return <AdminOnly />;
  return (
    <>
      <h1>Admin area</h1>
      <AdminNav current="overview" />
      <VersionSection />
      <UsersSection />
    </>
  );
}

/** What a user who is not an administrator sees on any page of the admin area, instead of a bare refusal. */
export function AdminOnly() {
  return (
    <div className="empty-state">
      <h1>Admin area</h1>
      <p>Only administrators can open the admin area, and you are not one.</p>
      <p className="muted">
        An administrator can make you one under Admin area → Users, or do what you came for.
      </p>
      <p>
        <Link to={paths.home()}>Back to your home page</Link>
      </p>
    </div>
  );
}

/** The admin area's pages. */
const ADMIN_PAGES = [
  { key: 'overview', label: 'Overview', to: paths.admin },
  { key: 'users', label: 'Users', to: paths.adminUsers },
  { key: 'features', label: 'Features', to: paths.adminFeatures },
  { key: 'settings', label: 'Settings', to: paths.adminSettings },
  { key: 'storages', label: 'Repository storages', to: paths.adminStorages },
  { key: 'deprecations', label: 'Deprecations', to: paths.adminDeprecations },
] as const;

/** Links between the admin area's pages, the current one marked. */
export function AdminNav({ current }: { readonly current: (typeof ADMIN_PAGES)[number]['key'] }) {
  return (
    <nav className="admin-nav" aria-label="Admin area">
      {ADMIN_PAGES.map((p) => (
        <Link key={p.key} to={p.to()} aria-current={p.key === current ? 'page' : undefined}>
          {p.label}
        </Link>
      ))}
    </nav>
  );
}

function VersionSection() {
  const version = useResource<VersionInfo>('/api/v4/version');
  return (
    <section className="card section" aria-labelledby="admin-version">
      <h2 id="admin-version">Version</h2>
      <ResourceView resource={version}>
        {(info) => (
          <dl className="details">
            <dt>Version</dt>
            <dd>{info.version}</dd>
            <dt>Revision</dt>
            <dd>
              <code>{info.revision}</code>
            </dd>
          </dl>
        )}
      </ResourceView>
    </section>
  );
}

function UsersSection() {
  const users = useResource<AdminUser[]>(
    // Offset pagination on /users is removed from 17.0 (deprecation catalog): the UI uses keyset pagination.
    '/api/v4/users?pagination=keyset&order_by=id&sort=asc&per_page=100',
  );
  return (
    <section className="card section" aria-labelledby="admin-users">
      <div className="panel-header">
        <h2 id="admin-users">Users</h2>
        <Link to={paths.adminUsers()} className="button button-small">
          Manage users
        </Link>
      </div>
      <ResourceView resource={users}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No users.</p>
          ) : (
            <TableScroll label="Users">
              <table className="table" aria-labelledby="admin-users">
                <thead>
                  <tr>
                    <th scope="col">ID</th>
                    <th scope="col">Username</th>
                    <th scope="col">Name</th>
                    <th scope="col">State</th>
                    <th scope="col">Role</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((u) => (
                    <tr key={u.id}>
                      <td>{u.id}</td>
                      <td>{u.username}</td>
                      <td>{u.name}</td>
                      <td>{u.state}</td>
                      <td>{u.is_admin ? 'Administrator' : 'Regular'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </ResourceView>
    </section>
  );
}
