import { type Command, Option } from 'commander';
import { loadConfig } from '../../config.js';
import { withContext } from '../../server.js';
import type { ContainerType, StorageMove } from '../../storage-moves/storage-moves.js';
import { cliProgress } from '../progress.js';
import { type Env, EXIT_FAILURE, fail, printErr, usage } from '../run.js';

/** States a move leaves when it is done, one way or the other. */
const PENDING = new Set(['initial', 'scheduled', 'started']);
const POLL_MS = 250;

/**
 * `svc storage-move --from <storage>`: the bulk move of the API (`POST /project_repository_storage_moves`), run
 * from the command line to its end: it schedules a move of every repository on the storage, runs the moves (the
 * same durable jobs a server runs; a server running meanwhile shares them) and shows their progress.
 */
export function registerStorageMove(program: Command, env: Env): void {
  program
    .command('storage-move')
    .description('move every repository of a storage to another one, and wait for the moves to end')
    .requiredOption('--from <storage>', 'the storage to empty')
    .option('--to <storage>', 'the destination (default: chosen by the storage weights)')
    .addOption(
      new Option('--type <type>', 'which repositories')
        .choices(['project', 'snippet', 'group'])
        .default('project'),
    )
    .option('--user <name>', 'the administrator the moves are scheduled as', 'root')
    .action(async (o: { from: string; to?: string; type: ContainerType; user: string }) => {
      try {
        const config = loadConfig(env);
        const failed = await withContext(config, { print: printErr }, async (ctx) => {
          const actor = await ctx.users.resolve(o.user);
          if (!actor?.admin) usage(`--user must name an administrator ("${o.user}" is not one)`);
          const page = { page: 1, perPage: 100 };
          const before = (await ctx.storageMoves.list(actor, o.type, null, { page: 1, perPage: 1 })).items[0];
          const scheduled = await ctx.storageMoves.scheduleAll(actor, o.type, o.from, o.to);
          process.stdout.write(`svc: scheduled ${scheduled} ${o.type} move(s) from "${o.from}"\n`);
          const progress = cliProgress('storage-move');
          progress.start(`${o.type}s`, scheduled);
          ctx.jobs.start(POLL_MS, config.jobConcurrency);
          let done = 0;
          let ours: StorageMove[] = [];
          try {
            while (done < scheduled) {
              await new Promise((resolve) => setTimeout(resolve, POLL_MS));
              ours = await movesAfter(
                before?.id ?? 0,
                (p) => ctx.storageMoves.list(actor, o.type, null, p),
                page,
              );
              const now = ours.filter((m) => !PENDING.has(m.state)).length;
              for (; done < now; done++) progress.tick();
            }
          } finally {
            progress.stop();
            await ctx.jobs.stop();
          }
          const failures = ours.filter((m) => m.state === 'failed');
          for (const m of failures) {
            printErr(
              `svc: ${o.type} ${m.containerId}: the move failed; it stays on "${m.sourceStorageName}"`,
            );
          }
          process.stdout.write(`svc: ${scheduled - failures.length} moved, ${failures.length} failed\n`);
          return failures.length;
        });
        if (failed > 0) process.exit(EXIT_FAILURE);
      } catch (err) {
        fail(err);
      }
    });
}

/** The moves created after move `afterId` (newest first, page by page). */
async function movesAfter(
  afterId: number,
  list: (page: { page: number; perPage: number }) => Promise<{ items: readonly StorageMove[] }>,
  first: { page: number; perPage: number },
): Promise<StorageMove[]> {
  const out: StorageMove[] = [];
  for (let page = first.page; ; page++) {
    const { items } = await list({ ...first, page });
    for (const m of items) {
      if (m.id <= afterId) return out;
      out.push(m);
    }
    if (items.length < first.perPage) return out;
  }
}
