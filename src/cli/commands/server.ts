import type { Command } from 'commander';
import { isWorker, reportListening, runPrimary } from '../../cluster/workers.js';
import { loadConfig } from '../../config.js';
import { start, withContext } from '../../server.js';
import { type Env, fail } from '../run.js';

/**
 * `svc server`: migrates, listens, and drains in-flight requests on SIGTERM or SIGINT. With `--workers N`
 * (`SVC_WORKERS`) on PostgreSQL, a primary migrates, creates the first admin, and runs N worker processes that
 * share the port (see `runPrimary`); SQLite stays one process.
 */
export function registerServer(program: Command, env: Env): void {
  program
    .command('server')
    .description('start the HTTP server (migrates the database first)')
    .option('--workers <n>', 'processes sharing the port (PostgreSQL only; default SVC_WORKERS or 1)')
    .action(async (opts: { workers?: string }) => {
      try {
        const config = loadConfig(opts.workers === undefined ? env : { ...env, SVC_WORKERS: opts.workers });
        const print = (line: string) => process.stdout.write(`${line}\n`);
        if (!isWorker() && config.workers > 1) {
          if (config.databaseUrl === null) {
            print(
              `svc: SQLite allows one writer at a time, so svc runs as one process (workers ${config.workers} ignored; use PostgreSQL for several)`,
            );
          } else {
            // Migrations and the first admin once, here, before any worker starts.
            await withContext(config, { print }, async () => undefined);
            await runPrimary(config.workers, print);
            process.exit(0);
          }
        }
        // A worker's primary has created the first admin (or said why the root settings did nothing) already.
        const server = await start(config, { bootstrap: !isWorker() });
        const stop = (signal: string) => {
          server.app.log.info({ signal }, 'shutting down: draining in-flight requests');
          server.close().then(
            () => process.exit(0),
            (err: unknown) => fail(err),
          );
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
        if (isWorker()) reportListening(server.address, server.ctx.config.externalUrl);
        else print(`svc: listening on ${server.address} (external URL ${server.ctx.config.externalUrl})`);
      } catch (err) {
        fail(err);
      }
    });
}
