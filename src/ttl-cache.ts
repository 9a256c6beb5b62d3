import type { Clock } from './clock.js';

/**
 * A short-lived cache of lookups, kept as promises so concurrent callers share one lookup. An entry is reused for
 * `ttlMs` after its lookup started; a failed lookup is dropped at once (the next call tries again). Memory is
 * bounded: when `maxEntries` are held, the cache starts over.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { readonly value: Promise<V>; readonly at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value of `key`, or the result of `load()` (then cached). */
  get(key: K, load: () => Promise<V>): Promise<V> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(key);
    if (hit && now - hit.at <= this.ttlMs) return hit.value;
    const entry = { value: load(), at: now };
    if (!hit && this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }

  /** Forgets everything (after a change made through this process, which must apply at once). */
  clear(): void {
    this.entries.clear();
  }
}
