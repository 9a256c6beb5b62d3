import type { Kysely, Selectable } from 'kysely';
import { readNullableTimestamp } from '../db/dialect.js';
import type { AlertHeartbeatsTable, Database, Queryable } from '../db/schema.js';
import type { Heartbeat, HeartbeatConfig, HeartbeatState } from './heartbeats.js';

function toHeartbeat(r: Selectable<AlertHeartbeatsTable>): Heartbeat {
  return {
    integrationId: r.integration_id,
    projectId: r.project_id,
    intervalSeconds: r.interval_seconds,
    graceSeconds: r.grace_seconds,
    alertname: r.alertname,
    state: r.state as HeartbeatState,
    lastSeenAt: readNullableTimestamp(r.last_seen_at),
    deadlineAt: readNullableTimestamp(r.deadline_at),
  };
}

/** The `alert_heartbeats` rows: settings and state of each integration's heartbeat. */
export class HeartbeatsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async forProject(projectId: number): Promise<Heartbeat[]> {
    const rows = await this.db
      .selectFrom('alert_heartbeats')
      .selectAll()
      .where('project_id', '=', projectId)
      .execute();
    return rows.map(toHeartbeat);
  }

  /** Every heartbeat waiting for a deadline. */
  async withDeadline(): Promise<Heartbeat[]> {
    const rows = await this.db
      .selectFrom('alert_heartbeats')
      .selectAll()
      .where('deadline_at', 'is not', null)
      .execute();
    return rows.map(toHeartbeat);
  }

  async get(integrationId: number, trx: Queryable = this.db): Promise<Heartbeat | null> {
    const r = await trx
      .selectFrom('alert_heartbeats')
      .selectAll()
      .where('integration_id', '=', integrationId)
      .executeTakeFirst();
    return r ? toHeartbeat(r) : null;
  }

  /** Sets the settings (a new heartbeat starts waiting for its first call); the state of an existing one stays. */
  async upsert(
    projectId: number,
    integrationId: number,
    c: HeartbeatConfig,
    now: string,
    deadlineAt: string | null,
  ): Promise<void> {
    await this.db
      .insertInto('alert_heartbeats')
      .values({
        integration_id: integrationId,
        project_id: projectId,
        interval_seconds: c.intervalSeconds,
        grace_seconds: c.graceSeconds,
        alertname: c.alertname,
        state: 'waiting',
        last_seen_at: null,
        deadline_at: null,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.column('integration_id').doUpdateSet({
          interval_seconds: c.intervalSeconds,
          grace_seconds: c.graceSeconds,
          alertname: c.alertname,
          deadline_at: deadlineAt,
          updated_at: now,
        }),
      )
      .execute();
  }

  async delete(integrationId: number): Promise<void> {
    await this.db.deleteFrom('alert_heartbeats').where('integration_id', '=', integrationId).execute();
  }

  /**
   * Moves the state from `from` to `to` only if it is `from` now: of two processes (or a job run twice after a
   * crash) that race for one transition, exactly one wins (PostgreSQL re-checks the condition after the row
   * lock; SQLite has one writer).
   */
  async transition(
    trx: Queryable,
    integrationId: number,
    from: HeartbeatState,
    to: HeartbeatState,
    now: string,
  ): Promise<boolean> {
    const r = await trx
      .updateTable('alert_heartbeats')
      .set({ state: to, updated_at: now })
      .where('integration_id', '=', integrationId)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Records a call: when it came and the new deadline. */
  async seen(trx: Queryable, integrationId: number, at: string, deadlineAt: string): Promise<void> {
    await trx
      .updateTable('alert_heartbeats')
      .set({ last_seen_at: at, deadline_at: deadlineAt, updated_at: at })
      .where('integration_id', '=', integrationId)
      .execute();
  }
}
