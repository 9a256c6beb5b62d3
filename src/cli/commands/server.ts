import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { start } from '../../server.js';
import { type Env, fail } from '../run.js';

/** `svc server`: migrates, listens, and drains in-flight requests on SIGTERM or SIGINT. */
export function registerServer(program: Command, env: Env): void {
  program
    .command('server')
    .description('start the HTTP server (migrates the database first)')
    .action(async () => {
      try {
        const config = loadConfig(env);
        const server = await start(config);
        const stop = (signal: string) => {
          server.app.log.info({ signal }, 'shutting down: draining in-flight requests');
          server.close().then(
            () => process.exit(0),
            (err: unknown) => fail(err),
          );
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
        process.stdout.write(
          `svc: listening on ${server.address} (external URL ${server.ctx.config.externalUrl})\n`,
        );
      } catch (err) {
        fail(err);
      }
    });
}
