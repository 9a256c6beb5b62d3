import { useEffect, useState } from 'react';
import { relativeTime, useNow } from './components';

/** How often an open list asks the server again; each unchanged answer is a 304 with no body. */
export const POLL_INTERVAL_MS = 12_000;

/**
 * A counter that goes up every `interval` ms while the page is visible, and once at once when it becomes visible
 * again after having been hidden, so a list in a background tab costs nothing and is current when looked at.
 * Add it to a loader's `refreshKey`.
 */
export function usePolling(interval = POLL_INTERVAL_MS): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | null = null;
    const start = (): void => {
      if (timer === null) timer = setInterval(() => setTick((t) => t + 1), interval);
    };
    const stop = (): void => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    };
    const onVisibility = (): void => {
      if (document.visibilityState === 'visible') {
        setTick((t) => t + 1);
        start();
      } else stop();
    };
    if (document.visibilityState === 'visible') start();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [interval]);
  return tick;
}

/** "Updated just now": when the list last heard from the server, announced politely when it changes. */
export function UpdatedAt({ at }: { readonly at: number | null }) {
  const now = useNow();
  if (at === null) return null;
  // The clock ticks every 30 s; a fresh answer is "just now" even if the clock has not ticked since.
  const text = relativeTime(new Date(at), Math.max(now, at));
  return (
    <span className="muted small updated-at" title={new Date(at).toLocaleString()}>
      Updated <time dateTime={new Date(at).toISOString()}>{text}</time>
    </span>
  );
}
