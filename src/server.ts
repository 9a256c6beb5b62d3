import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { buildApp, loggerOptions } from './app.js';
import type { AppContext } from './app-context.js';
import type { Clock } from './clock.js';
import { PgBus } from './cluster/pg-bus.js';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { loadOrCreateSecretKey } from './crypto.js';
import { createDb, type Db, migrate } from './db/db.js';
import { scheduleRetention } from './error-tracking/retention.js';
import { secureDataDir } from './file-modes.js';

/** A running server. */
export interface RunningServer {
  /** The HTTP application (buildApp's): Fastify stays behind app.ts. */
  readonly app: Awaited<ReturnType<typeof buildApp>>;
  readonly ctx: AppContext;
  /** The address it listens on, e.g. `http://127.0.0.1:8080`. */
  readonly address: string;
  /** Drains in-flight requests, then closes the database. */
  close(): Promise<void>;
}

/** Creates the first admin on first use; a generated password is printed once (never logged). */
export async function bootstrap(ctx: AppContext, print: (line: string) => void): Promise<void> {
  const { config } = ctx;
  const boot = await ctx.users.bootstrap({ rootPassword: config.rootPassword, rootToken: config.rootToken });
  const signIn = `Sign in at ${config.externalUrl}/ as root`;
  if (boot.generatedPassword) {
    const banner = framed([
      `svc: created the administrator "root" with password: ${boot.generatedPassword}`,
      '',
      `${signIn} with this password.`,
      'It is shown only this once: it is neither logged nor stored in clear.',
      'Change it after signing in: your name (top right) opens your profile, with "Change password".',
      '(Or set SVC_ROOT_PASSWORD before the first start.)',
    ]);
    for (const line of banner) print(line);
  } else if (boot.created) {
    const banner = framed([
      'svc: created the administrator "root" with the password from SVC_ROOT_PASSWORD.',
      `${signIn}.`,
    ]);
    for (const line of banner) print(line);
  }
  const ignored = [config.rootPassword && 'SVC_ROOT_PASSWORD', config.rootToken && 'SVC_ROOT_TOKEN'].filter(
    (name): name is string => typeof name === 'string',
  );
  if (!boot.created && ignored.length > 0) {
    for (const line of ignoredRootSettingsWarning(ignored, config)) print(line);
  }
}

/**
 * `lines` in a frame with a blank line above and below, so that what the first start prints once (the root
 * password) stands out from the log lines around it.
 */
export function framed(lines: readonly string[]): string[] {
  const width = Math.max(...lines.map((l) => l.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  return ['', rule, ...lines.map((l) => `| ${l.padEnd(width)} |`), rule, ''];
}

/**
 * Why `SVC_ROOT_PASSWORD` / `SVC_ROOT_TOKEN` did nothing (they only seed the first admin of an empty database),
 * and what to do instead. Never repeats their values.
 */
export function ignoredRootSettingsWarning(names: readonly string[], config: Config): string[] {
  const both = names.length > 1;
  const where = config.databaseUrl
    ? 'the PostgreSQL database of SVC_DATABASE_URL'
    : `the data directory ${config.dataDir}`;
  return [
    `svc: warning: ${names.join(' and ')} ${both ? 'have' : 'has'} no effect: ${both ? 'they apply' : 'it applies'} only on the first start, when the database has no users, and ${where} already has users (root was created on an earlier start).`,
    `svc: warning: to start over with ${both ? 'them' : 'it'}, point SVC_DATA_DIR at a new, empty directory${config.databaseUrl ? ' and SVC_DATABASE_URL at an empty database' : ''}; or keep this data: sign in as root with its existing password, and create a token with \`svc token create --user root --scopes api\` or in the UI (Access tokens).`,
  ];
}

/** Opens the configured database after making the data directory and storages owner-only. */
function openDb(config: Config): Db {
  secureDataDir(
    config.dataDir,
    Object.values(config.storages).map((s) => s.path),
  );
  return createDb(config);
}

/** Opens the database and applies pending migrations; the migrations applied, by name (`svc migrate`). */
export async function migrateDatabase(config: Config): Promise<string[]> {
  const db = openDb(config);
  try {
    return await migrate(db);
  } finally {
    await db.close();
  }
}

/**
 * Runs `fn` with a migrated database and the composition root, then closes the database: the CLI's commands
 * reach the database only through here (and `start`). With `print`, the first admin is created if needed
 * (its generated password printed); without it (a restore brings its own users), no user is created.
 */
export async function withContext<T>(
  config: Config,
  opts: { print?: (line: string) => void },
  fn: (ctx: AppContext) => Promise<T>,
): Promise<T> {
  const db = openDb(config);
  try {
    await migrate(db);
    const ctx = createContext(config, db);
    if (opts.print) await bootstrap(ctx, opts.print);
    return await fn(ctx);
  } finally {
    await db.close();
  }
}

/** Listens on an ephemeral port of `host`; resolves with the server once it is bound. */
function bindEphemeral(host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Opens the database, migrates, creates the first admin if needed, and listens. Port 0 binds an ephemeral port
 * first, before anything else, and an external URL derived from the port names the bound one (tests and benches
 * read it from `address` or `ctx.config`; no port is picked, released and bound again later).
 */
export async function start(
  config: Config,
  opts: {
    log?: boolean;
    print?: (line: string) => void;
    /** The time source (tests pass one they move); the system clock by default. */
    clock?: Clock;
    /**
     * Whether this process creates the first admin (and warns when the root settings had no effect); false in the
     * workers of `svc server --workers N`, whose primary has already done it once for all of them.
     */
    bootstrap?: boolean;
  } = {},
): Promise<RunningServer> {
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const bound = config.port === 0 ? await bindEphemeral(config.host) : null;
  try {
    return await startOn(bound ? withBoundPort(config, bound) : config, bound, {
      log: opts.log,
      print,
      clock: opts.clock,
      bootstrap: opts.bootstrap ?? true,
    });
  } catch (err) {
    bound?.close();
    throw err;
  }
}

/** The configuration with the port a port-0 server was given (and the external URL, when derived from it). */
function withBoundPort(config: Config, bound: Server): Config {
  const { port } = bound.address() as AddressInfo;
  const external = new URL(config.externalUrl);
  if (external.port === '0') external.port = String(port);
  return Object.freeze({ ...config, port, externalUrl: external.toString().replace(/\/$/, '') });
}

async function startOn(
  config: Config,
  bound: Server | null,
  opts: { log?: boolean; print: (line: string) => void; clock?: Clock; bootstrap: boolean },
): Promise<RunningServer> {
  const { log, print, clock } = opts;
  const db = openDb(config);
  try {
    loadOrCreateSecretKey(config.dataDir);
    await migrate(db, print);
  } catch (err) {
    await db.close();
    throw err;
  }
  const ctx = createContext(config, db, clock);
  if (opts.bootstrap) await bootstrap(ctx, print);
  const logs = log === false ? null : logDestination();
  const app = await buildApp(ctx, {
    logger: logs === null ? false : { ...(loggerOptions(config.logLevel) as object), stream: logs.stream },
    ...(bound && {
      serverFactory: (handler) => {
        bound.on('request', handler);
        return bound;
      },
    }),
  });
  // A failed after-commit signal (the search index's) loses nothing, but is worth a warning.
  ctx.outbox.log = (msg, extra) => app.log.warn(extra ?? {}, msg);
  // An error is read without its suspect commits when their lookup fails (a git timeout): worth a warning.
  ctx.suspectCommits.log = (msg, extra) => app.log.warn(extra ?? {}, msg);
  if (ctx.bus instanceof PgBus) {
    // Listening before the first request is served; a lost connection is logged (the bus never throws).
    ctx.bus.log = (msg, extra) => app.log.warn(extra ?? {}, msg);
    await ctx.bus.start();
  }
  let address: string;
  if (bound) {
    await app.ready();
    address = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  } else {
    address = await app.listen({ host: config.host, port: config.port });
  }
  ctx.alertSearch.log = (msg, extra) => app.log.error(extra ?? {}, msg);
  // Alerts not indexed for search yet (after an upgrade, a restore or a stop) are indexed in the background.
  ctx.alertSearch.poke();
  await scheduleRetention(ctx.jobs, ctx.clock);
  // Deadlines kept in rows get their jobs again (after a restore, whose archive holds no jobs).
  await ctx.heartbeats.scheduleDeadlines();
  await ctx.monitors.scheduleDeadlines();
  ctx.jobs.start(1000, config.jobConcurrency);
  let closing: Promise<void> | null = null;
  return {
    app,
    ctx,
    address,
    close: () => {
      closing ??= (async () => {
        await app.close();
        // Fastify closes only a server it listened on itself: the pre-bound one ends here, once its requests did.
        if (bound?.listening) await new Promise((resolve) => bound.close(resolve));
        await ctx.jobs.stop();
        await ctx.alertSearch.stop();
        await ctx.bus.close();
        await db.close();
        logs?.close();
      })();
      return closing;
    },
  };
}

/** How long a log line may wait in the buffer before it is written (see logDestination). */
const LOG_FLUSH_MS = 200;

/**
 * Standard output for the logs, written in blocks of up to 4 KiB (a write per log line cost about 5% of the CPU
 * of an alert or event under load), and at least every LOG_FLUSH_MS. What is buffered is written on exit, also
 * on an uncaught exception (pino flushes on `exit`); only a SIGKILL can lose it.
 */
function logDestination(): { stream: pino.DestinationStream; close(): void } {
  const stream = pino.destination({ dest: 1, minLength: 4096, sync: false });
  const timer = setInterval(() => stream.flush(), LOG_FLUSH_MS);
  timer.unref();
  return {
    stream,
    close: () => {
      clearInterval(timer);
      try {
        stream.flushSync();
      } catch {
        // A write still in flight: it completes on its own before the process exits.
      }
    },
  };
}
