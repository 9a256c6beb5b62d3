import { useCallback, useRef, useState } from 'react';
import { describeError, fieldErrors } from './api';

/** Where a user action (a save, a delete, a status change) stands. */
export interface Action {
  /** The action is running: its button is disabled and says so. */
  readonly busy: boolean;
  /** Why the last run failed, readable; null when it did not fail. */
  readonly error: string | null;
  /** The message the last successful run returned; null before, during, after a failure, or without one. */
  readonly done: string | null;
  /** The last failure's sentences by the field they name (GitLab's validation body), for the form's fields. */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * Runs `fn` unless a run is in flight: busy meanwhile, then `done` is the message `fn` returns (when it returns
   * a string), or `error` why it threw. Resolves to whether it succeeded.
   */
  run(fn: () => Promise<unknown>): Promise<boolean>;
  /** Shows an error without running anything (a check before sending). */
  fail(message: string): void;
  /** Forgets the last outcome (the user edits again, or closes a dialog). */
  reset(): void;
}

/** The busy/error/done state of one user action; `describe` turns a failure into the message shown. */
export function useAction(describe: (err: unknown) => string = describeError): Action {
  const [state, setState] = useState<{
    busy: boolean;
    error: string | null;
    done: string | null;
    fields: Readonly<Record<string, string>>;
  }>({ busy: false, error: null, done: null, fields: {} });
  // A second click before the re-render must not start a second run.
  const running = useRef(false);
  const run = useCallback(
    async (fn: () => Promise<unknown>): Promise<boolean> => {
      if (running.current) return false;
      running.current = true;
      setState({ busy: true, error: null, done: null, fields: {} });
      try {
        const result = await fn();
        const done = typeof result === 'string' ? result : null;
        setState({ busy: false, error: null, done, fields: {} });
        return true;
      } catch (err) {
        setState({ busy: false, error: describe(err), done: null, fields: fieldErrors(err) });
        return false;
      } finally {
        running.current = false;
      }
    },
    [describe],
  );
  const fail = useCallback(
    (message: string) => setState({ busy: false, error: message, done: null, fields: {} }),
    [],
  );
  const reset = useCallback(() => setState((s) => ({ ...s, error: null, done: null, fields: {} })), []);
  return { ...state, run, fail, reset };
}
