import { useEffect, useState } from 'react';
import { describeError, getJson } from './api';

/** Where a GET stands: in flight, failed with a readable message, or loaded. */
export type Resource<T> =
  | { readonly status: 'loading' }
  | { readonly status: 'error'; readonly message: string }
  | { readonly status: 'ok'; readonly data: T };

interface LoaderState<T> {
  readonly path: string;
  readonly resource: Resource<T>;
  /** When the server last answered for this path (200 or 304), in ms; null before the first answer. */
  readonly at: number | null;
}

function useLoaderState<T>(
  path: string,
  load: (path: string) => Promise<T>,
  refreshKey: number,
): LoaderState<T> {
  const [state, setState] = useState<LoaderState<T>>({ path, resource: { status: 'loading' }, at: null });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `load` is a module-level function; `refreshKey` only triggers a reload.
  useEffect(() => {
    let current = true;
    setState((prev) =>
      prev.path === path && prev.resource.status === 'ok'
        ? prev
        : { path, resource: { status: 'loading' }, at: null },
    );
    load(path).then(
      (data) => {
        if (!current) return;
        // The same data (a 304) keeps the same resource object, so the page does not re-render its rows.
        setState((prev) =>
          prev.path === path && prev.resource.status === 'ok' && prev.resource.data === data
            ? { ...prev, at: Date.now() }
            : { path, resource: { status: 'ok', data }, at: Date.now() },
        );
      },
      (err: unknown) => {
        if (current) setState({ path, resource: { status: 'error', message: describeError(err) }, at: null });
      },
    );
    return () => {
      current = false;
    };
  }, [path, refreshKey]);
  // On the render where `path` changed but the effect has not run yet, do not show the old data.
  return state.path === path ? state : { path, resource: { status: 'loading' }, at: null };
}

/**
 * Loads `path` with `load` for as long as `path` stays the same; a stale answer is dropped. Changing
 * `refreshKey` loads the same path again but keeps showing the current data until the new answer arrives,
 * so a refresh does not flash a loading line.
 */
export function useLoader<T>(path: string, load: (path: string) => Promise<T>, refreshKey = 0): Resource<T> {
  return useLoaderState(path, load, refreshKey).resource;
}

/** `useLoader`, also telling when the server last answered (for an "Updated 1 min ago" line). */
export function useTimedLoader<T>(
  path: string,
  load: (path: string) => Promise<T>,
  refreshKey = 0,
): { readonly resource: Resource<T>; readonly updatedAt: number | null } {
  const state = useLoaderState(path, load, refreshKey);
  return { resource: state.resource, updatedAt: state.at };
}

/** Loads a JSON resource; see `useLoader` for `refreshKey`. */
export function useResource<T>(path: string, refreshKey = 0): Resource<T> {
  return useLoader<T>(path, getJson, refreshKey);
}
