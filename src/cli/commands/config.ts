import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { type Env, fail } from '../run.js';

/** `svc config check`: validates the configuration and prints it with secrets masked. */
export function registerConfig(program: Command, env: Env): void {
  program
    .command('config')
    .description('configuration')
    .command('check')
    .description('validate the configuration and print it (secrets masked)')
    .action(() => {
      try {
        const c = loadConfig(env);
        const shown = {
          ...c,
          databaseUrl: c.databaseUrl?.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:[REDACTED]@') ?? null,
          smtpUrl: c.smtpUrl?.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:[REDACTED]@') ?? null,
          rootPassword: c.rootPassword ? '[set]' : null,
          rootToken: c.rootToken ? '[set]' : null,
          sharedRunnersRegistrationToken: c.sharedRunnersRegistrationToken ? '[set]' : null,
        };
        process.stdout.write(`${JSON.stringify(shown, null, 2)}\nsvc: configuration is valid\n`);
      } catch (err) {
        fail(err);
      }
    });
}
