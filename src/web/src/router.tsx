import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from 'react';

/** Client routes live under this prefix so they never collide with API, git or health paths. */
const UI_PREFIX = '/-/ui';

/** The screen a URL path stands for. */
export type Route =
  | { readonly name: 'home' }
  | { readonly name: 'projects' }
  | { readonly name: 'project'; readonly id: string; readonly tab: ProjectTab }
  | { readonly name: 'alert'; readonly id: string; readonly iid: string }
  | { readonly name: 'incident'; readonly id: string; readonly iid: string }
  | { readonly name: 'error'; readonly id: string; readonly errorId: string }
  | { readonly name: 'error-event'; readonly id: string; readonly errorId: string; readonly eventId: string }
  | { readonly name: 'admin' }
  | { readonly name: 'admin-storages' }
  | { readonly name: 'admin-deprecations' }
  | { readonly name: 'new-project' }
  | { readonly name: 'new-group' }
  | { readonly name: 'groups' }
  | { readonly name: 'group'; readonly path: string }
  | { readonly name: 'snippet'; readonly id: string; readonly inProject: boolean }
  | { readonly name: 'web-path'; readonly path: string; readonly sub: string | null }
  | { readonly name: 'tokens' }
  | { readonly name: 'profile' }
  | { readonly name: 'admin-users' }
  | { readonly name: 'admin-features' }
  | { readonly name: 'admin-settings' }
  | { readonly name: 'not-found'; readonly path: string };

/** Tabs of the project page, each with its own URL segment. */
export const PROJECT_TABS = [
  'alerts',
  'incidents',
  'error_tracking',
  'oncall_schedules',
  'escalation_policy',
  'members',
  'settings',
] as const;
export type ProjectTab = (typeof PROJECT_TABS)[number];

function isProjectTab(value: string): value is ProjectTab {
  return (PROJECT_TABS as readonly string[]).includes(value);
}

/** Maps a pathname to a route; unknown paths become `not-found` rather than throwing. */
export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === UI_PREFIX) return { name: 'home' };
  if (path === `${UI_PREFIX}/projects`) return { name: 'projects' };
  if (path === `${UI_PREFIX}/admin`) return { name: 'admin' };
  if (path === `${UI_PREFIX}/admin/storages`) return { name: 'admin-storages' };
  if (path === `${UI_PREFIX}/admin/deprecations`) return { name: 'admin-deprecations' };
  const page = UI_PAGES[path];
  if (page) return { name: page };
  const webUrl = parseWebUrl(path);
  if (webUrl) return webUrl;
  const detail = /^\/-\/ui\/projects\/(\d+)\/(alerts|issues)\/(\d+)$/.exec(path);
  if (detail) {
    return { name: detail[2] === 'alerts' ? 'alert' : 'incident', id: detail[1]!, iid: detail[3]! };
  }
  const event = /^\/-\/ui\/projects\/(\d+)\/errors\/(\d+)\/events\/([0-9A-Za-z_-]{1,64})$/.exec(path);
  if (event) return { name: 'error-event', id: event[1]!, errorId: event[2]!, eventId: event[3]! };
  const error = /^\/-\/ui\/projects\/(\d+)\/errors\/(\d+)$/.exec(path);
  if (error) return { name: 'error', id: error[1]!, errorId: error[2]! };
  const match = /^\/-\/ui\/projects\/(\d+)(?:\/([a-z_]+))?$/.exec(path);
  if (match) {
    const tab = match[2] ?? 'alerts';
    if (isProjectTab(tab)) return { name: 'project', id: match[1]!, tab };
  }
  return { name: 'not-found', path: pathname };
}

/** Fixed pages of the UI (forms, lists, the admin area's pages). */
type FixedPage = Extract<
  Route,
  {
    readonly name:
      | 'new-project'
      | 'new-group'
      | 'groups'
      | 'tokens'
      | 'profile'
      | 'admin-users'
      | 'admin-features'
      | 'admin-settings';
  }
>['name'];
const UI_PAGES: Readonly<Record<string, FixedPage>> = {
  [`${UI_PREFIX}/projects/new`]: 'new-project',
  [`${UI_PREFIX}/groups/new`]: 'new-group',
  [`${UI_PREFIX}/groups`]: 'groups',
  [`${UI_PREFIX}/profile/personal_access_tokens`]: 'tokens',
  [`${UI_PREFIX}/profile`]: 'profile',
  [`${UI_PREFIX}/admin/users`]: 'admin-users',
  [`${UI_PREFIX}/admin/features`]: 'admin-features',
  [`${UI_PREFIX}/admin/settings`]: 'admin-settings',
};

/**
 * The `web_url`s the API emits, outside `/-/ui`: `/groups/<full path>`, `/-/snippets/<id>`,
 * `/-/project_snippets/<id>`, and `/<namespace path>[/-/<what>]` (a project, a group or a user, with GitLab's
 * sub-pages such as `-/merge_requests/<iid>`). Null for anything else.
 */
function parseWebUrl(path: string): Route | null {
  const group = /^\/groups\/(.+?)(?:\/-(?:\/.*)?)?$/.exec(path);
  if (group) return { name: 'group', path: decodeURIComponent(group[1]!) };
  const snippet = /^\/-\/(snippets|project_snippets)\/(\d+)$/.exec(path);
  if (snippet) return { name: 'snippet', id: snippet[2]!, inProject: snippet[1] === 'project_snippets' };
  if (path === '/' || path.startsWith('/-/')) return null;
  const at = path.indexOf('/-/');
  const namespacePath = (at < 0 ? path : path.slice(0, at)).slice(1);
  const sub = at < 0 ? null : path.slice(at + 3);
  if (namespacePath === '' || sub === '') return null;
  return { name: 'web-path', path: decodeURIComponent(namespacePath), sub };
}

/** URL builders, so no component spells a path by hand. */
export const paths = {
  home: (): string => '/',
  projects: (): string => `${UI_PREFIX}/projects`,
  project: (id: number | string, tab: ProjectTab = 'alerts'): string =>
    tab === 'alerts' ? `${UI_PREFIX}/projects/${id}` : `${UI_PREFIX}/projects/${id}/${tab}`,
  alert: (id: number | string, iid: number | string): string => `${UI_PREFIX}/projects/${id}/alerts/${iid}`,
  incident: (id: number | string, iid: number | string): string =>
    `${UI_PREFIX}/projects/${id}/issues/${iid}`,
  error: (id: number | string, errorId: number | string): string =>
    `${UI_PREFIX}/projects/${id}/errors/${errorId}`,
  errorEvent: (id: number | string, errorId: number | string, eventId: string): string =>
    `${UI_PREFIX}/projects/${id}/errors/${errorId}/events/${encodeURIComponent(eventId)}`,
  admin: (): string => `${UI_PREFIX}/admin`,
  adminStorages: (): string => `${UI_PREFIX}/admin/storages`,
  adminDeprecations: (): string => `${UI_PREFIX}/admin/deprecations`,
  adminUsers: (): string => `${UI_PREFIX}/admin/users`,
  adminFeatures: (): string => `${UI_PREFIX}/admin/features`,
  adminSettings: (): string => `${UI_PREFIX}/admin/settings`,
  newProject: (namespaceId?: number): string =>
    `${UI_PREFIX}/projects/new${namespaceId === undefined ? '' : `?namespace_id=${namespaceId}`}`,
  newGroup: (parentId?: number): string =>
    `${UI_PREFIX}/groups/new${parentId === undefined ? '' : `?parent_id=${parentId}`}`,
  groups: (): string => `${UI_PREFIX}/groups`,
  group: (fullPath: string): string => `/groups/${fullPath}`,
  user: (username: string): string => `/${username}`,
  tokens: (): string => `${UI_PREFIX}/profile/personal_access_tokens`,
  profile: (): string => `${UI_PREFIX}/profile`,
};

const NAVIGATE_EVENT = 'svc:navigate';

/** Moves to `to` without reloading (pushState), or replaces the current entry. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/** The current pathname, updated on back/forward and on `navigate`. */
export function usePathname(): string {
  const [pathname, setPathname] = useState(window.location.pathname);
  useEffect(() => {
    const update = (): void => setPathname(window.location.pathname);
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE_EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE_EVENT, update);
    };
  }, []);
  return pathname;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { readonly to: string };

/** An ordinary link that navigates in-app on a plain left click and behaves natively otherwise. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
    window.scrollTo(0, 0);
  };
  return <a href={to} onClick={handleClick} {...rest} />;
}

/** The current query string (with its `?`, or empty), updated on back/forward and on `navigate`. */
export function useSearch(): string {
  const [search, setSearch] = useState(window.location.search);
  useEffect(() => {
    const update = (): void => setSearch(window.location.search);
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE_EVENT, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE_EVENT, update);
    };
  }, []);
  return search;
}
