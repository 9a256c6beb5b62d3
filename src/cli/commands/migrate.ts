import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { migrateDatabase } from '../../server.js';
import { type Env, fail } from '../run.js';

/** `svc migrate`: applies pending migrations and names them. */
export function registerMigrate(program: Command, env: Env): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      try {
        const applied = await migrateDatabase(loadConfig(env));
        process.stdout.write(
          applied.length ? `svc: applied ${applied.join(', ')}\n` : 'svc: database is up to date\n',
        );
      } catch (err) {
        fail(err);
      }
    });
}
