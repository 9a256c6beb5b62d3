import type { Kysely, Selectable } from 'kysely';
import { safeEqual } from '../crypto.js';
import { readBool, readNullableTimestamp, readTimestamp, writeBool } from '../db/dialect.js';
import type { Database, RunnersTable } from '../db/schema.js';
import type { Runner, RunnerType } from './runners.js';

export interface NewRunner {
  runnerType: RunnerType;
  groupId: number | null;
  projectId: number | null;
  tokenDigest: string;
  description: string | null;
  name: string | null;
  active: boolean;
  locked: boolean;
  runUntagged: boolean;
  tagList: readonly string[];
  accessLevel: string;
  maximumTimeout: number | null;
  maintenanceNote: string | null;
  creatorId: number | null;
}

/** Runners, their projects, and registration tokens. */
export class RunnersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private async withProjects(rows: Selectable<RunnersTable>[]): Promise<Runner[]> {
    if (rows.length === 0) return [];
    const links = await this.db
      .selectFrom('runner_projects')
      .selectAll()
      .where(
        'runner_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    return rows.map((r) => ({
      id: r.id,
      runnerType: r.runner_type as RunnerType,
      groupId: r.group_id,
      projectIds: links
        .filter((l) => l.runner_id === r.id)
        .map((l) => l.project_id)
        .sort((a, b) => a - b),
      description: r.description,
      name: r.name,
      active: readBool(r.active),
      locked: readBool(r.locked),
      runUntagged: readBool(r.run_untagged),
      tagList: JSON.parse(r.tag_list) as string[],
      accessLevel: r.access_level === 'ref_protected' ? 'ref_protected' : 'not_protected',
      maximumTimeout: r.maximum_timeout,
      maintenanceNote: r.maintenance_note,
      contactedAt: readNullableTimestamp(r.contacted_at),
      ipAddress: r.ip_address,
      creatorId: r.creator_id,
      createdAt: readTimestamp(r.created_at),
    }));
  }

  async insert(n: NewRunner, now: string): Promise<Runner> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        const row = await trx
          .insertInto('runners')
          .values({
            runner_type: n.runnerType,
            group_id: n.groupId,
            description: n.description,
            name: n.name,
            token_digest: n.tokenDigest,
            active: writeBool(n.active),
            locked: writeBool(n.locked),
            run_untagged: writeBool(n.runUntagged),
            tag_list: JSON.stringify(n.tagList),
            access_level: n.accessLevel,
            maximum_timeout: n.maximumTimeout,
            maintenance_note: n.maintenanceNote,
            contacted_at: null,
            ip_address: null,
            creator_id: n.creatorId,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (n.projectId !== null)
          await trx
            .insertInto('runner_projects')
            .values({ runner_id: row.id, project_id: n.projectId })
            .execute();
        return row.id;
      })
      .then(async (id) => (await this.find(id))!);
  }

  async find(id: number): Promise<Runner | null> {
    const row = await this.db.selectFrom('runners').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? (await this.withProjects([row]))[0]! : null;
  }

  async findByToken(digest: string): Promise<Runner | null> {
    const row = await this.db
      .selectFrom('runners')
      .selectAll()
      .where('token_digest', '=', digest)
      .executeTakeFirst();
    return row ? (await this.withProjects([row]))[0]! : null;
  }

  async list(f: {
    ids?: readonly number[];
    type?: RunnerType;
    groupIds?: readonly number[];
    projectIds?: readonly number[];
  }): Promise<Runner[]> {
    let q = this.db.selectFrom('runners').selectAll();
    if (f.ids) q = q.where('id', 'in', f.ids.length > 0 ? f.ids : [-1]);
    if (f.type) q = q.where('runner_type', '=', f.type);
    const scopes = [];
    if (f.groupIds) scopes.push('group');
    if (f.projectIds) scopes.push('project');
    if (scopes.length > 0) {
      const projectRunnerIds =
        f.projectIds && f.projectIds.length > 0
          ? (
              await this.db
                .selectFrom('runner_projects')
                .select('runner_id')
                .where('project_id', 'in', f.projectIds)
                .execute()
            ).map((r) => r.runner_id)
          : [];
      const groupIds = f.groupIds ?? [];
      q = q.where((eb) =>
        eb.or([
          ...(groupIds.length > 0 ? [eb('group_id', 'in', groupIds)] : []),
          ...(projectRunnerIds.length > 0 ? [eb('id', 'in', projectRunnerIds)] : []),
          eb('id', '=', -1),
        ]),
      );
    }
    return this.withProjects(await q.orderBy('id').execute());
  }

  async update(
    id: number,
    patch: Partial<
      Record<'description' | 'maintenance_note' | 'access_level', string | null> & {
        active: boolean;
        locked: boolean;
        run_untagged: boolean;
        tag_list: readonly string[];
        maximum_timeout: number | null;
      }
    >,
    now: string,
  ): Promise<void> {
    await this.db
      .updateTable('runners')
      .set({
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.maintenance_note !== undefined && { maintenance_note: patch.maintenance_note }),
        ...(patch.access_level !== undefined &&
          patch.access_level !== null && { access_level: patch.access_level }),
        ...(patch.active !== undefined && { active: writeBool(patch.active) }),
        ...(patch.locked !== undefined && { locked: writeBool(patch.locked) }),
        ...(patch.run_untagged !== undefined && { run_untagged: writeBool(patch.run_untagged) }),
        ...(patch.tag_list !== undefined && { tag_list: JSON.stringify(patch.tag_list) }),
        ...(patch.maximum_timeout !== undefined && { maximum_timeout: patch.maximum_timeout }),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async contact(id: number, ip: string | null, now: string): Promise<void> {
    await this.db
      .updateTable('runners')
      .set({ contacted_at: now, ip_address: ip })
      .where('id', '=', id)
      .execute();
  }

  async setToken(id: number, digest: string): Promise<void> {
    await this.db.updateTable('runners').set({ token_digest: digest }).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('runners').where('id', '=', id).execute();
  }

  async assign(runnerId: number, projectId: number): Promise<void> {
    await this.db
      .insertInto('runner_projects')
      .values({ runner_id: runnerId, project_id: projectId })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async unassign(runnerId: number, projectId: number): Promise<void> {
    await this.db
      .deleteFrom('runner_projects')
      .where('runner_id', '=', runnerId)
      .where('project_id', '=', projectId)
      .execute();
  }

  /** The scope (`instance`, `project:<id>`, `group:<id>`) of a registration token, found by its SHA-256 digest. */
  async scopeOfRegistrationToken(tokenDigest: string): Promise<string | null> {
    const r = await this.db
      .selectFrom('runner_registration_tokens')
      .select(['scope', 'token'])
      .where('token', '=', tokenDigest)
      .executeTakeFirst();
    // The index found the row; the digests are compared once more in constant time.
    return r && safeEqual(r.token, tokenDigest) ? r.scope : null;
  }

  /** Stores a scope's registration token as its SHA-256 digest (the token is shown once, when reset). */
  async setRegistrationToken(scope: string, tokenDigest: string): Promise<void> {
    await this.db
      .insertInto('runner_registration_tokens')
      .values({ scope, token: tokenDigest })
      .onConflict((oc) => oc.column('scope').doUpdateSet({ token: tokenDigest }))
      .execute();
  }
}
