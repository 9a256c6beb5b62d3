import { type ReactNode, useState } from 'react';
import { describeError } from './api';

/**
 * Rows picked on a list, by id. Only ids still on the shown page count, so a poll that drops a row drops it from
 * the selection too, while the rows that stay keep their checkbox.
 */
export function useSelection<K>(visible: readonly K[]) {
  const [picked, setPicked] = useState<ReadonlySet<K>>(new Set());
  const selected = visible.filter((k) => picked.has(k));
  const toggle = (key: K, on: boolean): void =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
  const setAll = (on: boolean): void => setPicked(on ? new Set(visible) : new Set());
  return {
    selected,
    isSelected: (key: K): boolean => picked.has(key),
    toggle,
    setAll,
    allSelected: visible.length > 0 && selected.length === visible.length,
    clear: (): void => setPicked(new Set()),
  };
}

/** What a bulk action did: how many rows it changed, and each failure with the server's reason. */
export interface BulkOutcome {
  readonly action: string;
  readonly done: number;
  readonly failed: readonly { readonly label: string; readonly reason: string }[];
}

/** Applies `apply` to each key one after another (the server's throttles apply per request) and counts. */
export async function runBulk<K>(
  action: string,
  keys: readonly K[],
  label: (key: K) => string,
  apply: (key: K) => Promise<unknown>,
): Promise<BulkOutcome> {
  let done = 0;
  const failed: { label: string; reason: string }[] = [];
  for (const key of keys) {
    try {
      await apply(key);
      done += 1;
    } catch (err) {
      failed.push({ label: label(key), reason: describeError(err) });
    }
  }
  return { action, done, failed };
}

/** The summary line of a bulk action, with the failures listed. */
export function BulkSummary({
  outcome,
  onDismiss,
}: {
  readonly outcome: BulkOutcome;
  readonly onDismiss: () => void;
}) {
  const failed = outcome.failed.length;
  return (
    <div className={`notice ${failed > 0 ? 'notice-error' : 'notice-success'} bulk-summary`}>
      <output>
        {outcome.action}: {outcome.done} done{failed > 0 ? `, ${failed} failed` : ''}.
      </output>{' '}
      <button type="button" className="button button-small" onClick={onDismiss}>
        Dismiss
      </button>
      {failed > 0 && (
        <ul>
          {outcome.failed.map((f) => (
            <li key={f.label}>
              {f.label}: {f.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The bar above a list while rows are selected: the count, then the actions. */
export function BulkBar({ count, children }: { readonly count: number; readonly children: ReactNode }) {
  return (
    <div className="bulk-bar" role="toolbar" aria-label="Bulk actions">
      <span className="bulk-count">{count} selected</span>
      {children}
    </div>
  );
}
