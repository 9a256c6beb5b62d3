import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * What intake noticed about the payloads an integration receives (an Alertmanager payload sent to an HTTP
 * Endpoint): JSON `[{code, at}]`, each code once with the time it was first seen; null when nothing was noticed.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.alterTable('alert_integrations').addColumn('warnings', 'text').execute();
}
