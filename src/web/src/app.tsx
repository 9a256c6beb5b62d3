import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { clearSession, describeError, fetchSession, setUnauthorizedHandler, signOut } from './api';
import { ErrorNotice, Loading } from './components';
import { AdminPage } from './pages/admin';
import { FeaturesPage } from './pages/admin-features';
import { SettingsPage } from './pages/admin-settings';
import { AdminUsersPage } from './pages/admin-users';
import { AlertPage } from './pages/alert';
import { DeprecationsPage } from './pages/deprecations';
import { ErrorPage } from './pages/error';
import { ErrorEventPage } from './pages/error-event';
import { GroupPage, GroupsPage } from './pages/groups';
import { HomePage } from './pages/home';
import { IncidentPage } from './pages/incident';
import { NewGroupPage } from './pages/new-group';
import { NewProjectPage } from './pages/new-project';
import { NotFoundPage } from './pages/not-found';
import { ProfilePage } from './pages/profile';
import { ProjectPage } from './pages/project';
import { ProjectsPage } from './pages/projects';
import { SignInPage } from './pages/sign-in';
import { SnippetPage } from './pages/snippet';
import { StoragesPage } from './pages/storages';
import { TokensPage } from './pages/tokens';
import { WebPathPage } from './pages/web-path';
import { Link, parseRoute, paths, type Route, usePathname } from './router';
import { SessionUserContext } from './session-user';
import { ThemeSwitch } from './theme';
import type { Session, SessionUser } from './types';
import { useAction } from './use-action';

type SessionState =
  | { readonly status: 'loading' }
  | { readonly status: 'error'; readonly message: string }
  | { readonly status: 'signed-out'; readonly notice?: string }
  | { readonly status: 'signed-in'; readonly session: Session };

/** Root component: resolves the session, then shows sign-in or the signed-in shell. */
export function App() {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const load = useCallback(() => {
    setState({ status: 'loading' });
    fetchSession().then(
      (session) => setState(session ? { status: 'signed-in', session } : { status: 'signed-out' }),
      (err: unknown) => setState({ status: 'error', message: describeError(err) }),
    );
  }, []);

  useEffect(load, [load]);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      clearSession();
      setState({ status: 'signed-out', notice: 'Your session has ended. Please sign in again.' });
    });
    return () => setUnauthorizedHandler(null);
  }, []);

  if (state.status === 'loading') {
    return (
      <main className="centered">
        <Loading />
      </main>
    );
  }
  if (state.status === 'error') {
    return (
      <main className="centered">
        <ErrorNotice message={state.message} />
        <button type="button" className="button" onClick={load}>
          Try again
        </button>
      </main>
    );
  }
  if (state.status === 'signed-out') {
    return (
      <>
        {state.notice ? <output className="banner">{state.notice}</output> : null}
        <SignInPage onSignedIn={(session) => setState({ status: 'signed-in', session })} />
      </>
    );
  }
  const { session } = state;
  return (
    <Shell
      user={session.user}
      onSignedOut={() => setState({ status: 'signed-out' })}
      onUserChanged={(user) => setState({ status: 'signed-in', session: { ...session, user } })}
    />
  );
}

function Shell({
  user,
  onSignedOut,
  onUserChanged,
}: {
  readonly user: SessionUser;
  readonly onSignedOut: () => void;
  readonly onUserChanged: (user: SessionUser) => void;
}) {
  const pathname = usePathname();
  const route = parseRoute(pathname);
  const signOutAction = useAction();
  // On narrow screens the navigation and user links sit behind a menu button (styles.css shows them inline on
  // wide ones); moving to another page closes it.
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing is the point of a new pathname
  useEffect(() => setMenuOpen(false), [pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [menuOpen]);

  useEffect(() => {
    document.title = `${titleOf(route)} · svc`;
  });

  const doSignOut = async (): Promise<void> => {
    await signOutAction.run(async () => {
      await signOut();
      onSignedOut();
    });
  };

  return (
    <>
      <header className="topbar" data-menu-open={menuOpen ? 'true' : 'false'}>
        <Link to={paths.home()} className="brand">
          svc
        </Link>
        <button
          ref={menuButton}
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls={menuId}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span className="menu-icon" aria-hidden="true" />
          Menu
        </button>
        <div className="topbar-menu" id={menuId}>
          <nav aria-label="Main" className="topnav">
            <Link to={paths.projects()} aria-current={route.name === 'projects' ? 'page' : undefined}>
              Projects
            </Link>
            <Link to={paths.groups()} aria-current={route.name === 'groups' ? 'page' : undefined}>
              Groups
            </Link>
            {user.is_admin ? (
              <Link to={paths.admin()} aria-current={route.name.startsWith('admin') ? 'page' : undefined}>
                Admin area
              </Link>
            ) : null}
          </nav>
          <div className="topbar-user">
            <Link
              to={paths.profile()}
              title={`@${user.username}: your profile`}
              aria-current={route.name === 'profile' ? 'page' : undefined}
            >
              {user.name}
            </Link>
            <Link to={paths.tokens()} aria-current={route.name === 'tokens' ? 'page' : undefined}>
              Access tokens
            </Link>
            <ThemeSwitch />
            <button
              type="button"
              className="button button-small"
              onClick={() => void doSignOut()}
              disabled={signOutAction.busy}
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main className="content">
        {signOutAction.error !== null && (
          <ErrorNotice message={`Could not sign out: ${signOutAction.error}`} />
        )}
        <SessionUserContext.Provider value={user}>
          <RouteView route={route} user={user} onUserChanged={onUserChanged} />
        </SessionUserContext.Provider>
      </main>
    </>
  );
}

function RouteView({
  route,
  user,
  onUserChanged,
}: {
  readonly route: Route;
  readonly user: SessionUser;
  readonly onUserChanged: (user: SessionUser) => void;
}) {
  switch (route.name) {
    case 'home':
      return <HomePage user={user} />;
    case 'projects':
      return <ProjectsPage />;
    case 'project':
      return <ProjectPage key={route.id} id={route.id} tab={route.tab} />;
    case 'alert':
      return <AlertPage key={`${route.id}/${route.iid}`} projectId={route.id} iid={route.iid} />;
    case 'incident':
      return <IncidentPage key={`${route.id}/${route.iid}`} projectId={route.id} iid={route.iid} />;
    case 'error':
      return <ErrorPage key={`${route.id}/${route.errorId}`} projectId={route.id} errorId={route.errorId} />;
    case 'error-event':
      return (
        <ErrorEventPage
          key={`${route.id}/${route.errorId}/${route.eventId}`}
          projectId={route.id}
          errorId={route.errorId}
          eventId={route.eventId}
        />
      );
    case 'admin':
      return <AdminPage user={user} />;
    case 'admin-storages':
      return <StoragesPage user={user} />;
    case 'admin-deprecations':
      return <DeprecationsPage user={user} />;
    case 'new-project':
      return <NewProjectPage />;
    case 'new-group':
      return <NewGroupPage />;
    case 'groups':
      return <GroupsPage />;
    case 'group':
      return <GroupPage key={route.path} path={route.path} />;
    case 'snippet':
      return <SnippetPage key={route.id} id={route.id} />;
    case 'web-path':
      return <WebPathPage key={`${route.path}/-/${route.sub}`} path={route.path} sub={route.sub} />;
    case 'tokens':
      return <TokensPage user={user} />;
    case 'profile':
      return <ProfilePage onChanged={onUserChanged} />;
    case 'admin-users':
      return <AdminUsersPage user={user} />;
    case 'admin-features':
      return <FeaturesPage user={user} />;
    case 'admin-settings':
      return <SettingsPage user={user} />;
    case 'not-found':
      return <NotFoundPage path={route.path} />;
  }
}

function titleOf(route: Route): string {
  switch (route.name) {
    case 'home':
      return 'Home';
    case 'projects':
      return 'Projects';
    case 'project':
      return 'Project';
    case 'alert':
      return `Alert #${route.iid}`;
    case 'incident':
      return `Incident #${route.iid}`;
    case 'error':
      return `Error ${route.errorId}`;
    case 'error-event':
      return `Event ${route.eventId.slice(0, 8)} · Error ${route.errorId}`;
    case 'admin':
      return 'Admin area';
    case 'admin-storages':
      return 'Repository storages · Admin area';
    case 'admin-deprecations':
      return 'Deprecations · Admin area';
    case 'new-project':
      return 'New project';
    case 'new-group':
      return 'New group';
    case 'groups':
      return 'Groups';
    case 'group':
      return route.path;
    case 'snippet':
      return `Snippet ${route.id}`;
    case 'web-path':
      return route.path;
    case 'tokens':
      return 'Personal access tokens';
    case 'profile':
      return 'Profile';
    case 'admin-users':
      return 'Users · Admin area';
    case 'admin-features':
      return 'Features · Admin area';
    case 'admin-settings':
      return 'Settings · Admin area';
    case 'not-found':
      return 'Not found';
  }
}
