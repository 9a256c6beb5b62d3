import { useEffect, useState } from 'react';
import { describeError, getJson } from './api';

/** Where a GET stands: in flight, failed with a readable message, or loaded. */
export type Resource<T> =
  | { readonly status: 'loading' }
  | { readonly status: 'error'; readonly message: string }
  | { readonly status: 'ok'; readonly data: T };

/** Loads a JSON resource for as long as `path` stays the same; a stale answer is dropped. */
export function useResource<T>(path: string): Resource<T> {
  const [state, setState] = useState<{ path: string; resource: Resource<T> }>({
    path,
    resource: { status: 'loading' },
  });
  useEffect(() => {
    let current = true;
    setState({ path, resource: { status: 'loading' } });
    getJson<T>(path).then(
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
  }, [path]);
  // On the render where `path` changed but the effect has not run yet, do not show the old data.
  return state.path === path ? state.resource : { status: 'loading' };
}
