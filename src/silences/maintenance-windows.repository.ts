import type { Kysely, Selectable } from 'kysely';
import { readTimestamp } from '../db/dialect.js';
import { fetchPage } from '../db/pagination.js';
import type { Database, MaintenanceWindowsTable } from '../db/schema.js';
import type { Paged, PageRequest } from '../pagination.js';
import type { MaintenanceWindow, WindowState } from './maintenance-windows.js';

const toWindow = (r: Selectable<MaintenanceWindowsTable>): MaintenanceWindow => ({
  id: r.id,
  projectId: r.project_id,
  integrationId: r.integration_id,
  startsAt: readTimestamp(r.starts_at),
  endsAt: readTimestamp(r.ends_at),
  createdById: r.created_by_id,
  comment: r.comment,
  createdAt: readTimestamp(r.created_at),
  updatedAt: readTimestamp(r.updated_at),
});

export interface WindowFields {
  readonly integrationId: number | null;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly comment: string;
}

export class MaintenanceWindowsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** A page of a project's windows, the latest start first, of one state at `now` when given. */
  async list(
    projectId: number,
    state: WindowState | undefined,
    now: string,
    page: PageRequest,
  ): Promise<Paged<MaintenanceWindow>> {
    let base = this.db.selectFrom('maintenance_windows').where('project_id', '=', projectId);
    if (state === 'pending') base = base.where('starts_at', '>', now);
    else if (state === 'active') base = base.where('starts_at', '<=', now).where('ends_at', '>', now);
    else if (state === 'expired') base = base.where('ends_at', '<=', now);
    const { rows, total } = await fetchPage(
      base,
      (q) => q.selectAll().orderBy('starts_at', 'desc').orderBy('id', 'desc'),
      page,
    );
    return { items: rows.map(toWindow), total };
  }

  async find(projectId: number, id: number): Promise<MaintenanceWindow | null> {
    const r = await this.db
      .selectFrom('maintenance_windows')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toWindow(r) : null;
  }

  /** The project's windows that have not ended at `now` (active or pending). */
  async unended(projectId: number, now: string): Promise<MaintenanceWindow[]> {
    const rows = await this.db
      .selectFrom('maintenance_windows')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('ends_at', '>', now)
      .orderBy('id')
      .execute();
    return rows.map(toWindow);
  }

  async insert(projectId: number, f: WindowFields, createdById: number, now: string): Promise<number> {
    const r = await this.db
      .insertInto('maintenance_windows')
      .values({
        project_id: projectId,
        integration_id: f.integrationId,
        starts_at: f.startsAt,
        ends_at: f.endsAt,
        created_by_id: createdById,
        comment: f.comment,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return r.id;
  }

  async update(id: number, f: WindowFields, now: string): Promise<void> {
    await this.db
      .updateTable('maintenance_windows')
      .set({
        integration_id: f.integrationId,
        starts_at: f.startsAt,
        ends_at: f.endsAt,
        comment: f.comment,
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('maintenance_windows').where('id', '=', id).execute();
  }
}
