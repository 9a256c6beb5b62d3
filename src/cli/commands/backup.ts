import type { Command } from 'commander';
import { BackupError } from '../../backup/backup.service.js';
import { loadConfig } from '../../config.js';
import { createBackupService } from '../../context.js';
import { withContext } from '../../server.js';
import { cliProgress } from '../progress.js';
import { type Env, EXIT_FAILURE, fail, printErr } from '../run.js';

/** `svc backup create` and `svc backup restore`. */
export function registerBackup(program: Command, env: Env): void {
  const backup = program
    .command('backup')
    .description('back up or restore the whole instance (database, repositories, secret key)');
  backup
    .command('create')
    .description('write a backup archive (.tar.gz)')
    .option(
      '--output <file>',
      'where to write it',
      `svc-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`,
    )
    .action(async (o: { output: string }) => {
      try {
        await withContext(loadConfig(env), { print: printErr }, async (ctx) => {
          const manifest = await createBackupService(ctx).create(o.output, cliProgress('backup'));
          const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
          process.stdout.write(
            `svc: wrote ${o.output}: ${rows} rows, ${manifest.repositories.length} repositories\n`,
          );
        });
      } catch (err) {
        fail(err);
      }
    });
  backup
    .command('restore <file>')
    .description('restore an archive into this instance (its database must be empty)')
    .action(async (file: string) => {
      try {
        // No first admin: the restored data brings its own users.
        await withContext(loadConfig(env), {}, async (ctx) => {
          const manifest = await createBackupService(ctx).restore(file, cliProgress('restore'));
          const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
          process.stdout.write(
            `svc: restored ${rows} rows and ${manifest.repositories.length} repositories (checksums verified)\n`,
          );
        });
      } catch (err) {
        if (err instanceof BackupError) {
          process.stderr.write(`svc: restore failed, nothing was changed: ${err.message}\n`);
          process.exit(EXIT_FAILURE);
        }
        fail(err);
      }
    });
}
