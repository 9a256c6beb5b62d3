import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { columnTypes } from './helpers.js';

/**
 * Bot users and impersonation tokens (GitLab's project/group access tokens and impersonation tokens).
 *
 * A project or group access token is a personal access token of a bot user that belongs to one project or group
 * (`bot_source_type` 'project' or 'namespace', `bot_source_id`), as GitLab's `project_bot` users with their
 * `bot_namespace`: the bot's access is its membership there. No foreign key can name two tables; deleting the
 * project or group removes the bot's membership, which leaves the token without access.
 *
 * `impersonation` marks the tokens an administrator made to act as a user (GitLab's `impersonation` column);
 * they authenticate as that user, and are listed apart from the user's own tokens.
 *
 * A banned user (GitLab's `banned` state) needs no column: `users.state` is text.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const t = columnTypes(dialect);
  await db.schema.alterTable('users').addColumn('bot_source_type', 'text').execute();
  await db.schema.alterTable('users').addColumn('bot_source_id', 'integer').execute();
  await db.schema
    .createIndex('users_bot_source')
    .on('users')
    .columns(['bot_source_type', 'bot_source_id'])
    .execute();
  await db.schema
    .alterTable('personal_access_tokens')
    .addColumn('impersonation', t.bool, (c) => c.notNull().defaultTo(t.boolDefault(false)))
    .execute();
}
