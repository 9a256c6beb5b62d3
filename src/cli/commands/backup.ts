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
    .description(
      'back up or restore the whole instance (database and repositories; the secret key in a file of its own)',
    );
  backup
    .command('create')
    .description('write a backup archive (.tar.gz)')
    .option(
      '--output <file>',
      'where to write it',
      `svc-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`,
    )
    .option(
      '--key-output <file>',
      "where to write the instance's secret key, which decrypts the archive's secrets (default: <output>.secret.key)",
    )
    .option('--no-key', 'do not write the secret key (a restore then cannot bring back encrypted secrets)')
    .action(async (o: { output: string; keyOutput?: string; key: boolean }) => {
      try {
        await withContext(loadConfig(env), { print: printErr }, async (ctx) => {
          const keyOutput = o.key ? (o.keyOutput ?? `${o.output}.secret.key`) : null;
          const manifest = await createBackupService(ctx).create(o.output, {
            progress: cliProgress('backup'),
            keyOutput,
          });
          const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
          process.stdout.write(
            `svc: wrote ${o.output}: ${rows} rows, ${manifest.repositories.length} repositories\n`,
          );
          process.stdout.write(
            keyOutput === null
              ? 'svc: the secret key was not written (--no-key): a restore of this archive cannot bring back hook tokens, integration keys or Sentry tokens\n'
              : `svc: wrote the secret key to ${keyOutput} (mode 0600): keep it apart from the archive; restore needs it (--secret-key) to bring back hook tokens, integration keys and Sentry tokens\n`,
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
    .option('--secret-key <file>', 'the secret key file written beside the archive by backup create')
    .action(async (file: string, o: { maxSize: number; secretKey?: string }) => {
      try {
        // No first admin: the restored data brings its own users.
        await withContext(loadConfig(env), {}, async (ctx) => {
          const manifest = await createBackupService(ctx).restore(file, {
            progress: cliProgress('restore'),
            maxBytes: o.maxSize,
            ...(o.secretKey !== undefined && { secretKey: o.secretKey }),
          });
          const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
          process.stdout.write(
            `svc: restored ${rows} rows and ${manifest.repositories.length} repositories (checksums verified)\n`,
          );
          for (const l of manifest.lostSecrets)
            process.stdout.write(
              `svc: warning: ${l.count} ${l.kind}${l.count === 1 ? '' : 's'} could not be restored without the backup's secret key (--secret-key): ${l.remedy}\n`,
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
