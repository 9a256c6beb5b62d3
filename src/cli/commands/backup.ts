import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { BackupError, type Progress, silentProgress } from '../../backup/backup.service.js';
import { loadConfig } from '../../config.js';
import { createBackupService } from '../../context.js';
import { withContext } from '../../server.js';
import { type Env, EXIT_FAILURE, fail, printErr } from '../run.js';

/** A progress bar on a terminal; nothing otherwise (CI logs, pipes). */
function terminalProgress(): Progress {
  if (!process.stderr.isTTY) return silentProgress;
  let bar: SingleBar | null = null;
  return {
    start: (label, total) => {
      bar = new SingleBar(
        { format: `${label.padEnd(12)} [{bar}] {value}/{total}`, stream: process.stderr },
        Presets.shades_classic,
      );
      bar.start(total, 0);
    },
    tick: () => bar?.increment(),
    stop: () => bar?.stop(),
  };
}

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
          const manifest = await createBackupService(ctx).create(o.output, terminalProgress());
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
          const manifest = await createBackupService(ctx).restore(file, terminalProgress());
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
