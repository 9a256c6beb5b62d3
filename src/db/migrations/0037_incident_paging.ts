import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/**
 * Paging incidents and acknowledging from a page: an incident remembers the escalation policy it was paged with
 * (GitLab's `IssuableEscalationStatus#policy`; null when never paged), and every page carries a one-use acknowledge
 * link whose token is stored only as its SHA-256 digest, for one alert or incident, until it expires or is used.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema
    .alterTable('issues')
    .addColumn('escalation_policy_id', 'integer', (c) =>
      c.references('escalation_policies.id').onDelete('set null'),
    )
    .execute();
  await withId(db.schema.createTable('acknowledge_tokens'), dialect)
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // `alert` (alerts.id) or `incident` (issues.id): the one thing the token may acknowledge.
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'integer', (c) => c.notNull())
    // Who was paged: the acknowledgement is theirs. Null for a webhook's link when several (or no) people were paged.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
}
