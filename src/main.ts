import { Presets, SingleBar } from 'cli-progress';
import { Command, Option } from 'commander';
import { BackupError, type Progress, silentProgress } from './backup/backup.service.js';
import { ConfigError, loadConfig } from './config.js';
import { createBackupService, createContext } from './context.js';
import { createDb, migrate } from './db/db.js';
import { AppError } from './errors.js';
import { restrictUmask, secureDataDir } from './file-modes.js';
import { relativePath } from './git/git.js';
import { bootstrap, start } from './server.js';
import { TOKEN_SCOPES, type TokenScope } from './users/users.js';
import { filterCatalog } from './versioning/catalog.js';
import { ReleaseGates } from './versioning/gates.js';
import { parseRelease } from './versioning/release.js';
import { formatFindings, upgradeCheck } from './versioning/upgrade-check.js';

/** Exit codes: 0 success, 1 failure at run time, 2 bad configuration or usage. */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function fail(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`svc: configuration error: ${err.message}\n`);
    process.exit(EXIT_USAGE);
  }
  if (err instanceof AppError) {
    process.stderr.write(
      `svc: ${typeof err.body.message === 'string' ? err.body.message : JSON.stringify(err.body)}\n`,
    );
    process.exit(EXIT_FAILURE);
  }
  process.stderr.write(`svc: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT_FAILURE);
}

// Whatever the operator's umask, files and folders svc and its git processes create are owner-only.
restrictUmask();

/** Opens the configured database after making the data directory and storages owner-only. */
function openDb(config: ReturnType<typeof loadConfig>) {
  secureDataDir(
    config.dataDir,
    Object.values(config.storages).map((s) => s.path),
  );
  return createDb(config);
}

/** Runs `fn` with a migrated database and the composition root, then closes it. */
async function withContext<T>(fn: (ctx: ReturnType<typeof createContext>) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const db = openDb(config);
  try {
    await migrate(db);
    const ctx = createContext(config, db);
    await bootstrap(ctx, (line) => process.stderr.write(`${line}\n`));
    return await fn(ctx);
  } finally {
    await db.close();
  }
}

const program = new Command('svc')
  .description('svc: alert intake, error tracking and repository storages behind a GitLab-shaped REST API')
  .showHelpAfterError()
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE));

program
  .command('server')
  .description('start the HTTP server (migrates the database first)')
  .action(async () => {
    try {
      const config = loadConfig(process.env);
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

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(async () => {
    try {
      const config = loadConfig(process.env);
      const db = openDb(config);
      try {
        const applied = await migrate(db);
        process.stdout.write(
          applied.length ? `svc: applied ${applied.join(', ')}\n` : 'svc: database is up to date\n',
        );
      } finally {
        await db.close();
      }
    } catch (err) {
      fail(err);
    }
  });

const user = program.command('user').description('manage users');
user
  .command('create')
  .description('create a user')
  .requiredOption('--username <username>')
  .requiredOption('--email <email>')
  .option('--name <name>', 'display name (defaults to the username)')
  .requiredOption('--password <password>', 'at least 8 characters')
  .option('--admin', 'make the user an administrator', false)
  .action(async (o: { username: string; email: string; name?: string; password: string; admin: boolean }) => {
    try {
      await withContext(async (ctx) => {
        const u = await ctx.users.create('system', {
          username: o.username,
          email: o.email,
          name: o.name ?? o.username,
          password: o.password,
          admin: o.admin,
        });
        process.stdout.write(
          `svc: created user ${u.username} (id ${u.id})${u.admin ? ' as administrator' : ''}\n`,
        );
      });
    } catch (err) {
      fail(err);
    }
  });

const token = program.command('token').description('manage personal access tokens');
token
  .command('create')
  .description('create a personal access token and print it (shown once)')
  .requiredOption('--user <username>', 'the owner (username or id)')
  .option('--name <name>', 'token name', 'cli')
  .addOption(new Option('--scopes <scopes>', `comma-separated: ${TOKEN_SCOPES.join(', ')}`).default('api'))
  .option('--expires-at <date>', 'YYYY-MM-DD')
  .action(async (o: { user: string; name: string; scopes: string; expiresAt?: string }) => {
    try {
      const scopes = o.scopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = scopes.filter((s) => !TOKEN_SCOPES.includes(s as TokenScope));
      if (bad.length > 0) {
        process.stderr.write(
          `svc: unknown scope ${bad.join(', ')}; valid scopes: ${TOKEN_SCOPES.join(', ')}\n`,
        );
        process.exit(EXIT_USAGE);
      }
      await withContext(async (ctx) => {
        const owner = await ctx.users.resolve(o.user);
        if (!owner) throw new Error(`no user "${o.user}"`);
        const t = await ctx.users.createToken('system', owner.id, {
          name: o.name,
          scopes: scopes as TokenScope[],
          expiresAt: o.expiresAt ?? null,
        });
        process.stdout.write(`${t.token}\n`);
      });
    } catch (err) {
      fail(err);
    }
  });

program
  .command('config')
  .description('configuration')
  .command('check')
  .description('validate the configuration and print it (secrets masked)')
  .action(() => {
    try {
      const c = loadConfig(process.env);
      const shown = {
        ...c,
        databaseUrl: c.databaseUrl?.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:[REDACTED]@') ?? null,
        rootPassword: c.rootPassword ? '[set]' : null,
        rootToken: c.rootToken ? '[set]' : null,
        sharedRunnersRegistrationToken: c.sharedRunnersRegistrationToken ? '[set]' : null,
      };
      process.stdout.write(`${JSON.stringify(shown, null, 2)}\nsvc: configuration is valid\n`);
    } catch (err) {
      fail(err);
    }
  });

program
  .command('deprecations')
  .description(
    'print the deprecation catalog (what is removed when, the replacement, whether svc enforces it)',
  )
  .option('--release <release>', 'only entries removed at or before this release (e.g. 17.0)')
  .option('--breaking', 'only breaking changes')
  .option('--area <area>', 'only this area (api, runners, ci, geo, ...)')
  .option('--json', 'print JSON')
  .action((o: { release?: string; breaking?: boolean; area?: string; json?: boolean }) => {
    try {
      const config = loadConfig(process.env);
      if (o.release !== undefined && !/^\d{1,2}\.\d{1,2}$/.test(o.release)) {
        process.stderr.write(`svc: --release must look like 17.0 (got "${o.release}")\n`);
        process.exit(EXIT_USAGE);
      }
      const gates = new ReleaseGates(parseRelease(config.release));
      const rows = filterCatalog({ release: o.release, breaking: o.breaking, area: o.area }).map((d) => ({
        ...d,
        applies: d.removal !== null && d.removal !== 'v5' && gates.isRemoved(d.id),
      }));
      if (o.json) {
        process.stdout.write(
          `${JSON.stringify({ instance_release: config.release, deprecations: rows }, null, 2)}\n`,
        );
        return;
      }
      const table = [['id', 'removal', 'announced', 'breaking', 'applies', 'area', 'title']].concat(
        rows.map((d) => [
          d.id,
          d.removal ?? '-',
          d.announced ?? '-',
          d.breaking ? 'yes' : 'no',
          d.applies ? 'yes' : 'no',
          d.area,
          d.title,
        ]),
      );
      const widths = table[0]!.map((_, i) => Math.min(40, Math.max(...table.map((r) => r[i]!.length))));
      const line = (r: string[]) =>
        r.map((c, i) => (i < r.length - 1 ? c.slice(0, widths[i]).padEnd(widths[i]!) : c)).join('  ');
      process.stdout.write(
        `Instance release ${config.release}: ${rows.filter((r) => r.applies).length} of ${rows.length} listed removals apply.\n\n`,
      );
      process.stdout.write(`${table.map(line).join('\n')}\n`);
    } catch (err) {
      fail(err);
    }
  });

program
  .command('upgrade-check')
  .description('report every use, in your files, of something removed at or before a release')
  .requiredOption('--to <release>', 'the release you are upgrading to (e.g. 18.0)')
  .option('--json', 'print JSON')
  .argument(
    '[paths...]',
    'files or directories to read (svc config, CI YAML, Helm values, runner config.toml, scripts)',
    ['.'],
  )
  .action(async (paths: string[], o: { to: string; json?: boolean }) => {
    if (!/^\d{1,2}\.\d{1,2}$/.test(o.to)) {
      process.stderr.write(`svc: --to must be a release such as 17.0 (got "${o.to}")\n`);
      process.exit(EXIT_USAGE);
    }
    try {
      const files = await readFiles(paths);
      const findings = upgradeCheck(files, o.to);
      process.stdout.write(
        o.json ? `${JSON.stringify(findings, null, 2)}\n` : `${formatFindings(findings, o.to)}\n`,
      );
      // Non-zero when something breaks at the target release.
      if (findings.some((f) => f.breaksAtTarget)) process.exit(EXIT_FAILURE);
    } catch (err) {
      fail(err);
    }
  });

/** The text files under the given paths (directories recursively; .git and node_modules skipped). */
async function readFiles(paths: string[]): Promise<{ path: string; text: string }[]> {
  const { readdir, readFile, stat } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const out: { path: string; text: string }[] = [];
  const visit = async (p: string): Promise<void> => {
    const st = await stat(p);
    if (st.isDirectory()) {
      for (const name of (await readdir(p)).sort()) {
        if (name === '.git' || name === 'node_modules') continue;
        await visit(join(p, name));
      }
    } else if (st.isFile() && st.size <= 5 * 1024 * 1024) {
      const buf = await readFile(p);
      if (!buf.includes(0)) out.push({ path: p, text: buf.toString('utf8') });
    }
  };
  for (const p of paths) await visit(p);
  return out;
}

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
      await withContext(async (ctx) => {
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
      const config = loadConfig(process.env);
      const db = openDb(config);
      try {
        await migrate(db);
        // No bootstrap: the restored data brings its own users.
        const manifest = await createBackupService(createContext(config, db)).restore(
          file,
          terminalProgress(),
        );
        const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
        process.stdout.write(
          `svc: restored ${rows} rows and ${manifest.repositories.length} repositories (checksums verified)\n`,
        );
      } finally {
        await db.close();
      }
    } catch (err) {
      if (err instanceof BackupError) {
        process.stderr.write(`svc: restore failed, nothing was changed: ${err.message}\n`);
        process.exit(EXIT_FAILURE);
      }
      fail(err);
    }
  });

program
  .command('list-repos')
  .description(
    'list repositories (storage and relative path), optionally with activity since a time (deprecated 16.4, removed in 17.0)',
  )
  .option('--since <date-time>', 'only repositories with activity since this time')
  .action(async (o: { since?: string }) => {
    try {
      const config = loadConfig(process.env);
      // Spec: svc:list_repos is deprecated in 16.4 and removed in 17.0; backup and restore replace it.
      if (new ReleaseGates(parseRelease(config.release)).isRemoved('list_repos')) {
        process.stderr.write(
          'svc: list-repos was removed in 17.0 (SVC_RELEASE is ' +
            `${config.release}); move an instance with \`svc backup create\` and \`svc backup restore\` instead\n`,
        );
        process.exit(EXIT_USAGE);
      }
      if (o.since !== undefined && Number.isNaN(Date.parse(o.since))) {
        process.stderr.write(`svc: --since must be a date-time (got "${o.since}")\n`);
        process.exit(EXIT_USAGE);
      }
      process.stderr.write(
        'svc: list-repos is deprecated since 16.4 and removed in 17.0; use backup and restore\n',
      );
      await withContext(async (ctx) => {
        for (const line of await listRepositories(ctx, o.since ? new Date(o.since).toISOString() : null)) {
          process.stdout.write(`${line}\n`);
        }
      });
    } catch (err) {
      fail(err);
    }
  });

/** `<storage>\t<relative path>` of every repository with activity since `since`. */
async function listRepositories(
  ctx: ReturnType<typeof createContext>,
  since: string | null,
): Promise<string[]> {
  const k = ctx.db.kysely;
  let projects = k.selectFrom('projects').select(['id', 'repository_storage', 'last_activity_at as at']);
  let snippets = k.selectFrom('snippets').select(['id', 'repository_storage', 'updated_at as at']);
  let groups = k
    .selectFrom('namespaces')
    .select(['id', 'repository_storage', 'updated_at as at'])
    .where('kind', '=', 'group');
  if (since) {
    projects = projects.where('last_activity_at', '>=', since);
    snippets = snippets.where('updated_at', '>=', since);
    groups = groups.where('updated_at', '>=', since);
  }
  const rows = [
    ...(await projects.execute()).map((r) => ['project', r] as const),
    ...(await snippets.execute()).map((r) => ['snippet', r] as const),
    ...(await groups.execute()).map((r) => ['group', r] as const),
  ];
  return rows
    .filter(([, r]) => r.repository_storage)
    .map(([kind, r]) => `${r.repository_storage}\t${relativePath(kind, r.id)}`);
}

await program.parseAsync(process.argv);
