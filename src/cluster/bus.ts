/**
 * What a change can make stale in another process's memory. Each in-memory cache subscribes to the topics its
 * entries are read from; a service that changes such data publishes its topic after the change committed.
 */
export type Topic =
  | 'projects'
  | 'integrations'
  | 'error-tracking'
  | 'settings'
  | 'flags'
  | 'escalation-policies'
  | 'notifications';

export const TOPICS: readonly Topic[] = [
  'projects',
  'integrations',
  'error-tracking',
  'settings',
  'flags',
  'escalation-policies',
  'notifications',
];

/**
 * The cache invalidation bus. `publish` clears the subscribed caches of this process before it resolves, and of
 * every other process on the same database as soon as they hear of it (PostgreSQL `LISTEN/NOTIFY`, see
 * `PgBus`). A process that loses its connection to the bus cannot know what it missed, so it flushes every cache
 * when it notices and again when it is back: the caches' short lifetime covers only that gap.
 */
export interface InvalidationBus {
  /** Announces a committed change of `topic`; resolves once this process's caches are clear and the notice sent. */
  publish(topic: Topic): Promise<void>;
  /** Calls `fn` whenever `topic` changes anywhere, and on every flush. */
  subscribe(topics: Topic | readonly Topic[], fn: () => void): void;
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * One row of the invalidation table: a topic, the change hooks that announce it (after the change committed) and
 * the caches it makes stale, cleared in every process. Each cache subscribes on its own, in the order given.
 */
export interface Invalidation {
  readonly topic: Topic;
  readonly changedBy: readonly ((announce: () => Promise<void>) => void)[];
  readonly invalidates: readonly (() => void)[];
}

/** Wires the table: each change hook publishes its topic, each cache subscribes to the topics it reads. */
export function wireInvalidation(bus: InvalidationBus, table: readonly Invalidation[]): void {
  for (const row of table) {
    for (const hook of row.changedBy) hook(() => bus.publish(row.topic));
    for (const clear of row.invalidates) bus.subscribe(row.topic, clear);
  }
}

/** Subscribers by topic, shared by both buses. */
export class Subscribers {
  private readonly byTopic = new Map<Topic, (() => void)[]>();

  add(topics: Topic | readonly Topic[], fn: () => void): void {
    for (const t of typeof topics === 'string' ? [topics] : topics) {
      const list = this.byTopic.get(t) ?? [];
      list.push(fn);
      this.byTopic.set(t, list);
    }
  }

  /** Calls the subscribers of `topic` (a subscriber that throws does not stop the others). */
  fire(topic: Topic): void {
    for (const fn of this.byTopic.get(topic) ?? []) {
      try {
        fn();
      } catch {
        // A cache's clear() does not throw; nothing else subscribes.
      }
    }
  }

  /** Calls every subscriber once (a flush after a lost connection). */
  fireAll(): void {
    const all = new Set([...this.byTopic.values()].flat());
    for (const fn of all) {
      try {
        fn();
      } catch {
        // as above
      }
    }
  }
}

/** One process alone (SQLite, or a test's in-process server): a publish clears this process's caches. */
export class LocalBus implements InvalidationBus {
  private readonly subscribers = new Subscribers();

  async publish(topic: Topic): Promise<void> {
    this.subscribers.fire(topic);
  }

  subscribe(topics: Topic | readonly Topic[], fn: () => void): void {
    this.subscribers.add(topics, fn);
  }

  async close(): Promise<void> {}
}
