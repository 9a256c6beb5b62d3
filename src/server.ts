import { buildApp, loggerOptions } from './app.js';
import type { Config } from './config.js';
import { type AppContext, createContext } from './context.js';
import { loadOrCreateSecretKey } from './crypto.js';
import { createDb, migrate } from './db/db.js';
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
  if (boot.generatedPassword) {
    print(`svc: created the administrator "root" with password: ${boot.generatedPassword}`);
    print(
      'svc: this password is shown only once; sign in and change it, or set SVC_ROOT_PASSWORD before first start.',
    );
  } else if (boot.created) {
    print('svc: created the administrator "root" with the password from SVC_ROOT_PASSWORD.');
  }
}

/** Opens the database, migrates, creates the first admin if needed, and listens. */
export async function start(
  config: Config,
  opts: { log?: boolean; print?: (line: string) => void } = {},
): Promise<RunningServer> {
  const print = opts.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  secureDataDir(
    config.dataDir,
    Object.values(config.storages).map((s) => s.path),
  );
  loadOrCreateSecretKey(config.dataDir);
  const db = createDb(config);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const ctx = createContext(config, db);
  await bootstrap(ctx, print);
  const app = await buildApp(ctx, { logger: opts.log === false ? false : loggerOptions(config.logLevel) });
  const address = await app.listen({ host: config.host, port: config.port });
  await scheduleRetention(ctx.jobs, ctx.clock);
  ctx.jobs.start(1000, config.jobConcurrency);
  let closing: Promise<void> | null = null;
  return {
    app,
    ctx,
    address,
    close: () => {
      closing ??= (async () => {
        await app.close();
        await ctx.jobs.stop();
        await db.close();
      })();
      return closing;
    },
  };
}
