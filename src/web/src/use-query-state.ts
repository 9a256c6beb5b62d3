import { useCallback, useMemo } from 'react';
import { navigate, useSearch } from './router';

/** How one query parameter reads: its value when absent or unreadable, and an optional parser. */
export interface QueryParam<V> {
  readonly fallback: V;
  /** The parameter's name in the URL, when not the key's (`order_by` for `orderBy`). */
  readonly name?: string;
  /** Null when the text is not a value of this parameter (then the fallback applies). */
  readonly parse?: (text: string) => V | null;
}

/** One of `values`, for tabs and sort orders. */
export function oneOf<V extends string>(values: readonly V[], fallback: V): QueryParam<V> {
  return { fallback, parse: (text) => ((values as readonly string[]).includes(text) ? (text as V) : null) };
}

function readParam<V>(spec: QueryParam<V>, text: string | null): V {
  if (text === null) return spec.fallback;
  if (spec.parse) return spec.parse(text) ?? spec.fallback;
  if (typeof spec.fallback === 'number') {
    const n = Number(text);
    return (Number.isInteger(n) && n >= 1 ? n : spec.fallback) as V;
  }
  return text as V;
}

/**
 * A list's state (tab, search, sort, filters, page) kept in the URL's query string, so a reload, Back and a
 * shared link show the same list. Values equal to their fallback stay out of the URL; parameters the spec
 * does not name are kept. Each change is a history entry unless `replace` is given.
 */
export function useQueryState<T extends Record<string, string | number>>(
  spec: {
    readonly [K in keyof T]: QueryParam<T[K]>;
  },
): [T, (change: Partial<T>, options?: { readonly replace?: boolean }) => void] {
  const search = useSearch();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the spec is a module-level constant per list.
  const state = useMemo(() => {
    const params = new URLSearchParams(search);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(spec)) {
      const param = spec[key as keyof T];
      out[key] = readParam(param, params.get(param.name ?? key));
    }
    return out as T;
  }, [search]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: as above.
  const update = useCallback(
    (change: Partial<T>, options: { readonly replace?: boolean } = {}): void => {
      const params = new URLSearchParams(window.location.search);
      const next = { ...state, ...change };
      for (const key of Object.keys(spec)) {
        const param = spec[key as keyof T];
        const value = next[key as keyof T];
        if (value === param.fallback) params.delete(param.name ?? key);
        else params.set(param.name ?? key, String(value));
      }
      const query = params.toString();
      navigate(`${window.location.pathname}${query === '' ? '' : `?${query}`}`, options);
    },
    [state],
  );
  return [state, update];
}
