import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';

/** A container's repository as pushes and moves name it: `project:12`, `snippet:3`, `group:7`. */
export type ContainerKey = `${'project' | 'snippet' | 'group'}:${number}`;

const CONTAINER_TABLE = { project: 'projects', snippet: 'snippets', group: 'namespaces' } as const;

/** What several processes on one database share: rate-limit windows, pushes in progress, notifications. */
export class ClusterRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Counts `n` hits on `key` in its fixed window (one atomic upsert: a window that ended starts again at `now`);
   * returns the window's end and its count with these hits.
   */
  async hit(
    key: string,
    n: number,
    periodMs: number,
    now: number,
  ): Promise<{ endsAt: number; count: number }> {
    const row = await this.db
      .insertInto('rate_limit_windows')
      .values({ key, ends_at: now + periodMs, count: n })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql<number>`CASE WHEN rate_limit_windows.ends_at <= ${now} THEN ${n} ELSE rate_limit_windows.count + ${n} END`,
          ends_at: sql<number>`CASE WHEN rate_limit_windows.ends_at <= ${now} THEN ${now + periodMs} ELSE rate_limit_windows.ends_at END`,
        }),
      )
      .returning(['ends_at', 'count'])
      .executeTakeFirstOrThrow();
    return { endsAt: Number(row.ends_at), count: row.count };
  }

  /** The window of `key` when it is still open at `now`. */
  async window(key: string, now: number): Promise<{ endsAt: number; count: number } | null> {
    const row = await this.db
      .selectFrom('rate_limit_windows')
      .select(['ends_at', 'count'])
      .where('key', '=', key)
      .where('ends_at', '>', now)
      .executeTakeFirst();
    return row ? { endsAt: Number(row.ends_at), count: row.count } : null;
  }

  /** Deletes windows that ended (the table holds only open windows, whatever arrives). */
  async sweepWindows(now: number): Promise<void> {
    await this.db.deleteFrom('rate_limit_windows').where('ends_at', '<=', now).execute();
  }

  /** Records a push in progress; its id. */
  async beginPush(container: ContainerKey, owner: string, now: number): Promise<number> {
    const row = await this.db
      .insertInto('git_pushes')
      .values({ container, owner, heartbeat_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async endPush(id: number): Promise<void> {
    await this.db.deleteFrom('git_pushes').where('id', '=', id).execute();
  }

  /** Keeps every push of `owner` alive. */
  async heartbeat(owner: string, now: number): Promise<void> {
    await this.db.updateTable('git_pushes').set({ heartbeat_at: now }).where('owner', '=', owner).execute();
  }

  /** Pushes to the container whose heartbeat is newer than `since`. */
  async livePushes(container: ContainerKey, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('git_pushes')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('container', '=', container)
      .where('heartbeat_at', '>', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Deletes pushes whose process stopped beating before `before` (killed). */
  async sweepPushes(before: number): Promise<void> {
    await this.db.deleteFrom('git_pushes').where('heartbeat_at', '<=', before).execute();
  }

  /** Whether the container is read-only now (a storage move is scheduled or running), read from its row. */
  async readOnly(container: ContainerKey): Promise<boolean> {
    const [kind, id] = container.split(':') as [keyof typeof CONTAINER_TABLE, string];
    const row = await this.db
      .selectFrom(CONTAINER_TABLE[kind])
      .select('repository_read_only')
      .where('id', '=', Number(id))
      .executeTakeFirst();
    return row ? Boolean(row.repository_read_only) : false;
  }

  /** `NOTIFY channel, payload` (PostgreSQL only). */
  async notify(channel: string, payload: string): Promise<void> {
    await sql`SELECT pg_notify(${channel}, ${payload})`.execute(this.db);
  }
}
