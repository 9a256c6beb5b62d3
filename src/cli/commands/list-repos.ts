import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { withContext } from '../../server.js';
import { ReleaseGates } from '../../versioning/gates.js';
import { parseRelease } from '../../versioning/release.js';
import { type Env, fail, printErr, usage } from '../run.js';

/** `svc list-repos`: `<storage>\t<relative path>` per repository (deprecated 16.4, removed in 17.0). */
export function registerListRepos(program: Command, env: Env): void {
  program
    .command('list-repos')
    .description(
      'list repositories (storage and relative path), optionally with activity since a time (deprecated 16.4, removed in 17.0)',
    )
    .option('--since <date-time>', 'only repositories with activity since this time')
    .action(async (o: { since?: string }) => {
      try {
        const config = loadConfig(env);
        // Spec: svc:list_repos is deprecated in 16.4 and removed in 17.0; backup and restore replace it.
        if (new ReleaseGates(parseRelease(config.release)).isRemoved('list_repos')) {
          usage(
            `list-repos was removed in 17.0 (SVC_RELEASE is ${config.release}); ` +
              'move an instance with `svc backup create` and `svc backup restore` instead',
          );
        }
        if (o.since !== undefined && Number.isNaN(Date.parse(o.since))) {
          usage(`--since must be a date-time (got "${o.since}")`);
        }
        process.stderr.write(
          'svc: list-repos is deprecated since 16.4 and removed in 17.0; use backup and restore\n',
        );
        await withContext(config, { print: printErr }, async (ctx) => {
          for (const r of await ctx.inventory.list(o.since ? new Date(o.since) : null)) {
            process.stdout.write(`${r.storage}\t${r.relativePath}\n`);
          }
        });
      } catch (err) {
        fail(err);
      }
    });
}
