import { type Command, InvalidArgumentError } from 'commander';
import { BackupError, DEFAULT_RESTORE_MAX_BYTES } from '../../backup/backup.service.js';
import { loadConfig } from '../../config.js';
import { createBackupService } from '../../context.js';
import { withContext } from '../../server.js';
import { cliProgress } from '../progress.js';
import { type Env, EXIT_FAILURE, fail, printErr } from '../run.js';

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** A size such as `500G`, `20M` or `1048576` (bytes; K, M, G, T are powers of 1024). */
export function parseSize(text: string): number {
  const m = /^(\d+)([KMGT]?)i?B?$/i.exec(text.trim());
  const bytes = m ? Number(m[1]) * UNITS[m[2]!.toUpperCase()]! : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0)
    throw new InvalidArgumentError('a size such as 500G, 20M or 1048576 (bytes)');
  return bytes;
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
    .option(
      '--max-size <size>',
      'refuse an archive that unpacks to more than this (K, M, G, T suffixes)',
      parseSize,
      DEFAULT_RESTORE_MAX_BYTES,
    )
    .action(async (file: string, o: { maxSize: number }) => {
      try {
        // No first admin: the restored data brings its own users.
        await withContext(loadConfig(env), {}, async (ctx) => {
          const manifest = await createBackupService(ctx).restore(file, {
            progress: cliProgress('restore'),
            maxBytes: o.maxSize,
          });
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
