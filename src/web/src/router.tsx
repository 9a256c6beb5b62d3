import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from 'react';

/** Client routes live under this prefix so they never collide with API, git or health paths. */
const UI_PREFIX = '/-/ui';

/** The screen a URL path stands for. */
export type Route =
  | { readonly name: 'projects' }
  | { readonly name: 'project'; readonly id: string; readonly tab: ProjectTab }
  | { readonly name: 'alert'; readonly id: string; readonly iid: string }
  | { readonly name: 'incident'; readonly id: string; readonly iid: string }
  | { readonly name: 'error'; readonly id: string; readonly errorId: string }
  | { readonly name: 'admin' }
  | { readonly name: 'admin-storages' }
  | { readonly name: 'admin-deprecations' }
  | { readonly name: 'not-found'; readonly path: string };

/** Tabs of the project page, each with its own URL segment. */
export const PROJECT_TABS = ['alerts', 'error_tracking', 'settings'] as const;
export type ProjectTab = (typeof PROJECT_TABS)[number];

function isProjectTab(value: string): value is ProjectTab {
  return (PROJECT_TABS as readonly string[]).includes(value);
}

/** Maps a pathname to a route; unknown paths become `not-found` rather than throwing. */
export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === UI_PREFIX || path === `${UI_PREFIX}/projects`) return { name: 'projects' };
  if (path === `${UI_PREFIX}/admin`) return { name: 'admin' };
  if (path === `${UI_PREFIX}/admin/storages`) return { name: 'admin-storages' };
  if (path === `${UI_PREFIX}/admin/deprecations`) return { name: 'admin-deprecations' };
  const detail = /^\/-\/ui\/projects\/(\d+)\/(alerts|issues)\/(\d+)$/.exec(path);
  if (detail) {
    return { name: detail[2] === 'alerts' ? 'alert' : 'incident', id: detail[1]!, iid: detail[3]! };
  }
  const error = /^\/-\/ui\/projects\/(\d+)\/errors\/(\d+)$/.exec(path);
  if (error) return { name: 'error', id: error[1]!, errorId: error[2]! };
  const match = /^\/-\/ui\/projects\/(\d+)(?:\/([a-z_]+))?$/.exec(path);
  if (match) {
    const tab = match[2] ?? 'alerts';
    if (isProjectTab(tab)) return { name: 'project', id: match[1]!, tab };
  }
  return { name: 'not-found', path: pathname };
}

/** URL builders, so no component spells a path by hand. */
export const paths = {
  projects: (): string => '/',
  project: (id: number | string, tab: ProjectTab = 'alerts'): string =>
    tab === 'alerts' ? `${UI_PREFIX}/projects/${id}` : `${UI_PREFIX}/projects/${id}/${tab}`,
  alert: (id: number | string, iid: number | string): string => `${UI_PREFIX}/projects/${id}/alerts/${iid}`,
  incident: (id: number | string, iid: number | string): string =>
    `${UI_PREFIX}/projects/${id}/issues/${iid}`,
  error: (id: number | string, errorId: number | string): string =>
    `${UI_PREFIX}/projects/${id}/errors/${errorId}`,
  admin: (): string => `${UI_PREFIX}/admin`,
  adminStorages: (): string => `${UI_PREFIX}/admin/storages`,
  adminDeprecations: (): string => `${UI_PREFIX}/admin/deprecations`,
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
