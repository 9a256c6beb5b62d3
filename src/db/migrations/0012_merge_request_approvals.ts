import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes, withId } from './helpers.js';

/** Approvals given to merge requests (`POST .../approve`): one per user and merge request. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await withId(db.schema.createTable('merge_request_approvals'), dialect)
    .addColumn('merge_request_id', 'integer', (c) =>
      c.notNull().references('merge_requests.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('merge_request_approvals_mr_user', ['merge_request_id', 'user_id'])
    .execute();
}
