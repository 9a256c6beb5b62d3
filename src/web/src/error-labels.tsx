import type { ErrorStatus } from './types';

/** Error statuses in the order of the status filter, with the words the UI shows. */
export const ERROR_STATUS_LABELS: Readonly<Record<ErrorStatus, string>> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

export const ERROR_STATUSES = Object.keys(ERROR_STATUS_LABELS) as ErrorStatus[];

/** The verb of the button that moves an error to a status. */
export const ERROR_STATUS_ACTIONS: Readonly<Record<ErrorStatus, string>> = {
  unresolved: 'Unresolve',
  resolved: 'Resolve',
  ignored: 'Ignore',
};

/** The status of an error as a small badge; an unexpected value is shown as it came. */
export function ErrorStatusBadge({ status }: { readonly status: string }) {
  const known = status in ERROR_STATUS_LABELS ? status : 'ignored';
  return (
    <span className={`status status-${known}`}>{ERROR_STATUS_LABELS[status as ErrorStatus] ?? status}</span>
  );
}

/**
 * How an event's user reads in a list: the id, username, email or IP address the SDK sent, else the server's
 * user key (which is prefixed with its kind, as `id:u1`).
 */
export function userLabel(userKey: string | null, user: unknown): string | null {
  if (user !== null && typeof user === 'object') {
    const u = user as Record<string, unknown>;
    for (const key of ['id', 'username', 'email', 'ip_address']) {
      const value = u[key];
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number') return String(value);
    }
  }
  return userKey;
}
