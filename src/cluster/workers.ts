import cluster, { type Worker } from 'node:cluster';

/** A worker's report to the primary once it listens. */
export interface ListeningMessage {
  readonly type: 'svc:listening';
  readonly address: string;
  readonly externalUrl: string;
}

/** A worker that dies sooner than this after its start counts as a crash loop: its restart waits longer. */
const QUICK_DEATH_MS = 5000;
const MAX_RESTART_DELAY_MS = 10_000;

/**
 * The primary of `svc server --workers N`: forks N workers that share the listening port (node:cluster hands
 * connections out round-robin), prints `svc: listening on ...` once all listen, restarts a worker that dies
 * (at once, or with a growing delay when workers keep dying right after their start), and on SIGTERM or SIGINT
 * passes the signal on and exits when every worker drained and exited.
 */
export function runPrimary(workers: number, print: (line: string) => void): Promise<void> {
  let stopping = false;
  let announced = false;
  let restartDelay = 0;
  const listening = new Set<number>();
  const started = new Map<number, number>();

  const fork = (): Worker => {
    const w = cluster.fork();
    started.set(w.id, Date.now());
    w.on('message', (msg: ListeningMessage) => {
      if (msg?.type !== 'svc:listening') return;
      listening.add(w.id);
      print(`svc: worker ${w.process.pid} listening`);
      if (!announced && listening.size >= workers) {
        announced = true;
        print(`svc: listening on ${msg.address} (external URL ${msg.externalUrl}, ${workers} workers)`);
      }
    });
    return w;
  };

  return new Promise((resolve) => {
    cluster.on('exit', (w, code, signal) => {
      listening.delete(w.id);
      const lived = Date.now() - (started.get(w.id) ?? 0);
      started.delete(w.id);
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
        return;
      }
      restartDelay = lived < QUICK_DEATH_MS ? Math.min(MAX_RESTART_DELAY_MS, restartDelay * 2 || 250) : 0;
      print(
        `svc: worker ${w.process.pid} exited (${signal ?? `status ${code}`}); starting another${restartDelay ? ` in ${restartDelay} ms` : ''}`,
      );
      setTimeout(() => {
        if (!stopping) fork();
      }, restartDelay);
    });
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      print(`svc: ${signal}: stopping ${workers} workers`);
      const alive = Object.values(cluster.workers ?? {});
      if (alive.length === 0) resolve();
      for (const w of alive) w?.process.kill('SIGTERM');
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    for (let i = 0; i < workers; i++) fork();
  });
}

/** In a worker: tells the primary this worker listens. */
export function reportListening(address: string, externalUrl: string): void {
  const msg: ListeningMessage = { type: 'svc:listening', address, externalUrl };
  process.send?.(msg);
}

/** Whether this process is a worker forked by `runPrimary`. */
export const isWorker = (): boolean => cluster.isWorker;
