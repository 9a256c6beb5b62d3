import type { Selectable } from 'kysely';
import { readBool, readTimestamp } from '../db/dialect.js';
import type { NamespacesTable } from '../db/schema.js';
import type { Visibility } from '../visibility.js';
import type { Namespace } from './namespaces.js';

/** A namespaces row as a Namespace: the one mapping, shared by every repository that joins the namespaces table. */
export function toNamespace(row: Selectable<NamespacesTable>): Namespace {
  return {
    id: row.id,
    kind: row.kind === 'group' ? 'group' : 'user',
    name: row.name,
    path: row.path,
    fullPath: row.full_path,
    parentId: row.parent_id,
    ownerId: row.owner_id,
    visibility: row.visibility as Visibility,
    description: row.description,
    repositoryStorage: row.repository_storage,
    repositoryReadOnly: readBool(row.repository_read_only),
    requestAccessEnabled: readBool(row.request_access_enabled),
    createdAt: readTimestamp(row.created_at),
    avatar: row.avatar ?? null,
  };
}
