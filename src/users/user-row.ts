import type { Selectable } from 'kysely';
import { readBool, readTimestamp } from '../db/dialect.js';
import type { UsersTable } from '../db/schema.js';
import type { User } from './users.js';

/** A users row as a User: the one mapping, shared by every repository that joins the users table. */
export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    email: row.email,
    admin: readBool(row.admin),
    state: row.state === 'blocked' || row.state === 'banned' ? row.state : 'active',
    privateProfile: readBool(row.private_profile),
    botSource:
      (row.bot_source_type === 'project' || row.bot_source_type === 'namespace') && row.bot_source_id !== null
        ? { type: row.bot_source_type, id: row.bot_source_id }
        : null,
    bio: row.bio,
    projectsLimit: row.projects_limit,
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
    avatar: row.avatar ?? null,
  };
}
