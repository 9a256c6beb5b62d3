import { useEffect, useState } from 'react';
import { describeError, getJson } from './api';

/** Where a GET stands: in flight, failed with a readable message, or loaded. */
export type Resource<T> =
  | { readonly status: 'loading' }
  | { readonly status: 'error'; readonly message: string }
  | { readonly status: 'ok'; readonly data: T };

/**
 * Loads `path` with `load` for as long as `path` stays the same; a stale answer is dropped. Changing
 * `refreshKey` loads the same path again but keeps showing the current data until the new answer arrives,
 * so a refresh does not flash a loading line.
 */
export function useLoader<T>(path: string, load: (path: string) => Promise<T>, refreshKey = 0): Resource<T> {
  const [state, setState] = useState<{ path: string; resource: Resource<T> }>({
    path,
    resource: { status: 'loading' },
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `load` is a module-level function; `refreshKey` only triggers a reload.
  useEffect(() => {
    let current = true;
    setState((prev) =>
      prev.path === path && prev.resource.status === 'ok' ? prev : { path, resource: { status: 'loading' } },
    );
    load(path).then(
      (data) => {
        if (current) setState({ path, resource: { status: 'ok', data } });
      },
      (err: unknown) => {
        if (current) setState({ path, resource: { status: 'error', message: describeError(err) } });
      },
    );
    return () => {
      current = false;
    };
  }, [path, refreshKey]);
  // On the render where `path` changed but the effect has not run yet, do not show the old data.
  return state.path === path ? state.resource : { status: 'loading' };
}

/** Loads a JSON resource; see `useLoader` for `refreshKey`. */
export function useResource<T>(path: string, refreshKey = 0): Resource<T> {
  return useLoader<T>(path, getJson, refreshKey);
}
