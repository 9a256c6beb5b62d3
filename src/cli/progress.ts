import { Presets, SingleBar } from 'cli-progress';
import type { Progress } from '../backup/backup.service.js';

/** Where progress goes: stderr, or a stand-in in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(chunk: string): unknown;
}

/**
 * Progress of a long CLI job (`task`: "backup", "restore"): a cli-progress bar on a terminal, plain lines
 * otherwise (CI logs and pipes keep no carriage returns): a line when a step starts, at every tenth of it and
 * when it ends, so a log of 100,000 rows stays a dozen lines.
 */
export function cliProgress(task: string, stream: ProgressStream = process.stderr): Progress {
  return stream.isTTY ? barProgress(stream) : lineProgress(task, stream);
}

function barProgress(stream: ProgressStream): Progress {
  let bar: SingleBar | null = null;
  return {
    start: (label, total) => {
      bar = new SingleBar(
        {
          format: `${label.padEnd(12)} [{bar}] {percentage}% {value}/{total} {eta_formatted}`,
          stream: stream as NodeJS.WritableStream,
        },
        Presets.shades_classic,
      );
      bar.start(total, 0);
    },
    tick: () => bar?.increment(),
    stop: () => bar?.stop(),
  };
}

function lineProgress(task: string, stream: ProgressStream): Progress {
  let label = '';
  let total = 0;
  let done = 0;
  let lastTenth = 0;
  const line = (): void => {
    stream.write(`svc: ${task}: ${label} ${done}/${total}\n`);
  };
  return {
    start: (l, t) => {
      label = l;
      total = t;
      done = 0;
      lastTenth = 0;
      if (t > 0) line();
    },
    tick: () => {
      done++;
      const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
      if (tenth > lastTenth && done < total) {
        lastTenth = tenth;
        line();
      }
    },
    stop: () => {
      if (total > 0 || done > 0) line();
      else stream.write(`svc: ${task}: ${label} (nothing to do)\n`);
    },
  };
}
