import type { Kysely } from 'kysely';
import { readBool, readTimestamp, writeBool } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { FeatureGates } from './settings.js';

/** Application settings (key -> JSON value) and feature-flag gates. */
export class SettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async all(): Promise<Record<string, unknown>> {
    const rows = await this.db.selectFrom('application_settings').selectAll().execute();
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  }

  async put(values: Record<string, unknown>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const [key, value] of Object.entries(values)) {
        await trx
          .insertInto('application_settings')
          .values({ key, value: JSON.stringify(value) })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(value) }))
          .execute();
      }
    });
  }

  async features(name?: string): Promise<FeatureGates[]> {
    let q = this.db.selectFrom('feature_gates').selectAll().orderBy('id', 'asc');
    if (name !== undefined) q = q.where('name', '=', name);
    const rows = await q.execute();
    const byName = new Map<
      string,
      { enabled: boolean | null; projectIds: number[]; disabledProjectIds: number[]; createdAt: string }
    >();
    for (const r of rows) {
      const f = byName.get(r.name) ?? {
        enabled: null,
        projectIds: [],
        disabledProjectIds: [],
        createdAt: readTimestamp(r.created_at),
      };
      if (r.project_id === null) f.enabled = readBool(r.enabled);
      else (readBool(r.enabled) ? f.projectIds : f.disabledProjectIds).push(r.project_id);
      byName.set(r.name, f);
    }
    return [...byName.entries()]
      .map(([n, f]) => ({ name: n, ...f }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Sets one gate: the boolean (`projectId` null) or a project actor. */
  async setGate(name: string, projectId: number | null, enabled: boolean, now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      let del = trx.deleteFrom('feature_gates').where('name', '=', name);
      del =
        projectId === null ? del.where('project_id', 'is', null) : del.where('project_id', '=', projectId);
      await del.execute();
      await trx
        .insertInto('feature_gates')
        .values({ name, project_id: projectId, enabled: writeBool(enabled), created_at: now })
        .execute();
    });
  }

  async deleteFeature(name: string): Promise<void> {
    await this.db.deleteFrom('feature_gates').where('name', '=', name).execute();
  }
}
