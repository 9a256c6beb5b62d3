import { type Kysely, sql, type Transaction } from 'kysely';
import type { DialectName } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { ContainerKind } from '../git/git.js';

/**
 * Tables added after backups of this format were first written: an archive from before a table existed lists
 * none of it, and restores it as empty.
 */
export const LATER_TABLES: ReadonlySet<string> = new Set([
  'merge_request_approvals',
  'merge_request_diffs',
  'merge_request_approval_rules',
  'alert_events',
  'alert_assignees',
  'notification_emails',
  'project_hooks',
  'hook_deliveries',
  'error_notification_rules',
  'oncall_schedules',
  'oncall_rotations',
  'oncall_participants',
  'escalation_policies',
  'escalation_rules',
  'notes',
  'issue_assignees',
  'issue_labels',
  'incident_timeline_event_tags',
  'incident_timeline_events',
  'incident_timeline_event_tag_links',
  'redirect_routes',
  'error_tracking_activities',
  'error_tracking_error_hashes',
  'oncall_overrides',
  'alert_silences',
  'maintenance_windows',
  'chat_integrations',
  'chat_deliveries',
  'alert_heartbeats',
  'cron_monitors',
  'cron_checkins',
  'error_tracking_feedback',
  'error_tracking_attachments',
  'error_tracking_dropped_items',
  'sentry_releases',
  'sentry_release_commits',
  'sentry_artifact_bundles',
  'sentry_artifact_files',
]);

/**
 * The tables a backup leaves out, each with why: every other table of the schema is in BACKUP_TABLES (a test
 * holds the two lists against the migrated schema, so a new table cannot be forgotten).
 */
export const NOT_BACKED_UP: Readonly<Record<string, string>> = {
  sessions: 'sign-ins belong to the running instance; users sign in again',
  jobs: 'work of the running processes; deadlines kept in rows (heartbeats, cron monitors) are scheduled again at start',
  rate_limit_windows: 'counters of the running processes',
  git_pushes: 'pushes in progress belong to the running processes',
  alert_status_counts: 'kept by triggers on `alerts`, which count the restored alerts again',
  error_rule_firings:
    'when each error rule last notified about each error: a restored rule may notify once more',
  acknowledge_tokens: "one-use links of pages already sent: they point at the old instance's address",
  alerts_search: 'the alert search index, rebuilt in the background from the restored alerts',
  alerts_search_config: 'part of the alert search index (SQLite FTS5)',
  alerts_search_data: 'part of the alert search index (SQLite FTS5)',
  alerts_search_docsize: 'part of the alert search index (SQLite FTS5)',
  alerts_search_idx: 'part of the alert search index (SQLite FTS5)',
  alerts_search_state: 'which alerts the search index holds: a restored instance indexes them all again',
  kysely_migration: "the schema's own version, written by the migrations",
  kysely_migration_lock: "the migrations' lock",
  sentry_upload_chunks: 'chunks of uploads in progress, which sentry-cli sends again',
};

/** Tables in dependency order (parents first); NOT_BACKED_UP says what is left out. */
export const BACKUP_TABLES = [
  'users',
  'namespaces',
  'projects',
  'personal_access_tokens',
  'members',
  'snippets',
  'application_settings',
  'feature_gates',
  'internal_ids',
  'alert_integrations',
  'alerts',
  'alert_notes',
  'alert_events',
  'alert_assignees',
  'project_alert_settings',
  'issues',
  'issue_assignees',
  'issue_labels',
  'error_tracking_settings',
  'error_tracking_client_keys',
  'error_tracking_errors',
  'error_tracking_events',
  'error_tracking_error_hashes',
  'error_tracking_activities',
  'error_tracking_sessions',
  'cron_monitors',
  'cron_checkins',
  'error_tracking_feedback',
  'error_tracking_attachments',
  'error_tracking_dropped_items',
  'repository_storage_moves',
  'geo_sites',
  'geo_resyncs',
  'audit_events',
  'audit_event_destinations',
  'runners',
  'runner_projects',
  'runner_registration_tokens',
  'merge_requests',
  'merge_request_approvals',
  'merge_request_diffs',
  'merge_request_approval_rules',
  'notes',
  'incident_timeline_event_tags',
  'incident_timeline_events',
  'incident_timeline_event_tag_links',
  'approval_rules',
  'project_approval_settings',
  'managed_licenses',
  'notification_emails',
  'project_hooks',
  'hook_deliveries',
  'error_notification_rules',
  'oncall_schedules',
  'oncall_rotations',
  'oncall_participants',
  'oncall_overrides',
  'escalation_policies',
  'escalation_rules',
  'alert_silences',
  'maintenance_windows',
  'alert_heartbeats',
  'chat_integrations',
  'chat_deliveries',
  'redirect_routes',
  'sentry_releases',
  'sentry_release_commits',
  'sentry_artifact_bundles',
  'sentry_artifact_files',
] as const satisfies readonly (keyof Database)[];

/** Tables keyed by something other than a serial id (no sequence to move on after a restore). */
const NO_SERIAL_ID: ReadonlySet<string> = new Set([
  'application_settings',
  'internal_ids',
  'project_alert_settings',
  'alert_assignees',
  'issue_assignees',
  'issue_labels',
  'incident_timeline_event_tag_links',
  'error_tracking_settings',
  'error_tracking_sessions',
  'error_tracking_dropped_items',
  'geo_resyncs',
  'runner_projects',
  'runner_registration_tokens',
  'project_approval_settings',
  'alert_heartbeats',
]);

/** One of the tables a backup holds. */
export type BackupTable = (typeof BACKUP_TABLES)[number];

/** A repository's container as the database records it. */
export interface Container {
  readonly kind: ContainerKind;
  readonly id: number;
  readonly storage: string;
  readonly defaultBranch: string;
}

/** What a backup reads inside one consistent snapshot. */
export interface BackupSnapshot {
  /** Every row of a table, as the driver returns it. */
  rows(table: BackupTable): Promise<Record<string, unknown>[]>;
  /** Every container with a repository: projects, snippets and groups with a wiki. */
  containers(): Promise<Container[]>;
}

const TABLE = { project: 'projects', snippet: 'snippets', group: 'namespaces' } as const;

/** Values both databases accept: booleans as 0/1. */
const decode = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? 1 : 0) : v]));

/** Whole tables, for backup and restore: read from one snapshot, written in one transaction. */
export class BackupRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  /** Runs `fn` on one consistent, read-only snapshot of the whole database. */
  snapshot<T>(fn: (snap: BackupSnapshot) => Promise<T>): Promise<T> {
    const run = (trx: Transaction<Database>) =>
      fn({
        rows: async (table) =>
          (await trx.selectFrom(table).selectAll().execute()) as Record<string, unknown>[],
        containers: () => containers(trx),
      });
    if (this.dialect === 'postgres') {
      return this.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(run);
    }
    // better-sqlite3 behind Kysely has one connection: the transaction pins it, and SQLite's deferred BEGIN takes
    // its WAL read snapshot at the first SELECT and keeps it until COMMIT, across every table read here.
    return this.db.transaction().execute(run);
  }

  /** Where a container's repository is now (null when the container is gone). */
  async currentStorage(kind: ContainerKind, id: number): Promise<string | null> {
    const row = await this.db
      .selectFrom(TABLE[kind])
      .select('repository_storage')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.repository_storage ?? null;
  }

  /** Whether the instance has any user (a restore needs an empty one). */
  async hasUsers(): Promise<boolean> {
    const users = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    return Number(users?.n ?? 0) > 0;
  }

  /**
   * Inserts every table's rows (from `load`, in BACKUP_TABLES order) and records the containers whose repository
   * landed on another storage, in one transaction: any failure (a row the database refuses) rolls all of it back.
   * On PostgreSQL the id sequences then continue after the restored rows.
   */
  async restore(
    load: (table: BackupTable) => Promise<Record<string, unknown>[]>,
    moved: readonly { kind: ContainerKind; id: number; storage: string }[],
    tableDone: () => void,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of BACKUP_TABLES) {
        const rows = (await load(table)).map(decode);
        for (let i = 0; i < rows.length; i += 200) {
          await trx
            .insertInto(table)
            .values(rows.slice(i, i + 200) as never)
            .execute();
        }
        tableDone();
      }
      // A rebase in progress when the backup was taken ran in a job, and jobs are not restored: none runs now.
      await trx
        .updateTable('merge_requests')
        .set({ rebase_jid: null })
        .where('rebase_jid', 'is not', null)
        .execute();
      for (const r of moved) {
        await trx
          .updateTable(TABLE[r.kind])
          .set({ repository_storage: r.storage })
          .where('id', '=', r.id)
          .execute();
      }
      if (this.dialect === 'postgres') {
        for (const table of BACKUP_TABLES) {
          if (NO_SERIAL_ID.has(table)) continue;
          await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), coalesce((SELECT max(id) FROM ${sql.table(table)}), 0) + 1, false)`.execute(
            trx,
          );
        }
      }
    });
  }
}

async function containers(db: Kysely<Database>): Promise<Container[]> {
  const projects = await db
    .selectFrom('projects')
    .select(['id', 'repository_storage', 'default_branch'])
    .orderBy('id')
    .execute();
  const snippets = await db
    .selectFrom('snippets')
    .select(['id', 'repository_storage'])
    .orderBy('id')
    .execute();
  const groups = await db
    .selectFrom('namespaces')
    .select(['id', 'repository_storage'])
    .where('kind', '=', 'group')
    .where('repository_storage', 'is not', null)
    .orderBy('id')
    .execute();
  return [
    ...projects.map((p) => ({
      kind: 'project' as const,
      id: p.id,
      storage: p.repository_storage,
      defaultBranch: p.default_branch,
    })),
    ...snippets.map((s) => ({
      kind: 'snippet' as const,
      id: s.id,
      storage: s.repository_storage,
      defaultBranch: 'main',
    })),
    ...groups.map((g) => ({
      kind: 'group' as const,
      id: g.id,
      storage: g.repository_storage!,
      defaultBranch: 'main',
    })),
  ];
}
