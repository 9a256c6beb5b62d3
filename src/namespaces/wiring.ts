import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { NamespacesRepository } from './namespaces.repository.js';
import { NamespacesService } from './namespaces.service.js';

/** The tree of user and group namespaces (paths), which users, groups, members and projects use. */
export function wireNamespaces(deps: { kysely: Kysely<Database> }): { namespaces: NamespacesService } {
  return { namespaces: new NamespacesService(new NamespacesRepository(deps.kysely)) };
}
