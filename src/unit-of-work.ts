import type { Transaction } from 'kysely';
import type { Database } from './db/schema.js';

/**
 * A transaction in progress: the one unit of work features hand each other. A service passes it on to its
 * repositories (or to another feature's service) so that their writes commit together; it never runs SQL on it.
 */
export type UnitOfWork = Transaction<Database>;
