import { Command, Option } from 'commander';
import { TOKEN_SCOPES, type TokenScope } from './accounts/accounts.js';
import { ConfigError, loadConfig } from './config.js';
import { createContext } from './context.js';
import { createDb, migrate } from './db/db.js';
import { AppError } from './errors.js';
import { bootstrap, start } from './server.js';

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

/** Runs `fn` with a migrated database and the composition root, then closes it. */
async function withContext<T>(fn: (ctx: ReturnType<typeof createContext>) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const db = createDb(config);
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
      process.stdout.write(`svc: listening on ${server.address} (external URL ${config.externalUrl})\n`);
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
      const db = createDb(config);
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

await program.parseAsync(process.argv);
