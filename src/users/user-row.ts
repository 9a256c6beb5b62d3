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
    state: row.state === 'blocked' ? 'blocked' : 'active',
    privateProfile: readBool(row.private_profile),
    bio: row.bio,
    createdAt: readTimestamp(row.created_at),
    updatedAt: readTimestamp(row.updated_at),
    avatar: row.avatar ?? null,
  };
}
