import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import { type InvalidationBus, LocalBus } from './bus.js';
import { ClusterRepository } from './cluster.repository.js';
import { PgBus } from './pg-bus.js';
import { PushTracker } from './push-tracker.js';
import { LocalRateCounter, type RateCounter, SharedRateCounter } from './rate-counter.js';

/**
 * What several processes on one PostgreSQL database share: caches are invalidated through the bus, rate limits
 * are counted in the database and pushes in progress are recorded there. SQLite is one process: all in memory.
 */
export function wireCluster(deps: {
  kysely: Kysely<Database>;
  /** Whether other processes share the database (PostgreSQL). */
  shared: boolean;
  /** The database to LISTEN on for the bus (PostgreSQL), if any. */
  databaseUrl: string | null;
  clock: Clock;
}): { bus: InvalidationBus; rates: () => RateCounter; pushes: PushTracker } {
  const { shared, clock } = deps;
  const repo = new ClusterRepository(deps.kysely);
  return {
    bus:
      shared && deps.databaseUrl
        ? new PgBus(deps.databaseUrl, (channel, payload) => repo.notify(channel, payload))
        : new LocalBus(),
    // One counter per use: in memory, each keeps its own bound (a flood of collector keys never evicts alert
    // windows).
    rates: () => (shared ? new SharedRateCounter(repo, clock) : new LocalRateCounter(clock)),
    pushes: new PushTracker(repo, shared),
  };
}
