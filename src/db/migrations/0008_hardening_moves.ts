import { type Kysely, sql } from 'kysely';
import { createCipher, digest } from '../../crypto.js';
import type { DialectName } from '../dialect.js';
import type { MigrationEnv } from './helpers.js';

/** The states of a move that has not ended (frozen here: a migration never follows later code). */
const ACTIVE = ['initial', 'scheduled', 'started', 'replicated'];
/** Which of two active moves of one container to keep: the one furthest along (it may have switched already). */
const RANK: Record<string, number> = { replicated: 3, started: 2, scheduled: 1, initial: 0 };

/** The columns this migration reads and writes (frozen here, like the migration). */
interface Tables {
  repository_storage_moves: {
    id: number;
    container_type: string;
    container_id: number;
    state: string;
    error_message: string | null;
    updated_at: string;
  };
  merge_requests: {
    id: number;
    iid: number;
    project_id: number;
    source_branch: string;
    target_branch: string;
    state: string;
    closed_at: string | null;
    updated_at: string;
  };
  runner_registration_tokens: { scope: string; token: string };
  audit_event_destinations: { id: number; verification_token: string };
}
type MoveRow = Pick<Tables['repository_storage_moves'], 'id' | 'container_type' | 'container_id' | 'state'>;

/**
 * Hardening: at most one active storage move per container and at most one open
 * merge request per project, source and target branch, both enforced by partial unique indexes (duplicates that
 * races left behind are ended first); runner registration tokens stored as SHA-256 digests; audit streaming
 * verification tokens encrypted with the instance key (the destinations API shows them again).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName, env: MigrationEnv): Promise<void> {
  const now = new Date().toISOString();
  const k = db as unknown as Kysely<Tables>;

  // Storage moves: end every active move but one per container, then let the database refuse a second one.
  const moves: MoveRow[] = await k
    .selectFrom('repository_storage_moves')
    .select(['id', 'container_type', 'container_id', 'state'])
    .where('state', 'in', ACTIVE)
    .orderBy('id')
    .execute();
  const keep = new Map<string, MoveRow>();
  for (const m of moves) {
    const key = `${m.container_type}:${m.container_id}`;
    const kept = keep.get(key);
    if (!kept || (RANK[m.state] ?? 0) > (RANK[kept.state] ?? 0)) keep.set(key, m);
  }
  const kept = new Set([...keep.values()].map((m) => m.id));
  for (const m of moves) {
    if (kept.has(m.id)) continue;
    await k
      .updateTable('repository_storage_moves')
      .set({
        state: 'failed',
        error_message: 'another move of this repository was active at the same time; this one was not run',
        updated_at: now,
      })
      .where('id', '=', m.id)
      .execute();
  }
  await sql`CREATE UNIQUE INDEX repository_storage_moves_one_active ON repository_storage_moves (container_type, container_id) WHERE state IN ('initial', 'scheduled', 'started', 'replicated')`.execute(
    db,
  );

  // Merge requests: close open duplicates (the oldest stays open), then one open request per branch pair.
  const open = await k
    .selectFrom('merge_requests')
    .select(['id', 'project_id', 'source_branch', 'target_branch'])
    .where('state', '=', 'opened')
    .orderBy('project_id')
    .orderBy('iid')
    .execute();
  const seen = new Set<string>();
  for (const mr of open) {
    const key = JSON.stringify([mr.project_id, mr.source_branch, mr.target_branch]);
    if (!seen.has(key)) {
      seen.add(key);
      continue;
    }
    await k
      .updateTable('merge_requests')
      .set({ state: 'closed', closed_at: now, updated_at: now })
      .where('id', '=', mr.id)
      .execute();
  }
  await sql`CREATE UNIQUE INDEX merge_requests_one_open ON merge_requests (project_id, source_branch, target_branch) WHERE state = 'opened'`.execute(
    db,
  );

  // Runner registration tokens are only checked, never shown again: keep their SHA-256 digest only.
  const tokens = await k.selectFrom('runner_registration_tokens').select(['scope', 'token']).execute();
  for (const t of tokens) {
    await k
      .updateTable('runner_registration_tokens')
      .set({ token: digest(t.token) })
      .where('scope', '=', t.scope)
      .execute();
  }
  // Verification tokens are shown again by the destinations API: encrypt them at rest.
  const destinations = await k
    .selectFrom('audit_event_destinations')
    .select(['id', 'verification_token'])
    .execute();
  if (destinations.length > 0) {
    const cipher = createCipher(env.secretKey());
    for (const d of destinations) {
      await k
        .updateTable('audit_event_destinations')
        .set({ verification_token: cipher.encrypt(d.verification_token) })
        .where('id', '=', d.id)
        .execute();
    }
  }
}
